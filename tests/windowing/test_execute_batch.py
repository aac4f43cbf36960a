"""``execute_batch`` gives exactly what ``execute`` of each tuple gives.

Copies of a task see the same operations; one gets each micro-batch tuple by
tuple, the others as one ``TaskInput`` of rows, of Arrow tables (held as arrays
beside the blocks, stored as Arrow chunks), or of the two in turn. Everything they
do is logged in order (windows with their new and expired tuples and bounds,
emissions including the late stream) together with their state
after every step (system state, held and pending-expired events, the late count)
and, for stored tasks, the store after every commit (the tuples it holds, decoded,
and every other record). The logs must be equal, for
event-time and processing-time windows, count and duration lengths and slides,
several input streams, lag and late streams, plain, persistent, paged and
message-id tasks, Storm-exact windows (``with_storm_semantics``), commits and
restarts from the store mid-stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bolts import Fields, TaskOptions, Tuple, TupleError, make_task
from bolts.codecs.window_state_codec import META_KEY, Chunks, Schemas, unpack
from bolts.task_input import TaskInput
from state_backends.memory import MemoryBackend
from tests.bolts.test_stateful_recovery import RunningTotal
from tests.bolts_for_tests import WindowIds
from tests.windowing.helpers import unit
from windowing import Count, Duration

STREAMS = [("s", "a"), ("s", "b"), ("t", "a")]

FIELDS = Fields("id", "ts")


def _bolt(cfg):
    bolt = (WindowIds() if cfg["mode"] in ("plain", "persisted") else RunningTotal())
    bolt = bolt.with_window(unit(*cfg["length"]), unit(*cfg["slide"]))
    if cfg["event_time"]:
        bolt = bolt.with_lag(Duration(cfg["lag"])).with_watermark_interval(Duration(cfg["interval"]))
        if cfg["extractor"]:
            bolt = bolt.with_timestamp_extractor(_ts_of)
        else:
            bolt = bolt.with_timestamp_field("ts")
        if cfg["late_stream"]:
            bolt = bolt.with_late_tuple_stream("late")
    if cfg.get("storm") and cfg["mode"] != "paged":  # Storm-exact event-time windows refuse paging
        bolt = bolt.with_storm_semantics()
    if cfg["mode"] == "paged":
        return bolt.with_persistence().with_max_events_in_memory(cfg["in_memory"])
    if cfg["mode"] == "persistent":
        return bolt.with_persistence()
    return bolt.with_message_id_field("id") if cfg["mode"] == "message_id" else bolt


def _ts_of(tup):
    return tup["ts"]


def _ids(tuples):
    return None if tuples is None else [t["id"] for t in tuples]


def _plain(values):
    """Emitted values with tuples (the late stream's) replaced by their ids."""
    return [("tuple", v["id"]) if isinstance(v, Tuple) else v for v in values]


@dataclass
class Run:
    """One task driven tuple by tuple or batch by batch, and a log of everything it did."""

    cfg: dict[str, Any]
    batched: bool | str  # False: tuple by tuple; True: one TaskInput of rows; "blocks": of Arrow tables;
    # "mixed": Arrow tables and rows in turn (a window's tuples from both, stored as a/ and c/ chunks)
    log: list[Any] = field(default_factory=list)
    now: int = 0
    committed_now: int = 0
    batch_id: int = 0
    batches: int = 0

    def __post_init__(self) -> None:
        stored = self.cfg["mode"] != "plain"
        self.store = MemoryBackend().namespace("task") if stored else None
        self.task = self._build()

    def _build(self):
        task = make_task(_bolt(self.cfg), TaskOptions(component="w", input_streams=STREAMS,
                                                      start_time_ms=self.committed_now, observer=self._window,
                                                      store=self.store, watermark_at_batch_end=self.cfg["batch_end"]))
        task.prepare({}, self._emit)
        return task

    def _window(self, window):
        if self.batched in ("blocks", "mixed"):
            # The window's columns, read before any tuple is built, hold the same rows as get().
            arrow_ids = window.to_arrow().column("id").to_pylist() if len(window) else []
            assert arrow_ids == _ids(window.get())
        tracked = window.tracks_changes
        new, expired = (window.get_new(), window.get_expired()) if tracked else (None, None)
        self.log.append(("window", _ids(window.get()), _ids(new), _ids(expired),
                         window.start_timestamp, window.end_timestamp))
        if self.batched == "blocks":
            window.read_values = False  # the log read the tuples; keep the task on its columnar path all the same

    def _emit(self, stream, values):
        self.log.append(("emit", stream, _plain(values)))

    def deliver(self, rows):
        batch = TaskInput()
        for stream, tid, ts in [(STREAMS[s], tid, ts) for s, tid, ts in rows]:
            batch.append_row(stream[0], 0, stream[1], FIELDS, [tid, ts])
        tuples = batch.tuples()
        self.batches += 1
        as_blocks = self.batched == "blocks" or (self.batched == "mixed" and self.batches % 2 == 1)
        if as_blocks:
            self.task.execute_batch(_as_blocks(rows))
        elif self.batched:
            self.task.execute_batch(batch)
        else:
            for tup in tuples:
                self.task.execute(tup)
        self.task.end_batch()

    def step(self, op):
        kind, arg = op
        if kind == "batch":
            self.deliver(arg)
        elif kind == "advance":
            self.now += arg
            self.task.advance_to(self.now)
        elif kind == "watermark" and self.cfg["event_time"]:
            self.task.advance_watermark(self.now + arg)
        elif kind == "commit" and self.store is not None:
            self.batch_id += 1
            self.log.append(("commit", self.task.commit(self.batch_id)))
            self.log.append(("store", _stored(self.store)))
            self.committed_now = self.now
        elif kind == "restart" and self.store is not None:
            self.now = self.committed_now
            self.task = self._build()
        self.log.append(("state", self._state()))

    def _state(self):
        task = self.task
        events = [(e.seq, e.ts, e.value["id"]) for e in task.manager.held()]
        expired = [e.seq for e in task.manager.pending_expired()]
        return task.state(), events, expired, task.late_tuples, task.watermark

    def close(self):
        self.task.close()
        self.log.append(("closed", self._state()))


config = st.fixed_dictionaries(
    {
        "length": st.tuples(st.sampled_from(["count", "time"]), st.integers(1, 30)),
        "slide": st.tuples(st.sampled_from(["count", "time"]), st.integers(1, 20)),
        "event_time": st.booleans(),
        "lag": st.integers(0, 10),
        "interval": st.sampled_from([1, 5, 50]),
        "extractor": st.booleans(),
        "late_stream": st.booleans(),
        "batch_end": st.booleans(),
        "mode": st.sampled_from(["plain", "persisted", "persistent", "paged", "message_id"]),
        "in_memory": st.integers(1, 24),
        "storm": st.booleans(),
    }
)
# Rows are (input stream, timestamp offset from the current time): disorder both ways, late tuples, ties.
rows = st.lists(st.tuples(st.integers(0, len(STREAMS) - 1), st.integers(-30, 25)), max_size=40)
between = st.one_of(
    st.tuples(st.just("advance"), st.integers(0, 25)),
    st.tuples(st.just("watermark"), st.integers(-10, 10)),
    st.tuples(st.sampled_from(["commit", "restart"]), st.none()),
)
# A stream: batches, each followed by time moving, an upstream watermark, a commit or a restart.
stream = st.lists(st.tuples(rows, st.lists(between, max_size=3)), min_size=2, max_size=12).map(
    lambda steps: [op for batch, after in steps for op in [("batch", batch), *after]]
)


def _with_ids(ops, now=0):
    """Give every row a message id (increasing in delivery order) and an absolute timestamp."""
    out, next_id = [], 1
    for kind, arg in ops:
        if kind == "advance":
            now += arg
        if kind == "batch":
            arg = [(s, next_id + i, now + offset) for i, (s, offset) in enumerate(arg)]
            next_id += len(arg)
        out.append((kind, arg))
    return out


def _stored(store):
    """The store as a restarted task reads it: the window's stored tuples decoded, every other record as it is.

    Tuples a spout delivered as Arrow blocks are stored as Arrow chunks (``a/``), others as msgpack chunks
    (``c/``): the two paths must store the same tuples (arrival number, timestamp, stream, values) and the
    same everything else, but not the same bytes. The schema numbering of msgpack chunks is left out of
    ``meta`` for the same reason.
    """
    meta = store.get(META_KEY)
    schemas = Schemas(unpack(meta)["schemas"]) if meta is not None else Schemas()
    chunks = Chunks()
    tuples = [(e.seq, e.ts, e.value.source_component, e.value.stream, tuple(e.value.values))
              for e in chunks.load(store, schemas)]
    for source, positions, seqs, ts in chunks.loaded:
        rows = np.arange(len(seqs)) if positions is None else positions
        tuples += [(seq, stamp, t.source_component, t.stream, tuple(t.values))
                   for seq, stamp, t in zip(seqs.tolist(), ts.tolist(), source.values_of(rows), strict=True)]
    others = [(key, value) for key, value in store.scan() if key[:2] not in (b"a/", b"c/", b"d/", b"e/")]
    if meta is not None:
        others.remove((META_KEY, meta))
        others.append((META_KEY, {k: v for k, v in unpack(meta).items() if k != "schemas"}))
    return sorted(tuples), others


def _as_blocks(rows):
    """A batch as a spout delivers it: one Arrow table per run of rows of one stream."""
    batch = TaskInput()
    for s, run in groupby(rows, key=lambda row: row[0]):
        ids, stamps = zip(*[(tid, ts) for _, tid, ts in run], strict=True)
        table = pa.table({"id": pa.array(ids, pa.int64()), "ts": pa.array(stamps, pa.int64())})
        batch.append_table(STREAMS[s][0], 0, STREAMS[s][1], FIELDS, table)
    return batch


def run_all(cfg, ops):
    runs = [Run(cfg, batched=False), Run(cfg, batched=True), Run(cfg, batched="blocks"), Run(cfg, batched="mixed")]
    for op in _with_ids(ops):
        for run in runs:
            run.step(op)
    for run in runs:
        run.close()
    return runs


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=config, ops=stream)
def test_a_batch_gives_what_its_tuples_give_one_by_one(cfg, ops):
    one_by_one, batched, blocks, mixed = run_all(cfg, ops)
    assert batched.log == one_by_one.log
    assert blocks.log == one_by_one.log
    assert mixed.log == one_by_one.log


