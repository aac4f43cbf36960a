"""A persistent window stores a spout's columnar rows as Arrow records (``a/``), and resumes them as blocks.

The record is the rows' own columns: arrival numbers and timestamps become
columns only when the metadata cannot say them in one value. A task that
commits, restarts and goes on gives the windows of one that never stopped
(tuples arriving as rows); dead rows are recorded and a record goes once all
its rows have expired, as ``c/`` chunks do.
"""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

from bolts import BaseWindowedBolt, Fields, TaskOptions, make_task
from bolts.codecs import arrow_chunk
from bolts.codecs.arrow_chunk import (
    ARROW_CHUNK_PREFIX,
    SEQ_COLUMN,
    TS_COLUMN,
    decode_arrow_chunk,
    encode_arrow_chunk,
    encode_arrow_parts,
)
from bolts.codecs.window_state_codec import CHUNK_PREFIX, DEAD_PREFIX
from bolts.storm.table_rows import TableRows
from bolts.task_input import TaskInput
from state_backends.memory import MemoryBackend
from tests.bolts_for_tests import WindowIds
from tests.service_fixtures import fresh_namespace as fresh
from windowing import Count, Duration

FIELDS = Fields("key", "ts", "value")


def _rows(stamps: list[int]) -> TableRows:
    table = pa.table({"key": [f"k{t % 3}" for t in stamps], "ts": pa.array(stamps, pa.int64()),
                      "value": pa.array([t * 10 for t in stamps], pa.int32())})
    return TableRows(table, FIELDS, "s1", "events", 2)


@pytest.mark.parametrize(("seqs", "ts", "columns"), [
    ([5, 6, 7, 8], [4, 1, 9, 3], []),  # numbers in a run, timestamps from the ts column
    ([5, 7, 8, 11], [4, 1, 9, 3], [SEQ_COLUMN]),  # gaps: the numbers are a column
    ([5, 6, 7, 8], [100, 100, 100, 100], []),  # processing time: one timestamp
    ([5, 6, 7, 8], [4, 2, 9, 3], [TS_COLUMN]),  # timestamps not the ts column's
])
def test_an_arrow_record_gives_back_its_rows_numbers_and_timestamps(seqs, ts, columns):
    source = _rows([4, 1, 9, 3, 7])
    data = encode_arrow_chunk(source, np.array([0, 1, 2, 3]), np.array(seqs), np.array(ts), "ts")
    stored = pa.ipc.open_stream(data).read_all()
    assert stored.column_names == ["key", "ts", "value", *columns]
    rows, got_seqs, got_ts = decode_arrow_chunk(data)
    assert rows.table.equals(source.table.slice(0, 4))  # types kept: value is int32
    assert (rows.fields, rows.stream, rows.source_component, rows.source_task) == (FIELDS, "s1", "events", 2)
    assert got_seqs.tolist() == seqs and got_ts.tolist() == ts
    assert [t.values for t in rows.values_of(np.array([1, 3]))] == [("k1", 1, 10), ("k0", 3, 30)]


def test_a_record_not_written_by_squall_is_refused():
    sink = pa.BufferOutputStream()
    table = pa.table({"x": [1]})
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    with pytest.raises(ValueError, match="no squall metadata"):
        decode_arrow_chunk(sink.getvalue().to_pybytes())


class Sums(BaseWindowedBolt):
    def execute(self, window):
        self.collector.emit([[t["value"] for t in window.get()], window.to_arrow().column("ts").to_pylist()])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("values", "stamps"))


def _task(store, emitted):
    bolt = Sums().with_window(Duration(20), Duration(5)).with_timestamp_field("ts").with_lag(Duration(4))
    task = make_task(bolt, TaskOptions(component="w", input_streams=[("events", "default")], store=store,
                                       watermark_at_batch_end=True))
    task.prepare({}, lambda stream, values: emitted.append(values))
    return task


def _batch(stamps: list[int], as_rows: bool) -> TaskInput:
    batch = TaskInput()
    table = pa.table({"key": [f"k{t}" for t in stamps], "ts": pa.array(stamps, pa.int64()),
                      "value": pa.array(stamps, pa.int64())})
    if as_rows:
        for row in zip(*(table.column(f).to_pylist() for f in FIELDS), strict=True):
            batch.append_row("events", 0, "default", FIELDS, row)
    else:
        batch.append_table("events", 0, "default", FIELDS, table)
    return batch


@pytest.mark.parametrize("seed", range(4))
def test_a_task_over_arrow_records_resumes_where_it_stopped(seed, backend):
    _resumes_where_it_stopped(seed, fresh(backend))  # memory://, Redis and HBase


