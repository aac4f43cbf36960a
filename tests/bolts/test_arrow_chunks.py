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

from bolts import BaseWindowedBolt, Fields, make_task
from bolts.codecs.arrow_chunk import SEQ_COLUMN, TS_COLUMN, decode_arrow_chunk, encode_arrow_chunk
from bolts.codecs.window_state_codec import CHUNK_PREFIX, DEAD_PREFIX
from bolts.storm.table_rows import TableRows
from bolts.task_input import TaskInput
from state_backends.memory import MemoryBackend
from tests.service_fixtures import fresh_namespace as fresh
from windowing import Duration

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
    task = make_task(bolt, component="w", input_streams=[("events", "default")], store=store,
                     persist_windows=store is not None, watermark_at_batch_end=True)
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
    rng = random.Random(seed)
    batches = [[max(0, 8 * b + rng.randint(-6, 6)) for _ in range(rng.randint(0, 9))] for b in range(25)]
    straight: list = []
    task = _task(None, straight)
    for stamps in batches:
        task.execute_batch(_batch(stamps, as_rows=True))
        task.end_batch()
    task.close()
    store, resumed = fresh(backend), []  # memory://, Redis and HBase
    task = _task(store, resumed)
    for batch_id, stamps in enumerate(batches, start=1):
        task.execute_batch(_batch(stamps, as_rows=False))
        task.end_batch()
        assert task.commit(batch_id)
        assert not list(store.scan(CHUNK_PREFIX))  # no msgpack chunk: the rows were never built
        if rng.random() < 0.4:
            task = _task(store, resumed)  # a restart: the window comes back from the a/ records
    task.close()
    assert resumed == straight and len(straight) > 10


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