def test_the_batch_path_is_taken_except_for_a_processing_time_count_slide():
    def path(bolt):
        return make_task(bolt, TaskOptions(component="w", input_streams=STREAMS))._add_batch.__name__

    event_time = "_add_event_time_batch"
    assert path(WindowIds().with_window(Duration(10), Duration(5)).with_timestamp_field("ts")) == event_time
    assert path(WindowIds().with_window(Count(10), Count(5)).with_timestamp_field("ts")) == event_time
    assert path(WindowIds().with_window(Count(10), Duration(5))) == "_add_processing_time_batch"
    assert path(WindowIds().with_window(Duration(10), Count(5))) == "_execute_each"


@pytest.mark.parametrize("bad", [None, "12", 1.5, True])
@pytest.mark.parametrize("extractor", [False, True])
def test_a_bad_timestamp_fails_at_its_tuple_after_the_ones_before_it(bad, extractor):
    cfg = {"length": ("time", 10), "slide": ("time", 5), "event_time": True, "lag": 0, "interval": 5,
           "extractor": extractor, "late_stream": True, "batch_end": True, "mode": "persistent", "in_memory": 4}
    logs, errors = [], []
    for batched in (False, True):
        run = Run(cfg, batched)
        run.step(("batch", [(0, 1, 30), (1, 2, 31), (2, 3, 32)]))
        tuples = [Tuple([4, 5], FIELDS, "a", "s"), Tuple([5, 40], FIELDS, "b", "s"), Tuple([6, bad], FIELDS, "a", "t"),
                  Tuple([7, 50], FIELDS, "a", "t")]
        with pytest.raises(TupleError) as caught:
            if batched:
                run.task.execute_batch(TaskInput.of(tuples))
            else:
                for tup in tuples:
                    run.task.execute(tup)
        errors.append(str(caught.value))
        run.step(("commit", None))
        logs.append(run.log)
    assert "Tuple(t:a, {'id': 6, 'ts'" in errors[0]
    assert errors[0] == errors[1]
    assert logs[0] == logs[1]