@pytest.mark.parametrize("seed", range(4))
def test_a_block_cut_into_records_resumes_where_it_stopped(seed, monkeypatch):
    # Records of at most 2 rows: a batch's block is several records, dead rows are recorded in each, a record
    # goes with its last row, and the window holds a block stored whole from its records' tables.
    monkeypatch.setattr(arrow_chunk, "ARROW_CHUNK_ROWS", 2)
    records = _resumes_where_it_stopped(seed, MemoryBackend().namespace("w"))
    assert max(records) > 2


def _resumes_where_it_stopped(seed, store):
    """Run random batches straight, then as blocks committed to ``store`` with restarts; the records per commit."""
    rng = random.Random(seed)
    batches = [[max(0, 8 * b + rng.randint(-6, 6)) for _ in range(rng.randint(0, 9))] for b in range(25)]
    straight: list = []
    task = _task(None, straight)
    for stamps in batches:
        task.execute_batch(_batch(stamps, as_rows=True))
        task.end_batch()
    task.close()
    resumed: list = []
    records = []
    task = _task(store, resumed)
    for batch_id, stamps in enumerate(batches, start=1):
        task.execute_batch(_batch(stamps, as_rows=False))
        task.end_batch()
        assert task.commit(batch_id)
        assert not list(store.scan(CHUNK_PREFIX))  # no msgpack chunk: the rows were never built
        records.append(len(list(store.scan(ARROW_CHUNK_PREFIX))))
        if rng.random() < 0.4:
            task = _task(store, resumed)  # a restart: the window comes back from the a/ records
    task.close()
    assert resumed == straight and len(straight) > 10
    return records


def _commit_sizes(store):
    """Make ``store.commit`` record the size of every value it puts, by key; returns that dict."""
    sizes: dict[bytes, int] = {}
    commit = store.commit

    def spy(batch_id, puts, deletes=()):
        sizes.update({key: len(value) for key, value in puts.items()})
        return commit(batch_id, puts, deletes)

    store.commit = spy
    return sizes


def test_a_large_batch_is_stored_as_records_under_the_cell_limit():
    # 200,000 rows of 60 characters: 14 MB of Arrow, more than HBase's default 10 MB cell in one record.
    n = 200_000
    store, emitted = MemoryBackend().namespace("w"), []
    task = _task(store, emitted)
    sizes = _commit_sizes(store)
    table = pa.table({"key": pa.array(["x" * 60] * n), "ts": pa.array(np.full(n, 3), pa.int64()),
                      "value": pa.array(np.arange(n), pa.int64())})
    batch = TaskInput()
    batch.append_table("events", 0, "default", FIELDS, table)
    task.execute_batch(batch)
    task.end_batch()
    assert task.commit(1)
    records = {key: size for key, size in sizes.items() if key.startswith(ARROW_CHUNK_PREFIX)}
    assert len(records) >= 4 and max(records.values()) < 2 * arrow_chunk.ARROW_CHUNK_BYTES < 10 * 2**20
    [block] = task.manager.eviction.buffer.index.blocks.values()
    held = block.source.table  # held from the records it was stored as, one chunk each, not from the batch
    assert held.column("value").num_chunks == len(records) and held.equals(table)
    assert not _inside(held.column("key").chunks[0], table.column("key").chunks[0])
    task = _task(store, emitted)  # resumed from the records: one block each
    assert len(task.manager.eviction.buffer.index) == len(records)
    task.advance_watermark(30)
    task.close()
    values, stamps = emitted[0]
    assert values == list(range(n)) and set(stamps) == {3}


def _inside(piece, whole) -> bool:
    """Whether ``piece``'s values buffer lies inside ``whole``'s."""
    part, buffer = piece.buffers()[-1], whole.buffers()[-1]
    return buffer.address <= part.address and part.address + part.size <= buffer.address + buffer.size


def test_rows_of_very_different_sizes_are_cut_until_each_record_fits():
    sizes = [10] * 1000 + [100_000] + [10] * 1000  # one row as large as the others together, many times
    table = pa.table({"key": ["x" * size for size in sizes], "ts": pa.array(range(len(sizes)), pa.int64()),
                      "value": pa.array(range(len(sizes)), pa.int32())})
    source = TableRows(table, FIELDS, "s1", "events", 2)
    n = len(sizes)
    parts = encode_arrow_parts(source, np.arange(n), np.arange(100, 100 + n), np.arange(n), "ts", max_bytes=20_000)
    assert len(parts) > 5
    assert all(len(data) <= 40_000 or count == 1 for _, count, data in parts)
    assert [first for first, _, _ in parts] == (100 + np.cumsum([0] + [c for _, c, _ in parts[:-1]])).tolist()
    decoded = [decode_arrow_chunk(data) for _, _, data in parts]
    assert pa.concat_tables([rows.table for rows, _, _ in decoded]).equals(table)
    assert np.concatenate([seqs for _, seqs, _ in decoded]).tolist() == list(range(100, 100 + n))


