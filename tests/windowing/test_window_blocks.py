"""Windows over a spout's columnar blocks: ``Tuple`` objects only when a bolt asks, ``to_arrow`` from the blocks.

What a window holds and fires is checked against the tuple paths by the
property test in ``test_execute_batch.py``; these tests pin what the columnar
path is for: no tuple is built for a bolt that only reads ``to_arrow()``, the
table is a zero-copy slice of the block where the rows are contiguous and keeps
the block's Arrow types, and a bolt that reads tuples gets them built per window
from the blocks (as they arrive, for good, where a window holds events: Storm-exact
windows). A window holds about its own rows: a large block mostly expired is cut
down to a copy of its live rows after an evaluation.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pyarrow as pa

from bolts import BaseStatefulWindowedBolt, BaseWindowedBolt, Fields, TaskOptions, make_task
from bolts.task_input import TaskInput
from state_backends.memory import MemoryBackend
from tests.bolts_for_tests import WindowIds
from windowing import Count, Duration, Event
from windowing.storm.block_buffer import BlockBuffer

FIELDS = Fields("key", "ts", "at")


class Columns(BaseWindowedBolt):
    """Emits each window's table (read with to_arrow only)."""

    def execute(self, window):
        self.collector.emit([window.to_arrow()])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("table"))


def _table(stamps: list[int]) -> pa.Table:
    return pa.table({
        "key": pa.array([f"k{ts}" for ts in stamps], pa.string()),
        "ts": pa.array(stamps, pa.int64()),
        "at": pa.array([datetime.fromtimestamp(ts, UTC) for ts in stamps], pa.timestamp("us", tz="UTC")),
    })


def _task(bolt, store=None):
    emitted: list = []
    bolt = bolt.with_tumbling_window(Duration(10)).with_timestamp_field("ts")
    task = make_task(bolt, TaskOptions(component="w", input_streams=[("events", "default")], store=store,
                                       watermark_at_batch_end=True))
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


def _run(task, steps: list[list[int] | int], as_rows: bool = False) -> list[TaskInput]:
    """Each step a batch of rows with these timestamps, or (an int) a watermark from upstream; then close."""
    batches = []
    for step in steps:
        if isinstance(step, int):
            task.advance_watermark(step)
        else:
            batches.append(_deliver(task, _table(step), as_rows))
    task.close()
    return batches


def _windows_of_rows(steps: list[list[int] | int]) -> list[list[int]]:
    """The windows' timestamps when the same batches arrive as rows (tuples built at once)."""
    task, emitted = _task(WindowIds("key"))
    _run(task, steps, as_rows=True)
    return [[int(key[1:]) for key in keys] for keys in emitted]


def _inside(piece: pa.Array, whole: pa.Array) -> bool:
    """Whether ``piece``'s values buffer lies inside ``whole``'s (no copy was made)."""
    part, buffer = piece.buffers()[-1], whole.buffers()[-1]
    return buffer.address <= part.address and part.address + part.size <= buffer.address + buffer.size


def test_to_arrow_slices_the_block_without_building_a_tuple_and_keeps_its_types():
    # The first window shows the bolt reads only to_arrow(): the later blocks go into the window unbuilt.
    steps = [[1, 2, 10], 11, list(range(13, 43))]
    task, emitted = _task(Columns())
    batches = _run(task, steps)
    assert [t.column("ts").to_pylist() for t in emitted] == _windows_of_rows(steps)
    block, later = _table(steps[2]), emitted[1:]  # the windows of the second batch's rows
    assert len(later) == 4  # (10, 20], (20, 30], (30, 40], and (40, 50] at close
    for table in later:
        assert table.schema == block.schema
        stamps = table.column("ts").to_pylist()
        assert table.column("at").to_pylist() == [datetime.fromtimestamp(ts, UTC) for ts in stamps]
        for name in ("ts", "at"):
            assert _inside(table.column(name).chunks[0], batches[1].segments[0].table.column(name).chunks[0])
    assert batches[1].segments[0]._built is None  # no Tuple of the second batch was ever built
    assert task._rows_lazily


