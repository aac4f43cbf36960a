"""Windows over a spout's columnar blocks: ``Tuple`` objects only when a bolt asks, ``to_arrow`` from the blocks.

What a window holds and fires is checked against the tuple paths by the
property test in ``test_execute_batch.py``; these tests pin what the columnar
path is for: no tuple is built for a bolt that only reads ``to_arrow()``, the
table is a zero-copy slice of the block where the rows are contiguous and keeps
the block's Arrow types, and a bolt that reads tuples gets them built as they
arrive from its first window on.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa

from bolts import BaseWindowedBolt, Fields, make_task
from bolts.task_input import TaskInput
from state_backends.memory import MemoryBackend
from windowing import Duration, Event

FIELDS = Fields("key", "ts", "at")


class Columns(BaseWindowedBolt):
    """Emits each window's table (read with to_arrow only)."""

    def execute(self, window):
        self.collector.emit([window.to_arrow()])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("table"))


class Keys(BaseWindowedBolt):
    """Emits each window's keys, read from its tuples."""

    def execute(self, window):
        self.collector.emit([[t["key"] for t in window.get()]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("keys"))


def _table(stamps: list[int]) -> pa.Table:
    return pa.table({
        "key": pa.array([f"k{ts}" for ts in stamps], pa.string()),
        "ts": pa.array(stamps, pa.int64()),
        "at": pa.array([datetime.fromtimestamp(ts, UTC) for ts in stamps], pa.timestamp("us", tz="UTC")),
    })


def _task(bolt, store=None):
    emitted: list = []
    bolt = bolt.with_tumbling_window(Duration(10)).with_timestamp_field("ts")
    task = make_task(bolt, component="w", input_streams=[("events", "default")], store=store,
                     persist_windows=store is not None, watermark_at_batch_end=True)
    task.prepare({}, lambda stream, values: emitted.append(values[0]))
    return task, emitted


def _deliver(task, table: pa.Table, as_rows: bool = False) -> TaskInput:
    batch = TaskInput()
    if as_rows:
        for row in zip(*(table.column(f).to_pylist() for f in FIELDS), strict=True):
            batch.append_row("events", 0, "default", FIELDS, row)
    else:
        batch.append_table("events", 0, "default", FIELDS, table)
    task.execute_batch(batch)
    task.end_batch()
    return batch


def _windows_of_rows(batches: list[list[int]]) -> list[list[int]]:
    """The windows' timestamps when the same batches arrive as rows (tuples built at once)."""
    task, emitted = _task(Keys())
    for stamps in batches:
        _deliver(task, _table(stamps), as_rows=True)
    task.close()
    return [[int(key[1:]) for key in keys] for keys in emitted]


def _inside(piece: pa.Array, whole: pa.Array) -> bool:
    """Whether ``piece``'s values buffer lies inside ``whole``'s (no copy was made)."""
    part, buffer = piece.buffers()[-1], whole.buffers()[-1]
    return buffer.address <= part.address and part.address + part.size <= buffer.address + buffer.size


def test_to_arrow_slices_the_block_without_building_a_tuple_and_keeps_its_types():
    task, emitted = _task(Columns())
    block = _table(list(range(1, 31)))
    batch = _deliver(task, block)
    task.close()
    assert [t.column("ts").to_pylist() for t in emitted] == _windows_of_rows([list(range(1, 31))])
    whole = max(emitted, key=len)  # a window of 10 consecutive rows of the block
    assert len(whole) == 10
    assert whole.schema == block.schema
    assert whole.column("at").to_pylist() == [datetime.fromtimestamp(ts, UTC) for ts in whole.column("ts").to_pylist()]
    for name in ("ts", "at"):
        assert _inside(whole.column(name).chunks[0], block.column(name).chunks[0])
    assert batch.segments[0]._built is None  # no Tuple was ever built
    assert task._rows_lazily


def test_out_of_order_rows_are_taken_in_arrival_order():
    batches = [[12, 3, 15, 7, 1, 11], [5, 14], [25, 21, 16]]
    task, emitted = _task(Columns())
    for stamps in batches:
        _deliver(task, _table(stamps))
    task.close()
    got = [t.column("ts").to_pylist() for t in emitted]
    assert got == _windows_of_rows(batches)
    assert any(len(set(map(id, t.column("ts").chunks))) > 1 for t in emitted)  # a window over two blocks


def test_a_bolt_that_reads_tuples_gets_them_built_as_they_arrive():
    task, emitted = _task(Keys())
    _deliver(task, _table([1, 2, 12, 25]))
    assert emitted and not task._rows_lazily  # the first window read its tuples
    _deliver(task, _table([26]))
    assert type(task.manager.held()[-1]) is Event  # the new row went in as a built tuple
    task.close()
    assert emitted == [[f"k{ts}" for ts in w] for w in _windows_of_rows([[1, 2, 12, 25], [26]])]


def test_a_restored_window_and_new_blocks_give_one_table():
    store = MemoryBackend().namespace("w")
    task, _ = _task(Columns(), store)
    _deliver(task, _table([1, 2]))
    assert task.commit(1)
    task, emitted = _task(Columns(), store)  # rebuilt from the store: its tuples are built
    _deliver(task, _table([3]))
    task.close()
    assert emitted[0].column("key").to_pylist() == ["k1", "k2", "k3"]
    assert emitted[0].column("ts").to_pylist() == [1, 2, 3]