def test_a_missing_timestamp_field_is_named_as_one_by_one():
    bolt = WindowIds().with_window(Duration(10), Duration(5)).with_timestamp_field("ts")
    messages = []
    for batched in (False, True):
        task = make_task(bolt, TaskOptions(component="w", input_streams=STREAMS))
        task.prepare({}, lambda stream, values: None)
        tuples = [Tuple([1, 5], FIELDS, "a", "s"), Tuple([2], Fields("id"), "b", "s")]
        with pytest.raises(TupleError) as caught:
            task.execute_batch(TaskInput.of(tuples)) if batched else [task.execute(t) for t in tuples]
        messages.append(str(caught.value))
        assert [e.value["id"] for e in task.manager.held()] == [1]
    assert messages[0] == messages[1]
    assert "has no field 'ts'; its fields are: id" in messages[0]


def test_integral_timestamps_are_read_as_ints():
    bolt = WindowIds().with_window(Duration(10), Duration(5)).with_timestamp_field("ts")
    task = make_task(bolt, TaskOptions(component="w", input_streams=STREAMS))
    task.prepare({}, lambda stream, values: None)
    task.execute_batch(TaskInput.of([Tuple([1, np.int64(7)], FIELDS, "a", "s"), Tuple([2, 3], FIELDS, "a", "s")]))
    assert [(e.ts, type(e.ts)) for e in task.manager.held()] == [(7, int), (3, int)]