def test_out_of_order_rows_are_taken_in_arrival_order():
    steps = [[1, 2, 10], 11, [22, 13, 25, 17, 11, 21], [15, 24], [35, 31, 26]]
    task, emitted = _task(Columns())
    _run(task, steps)
    assert [t.column("ts").to_pylist() for t in emitted] == _windows_of_rows(steps)
    assert any(t.column("ts").num_chunks > 1 for t in emitted)  # a window over two blocks


def test_a_bolt_that_reads_tuples_gets_them_built_per_window_and_holds_none():
    # Held rows stay in their blocks: each window builds its tuples (in bulk) for its execute only.
    steps = [[1, 2, 10], 11, [12, 25], [26]]
    task, emitted = _task(WindowIds("key"))
    first = _deliver(task, _table(steps[0]))
    task.advance_watermark(steps[1])
    assert emitted and task._rows_lazily
    second = _deliver(task, _table(steps[2]))
    buffer = task.manager.eviction.buffer
    assert isinstance(buffer, BlockBuffer) and all(b.is_columnar for b in buffer.index.blocks.values())
    _run(task, steps[3:])
    assert emitted == [[f"k{ts}" for ts in w] for w in _windows_of_rows(steps)]
    assert first.segments[0]._built is None and second.segments[0]._built is None  # no Tuple held by a segment


def test_a_storm_exact_bolt_that_reads_tuples_gets_them_built_as_they_arrive():
    # Storm-exact windows hold events, not arrays: a bolt that reads tuples gets them built once, as they arrive.
    steps = [[1, 2, 10], 11, [12, 25], [26]]

    def task_of():
        emitted: list = []
        bolt = WindowIds("key").with_tumbling_window(Duration(10)).with_timestamp_field("ts").with_storm_semantics()
        task = make_task(bolt, TaskOptions(component="w", input_streams=[("events", "default")],
                                           watermark_at_batch_end=True))
        task.prepare({}, lambda stream, values: emitted.append(values[0]))
        return task, emitted

    task, emitted = task_of()
    _deliver(task, _table(steps[0]))
    task.advance_watermark(steps[1])
    assert emitted and not task._rows_lazily  # a window read its tuples: built for good
    _deliver(task, _table(steps[2]))
    assert all(type(e) is Event for e in task.manager.held())
    _run(task, steps[3:])
    rows_task, from_rows = task_of()
    _run(rows_task, steps, as_rows=True)
    assert emitted == from_rows


def test_a_restored_window_and_new_blocks_give_one_table():
    store = MemoryBackend().namespace("w")
    task, _ = _task(Columns(), store)
    _deliver(task, _table([1, 2]))
    assert task.commit(1)
    task, emitted = _task(Columns(), store)  # rebuilt from the store: its tuples are built
    task._rows_lazily = True  # as after a window read only with to_arrow()
    _deliver(task, _table([3]))
    task.close()
    assert emitted[0].column("key").to_pylist() == ["k1", "k2", "k3"]
    assert emitted[0].column("ts").to_pylist() == [1, 2, 3]


def test_every_window_of_a_bolt_has_the_blocks_types_built_tuples_or_not():
    # An int32 column: pyarrow would infer int64 from the built tuples of the first window.
    def table(stamps):
        return _table(stamps).append_column("n", pa.array(stamps, pa.int32()))

    fields = Fields("key", "ts", "at", "n")
    task, emitted = _task(Columns())
    for stamps in ([1, 2, 10], [13, 22], [25, 31]):
        batch = TaskInput()
        batch.append_table("events", 0, "default", fields, table(stamps))
        task.execute_batch(batch)
        task.end_batch()
    task.close()
    assert len(emitted) >= 3 and task._rows_lazily
    assert all(t.schema == emitted[0].schema for t in emitted) and emitted[0].schema.field("n").type == pa.int32()
    assert pa.concat_tables(emitted).column("ts").to_pylist() == [1, 2, 10, 13, 22, 25, 31]