def test_the_window_holds_its_own_copy_of_what_memory_stores():
    # memory:// keeps a checksummed copy of every value: the bytes the window holds its rows from are not it.
    backend = MemoryBackend()
    store, emitted = backend.namespace("w"), []
    task = _task(store, emitted)
    task.execute_batch(_batch([1, 2, 3], as_rows=False))
    task.end_batch()
    assert task.commit(1)
    [block] = task.manager.eviction.buffer.index.blocks.values()
    [stored] = [v for k, v in backend._store.spaces["w"].data.items() if k.startswith(ARROW_CHUNK_PREFIX)]
    held = block.source.table.column("value").chunks[0].buffers()[-1]
    sealed = pa.py_buffer(stored)
    assert not sealed.address <= held.address < sealed.address + sealed.size


def test_a_block_cut_down_before_its_first_commit_stores_its_live_rows():
    # A Count(100) window over a large batch: evaluated (and its block cut down to a copy of its 100 live rows)
    # before the batch commits. The commit stores those 100 rows; a restart goes on as a task that never stopped.
    def task_of(store, emitted):
        options = TaskOptions(component="w", input_streams=(("events", "default"),), store=store)
        task = make_task(WindowIds("value").with_window(Count(100), Duration(10)), options)
        task.prepare({}, lambda stream, values: emitted.append(values[0]))
        return task

    n = 300_000
    big = pa.table({"key": pa.array(["x" * 20] * n), "ts": pa.array(np.zeros(n), pa.int64()),
                    "value": pa.array(np.arange(n), pa.int64())})
    runs = []
    for restart in (False, True):
        store, emitted = MemoryBackend().namespace("w"), []
        task = task_of(store, emitted)
        batch = TaskInput()
        batch.append_table("events", 0, "default", FIELDS, big)
        task.execute_batch(batch)
        task.end_batch()
        task.advance_to(10)
        [block] = task.manager.eviction.buffer.index.blocks.values()
        assert block.source.table.num_rows == 100  # cut down
        assert task.commit(1)
        stored = [decode_arrow_chunk(value) for _, value in store.scan(ARROW_CHUNK_PREFIX)]
        assert [seqs.tolist() for _, seqs, _ in stored] == [list(range(n - 100, n))]
        if restart:
            task = task_of(store, emitted)
        task.execute_batch(_batch([1, 2, 3], as_rows=False))
        task.end_batch()
        task.advance_to(20)
        runs.append(emitted)
    assert runs[0] == runs[1] and runs[0][-1] == [*range(n - 97, n), 1, 2, 3]


def test_dead_rows_are_recorded_and_a_record_goes_with_its_last_row():
    store, emitted = MemoryBackend().namespace("w"), []
    task = _task(store, emitted)
    kinds = []
    for batch_id, stamps in enumerate(([1, 2, 20], [30], [60], [90]), start=1):
        task.execute_batch(_batch(stamps, as_rows=False))
        task.end_batch()
        assert task.commit(batch_id)
        keys = [key[:2] for key, _ in store.scan()]
        kinds.append((keys.count(b"a/"), keys.count(DEAD_PREFIX)))
    # 2: ts 1 and 2 expired, recorded dead in the first record (which keeps ts 20); 3: ts 20 and 30 expired,
    # their records go, the dead list with them; 4: ts 60 expired.
    assert kinds == [(1, 0), (2, 1), (1, 0), (1, 0)]
    task.close()
    assert [stamps for _, stamps in emitted][-1] == [90]


def test_built_tuples_around_a_block_resume_in_their_places():
    # Batches of rows, an Arrow block, rows again: the msgpack chunks' arrival numbers surround the a/ record's.
    batches = [_batch([1, 12], as_rows=True), _batch([3, 2, 14, 5], as_rows=False), _batch([16, 17], as_rows=True)]
    runs = []
    for restart in (False, True):
        store, emitted = MemoryBackend().namespace("w"), []
        task = _task(store, emitted)
        for batch_id, batch in enumerate(batches, start=1):
            task.execute_batch(batch)
            task.end_batch()
            assert task.commit(batch_id)
        if restart:
            assert {key[:2] for key, _ in store.scan()} >= {b"a/", CHUNK_PREFIX}
            task = _task(store, emitted)
        task.execute_batch(_batch([40], as_rows=False))
        task.end_batch()
        task.close()
        runs.append(emitted)
    assert runs[0] == runs[1] and [12, 14, 16, 17] in [values for values, _ in runs[0]]