def test_a_paged_window_never_holds_blocks():
    class PagedColumns(BaseStatefulWindowedBolt):
        def init_state(self, state):
            pass

        def execute(self, window):
            self.collector.emit([window.to_arrow()])

        def declare_output_fields(self, declarer):
            declarer.declare(Fields("table"))

    store = MemoryBackend().namespace("w")
    bolt = (PagedColumns().with_tumbling_window(Duration(10)).with_timestamp_field("ts").with_persistence()
            .with_max_events_in_memory(2))
    task = make_task(bolt, TaskOptions(component="w", input_streams=[("events", "default")], store=store,
                                       watermark_at_batch_end=True))
    task.prepare({}, lambda stream, values: None)
    for stamps in ([1, 2, 10], [13, 22], [25, 31]):
        _deliver(task, _table(stamps))
        task.commit(stamps[0])
    assert not task._rows_lazily
    assert all(type(e) is Event for e in task.manager.held())


class Changes(BaseWindowedBolt):
    """Emits each window's ids, new ids and expired ids; consumes its get_new() list as a bolt may."""

    def execute(self, window):
        new = window.get_new()
        ids = [[t["id"] for t in part] for part in (window.get(), new, window.get_expired())]
        new.clear()  # the bolt's own list: get() is left whole
        self.collector.emit([*ids, len(window.get())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("ids", "new", "expired", "size_after"))


def _count_task(count: int):
    emitted: list = []
    bolt = Changes().with_window(Count(count), Duration(10))
    task = make_task(bolt, TaskOptions(component="w", input_streams=[("up", "default")], start_time_ms=0))
    task.prepare({}, lambda stream, values: emitted.append(values))
    return task, emitted


def test_get_new_of_the_first_window_is_a_list_of_its_own():
    task, emitted = _count_task(10)
    for now, ids in ((10, [1, 2, 3]), (20, [4])):
        batch = TaskInput()
        batch.append_table("up", 0, "default", Fields("id"), pa.table({"id": pa.array(ids, pa.int64())}))
        task.execute_batch(batch)
        task.end_batch()
        task.advance_to(now)
    assert emitted == [[[1, 2, 3], [1, 2, 3], [], 3], [[1, 2, 3, 4], [4], [], 4]]


def test_a_small_window_over_large_batches_holds_its_own_rows_not_the_batches():
    # Count(100) over batches of 300,000 rows: once a window was evaluated, a block mostly expired is a copy of
    # its live rows; the batch's table (megabytes) is let go, as the tuple path would (it holds 100 tuples).
    task, emitted = _count_task(100)
    buffer = task.manager.eviction.buffer
    n = 300_000
    for b in range(3):
        ids = np.arange(b * n, (b + 1) * n)
        batch = TaskInput()
        batch.append_table("up", 0, "default", Fields("id", "s"),
                           pa.table({"id": pa.array(ids), "s": pa.array(np.full(n, "x" * 20).astype(object))}))
        task.execute_batch(batch)
        task.end_batch()
        assert sum(b.source.table.num_rows for b in buffer.index.blocks.values()) == n  # until an evaluation
        task.advance_to((b + 1) * 10)
        assert isinstance(buffer, BlockBuffer) and len(buffer) == 100
        held = [block.source.table for block in buffer.index.blocks.values()]
        assert sum(t.num_rows for t in held) == 100 and sum(t.get_total_buffer_size() for t in held) < 10_000
        window, new, expired, size = emitted[-1]
        assert window == new == list(range((b + 1) * n - 100, (b + 1) * n)) and size == 100
        assert expired == list(range(b * n - 100 if b else 0, (b + 1) * n - 100))  # the compacted rows among them
