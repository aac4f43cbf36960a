"""Crash and restart a stateful windowed bolt anywhere: the windows and outputs equal a run without a crash."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bolts import BaseStatefulWindowedBolt, Fields, TaskOptions, Tuple, TupleError, make_task
from bolts.codecs.window_state_codec import META_KEY, STATE_VERSION, pack, unpack
from state_backends import open_backend
from tests.bolts_for_tests import WindowIds
from tests.service_fixtures import fresh_namespace as fresh
from tests.windowing.helpers import unit
from topologies.testing import BoltHarness
from windowing import Count, Duration


class RunningTotal(BaseStatefulWindowedBolt):
    """Emits the window's ids and a running total kept in user state."""

    def execute(self, window):
        new = window.get_new() if window.tracks_changes else window.get()
        total = self.state.get("total", 0) + sum(t["id"] for t in new)
        self.state.put("total", total)
        self.collector.emit([[t["id"] for t in window.get()], total])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("ids", "total"))


config = st.fixed_dictionaries(
    {
        "length": st.tuples(st.sampled_from(["count", "time"]), st.integers(1, 30)),
        "slide": st.tuples(st.sampled_from(["count", "time"]), st.integers(1, 20)),
        "event_time": st.booleans(),
        "lag": st.integers(0, 10),
        "mode": st.sampled_from(["persistence", "message_id", "paged"]),
        "in_memory": st.integers(1, 24),
        "storm": st.booleans(),
    }
)
batch = st.lists(st.tuples(st.sampled_from(["feed", "advance"]), st.integers(-3, 25)), max_size=12)


def _bolt(cfg):
    bolt = RunningTotal().with_window(unit(*cfg["length"]), unit(*cfg["slide"]))
    if cfg["event_time"]:
        bolt = bolt.with_timestamp_field("ts").with_lag(Duration(cfg["lag"])).with_watermark_interval(Duration(5))
    if cfg["storm"] and cfg["mode"] != "paged":  # Storm-exact event-time windows refuse paging
        bolt = bolt.with_storm_semantics()
    if cfg["mode"] == "paged":  # pages of 1 to 3 tuples, spilled after every commit beyond the bound
        return bolt.with_persistence().with_max_events_in_memory(cfg["in_memory"])
    return bolt.with_persistence() if cfg["mode"] == "persistence" else bolt.with_message_id_field("id")


def _run_batch(h, ops, counter):
    for kind, a in ops:
        if kind == "feed":
            counter[0] += 1
            h.feed({"id": counter[0], "ts": h.now + a})
        else:
            h.advance(abs(a))


def _ids(tuples):
    return None if tuples is None else [t["id"] for t in tuples]


def _summary(h):
    windows = [(_ids(w.tuples), _ids(w.new), _ids(w.expired), w.start_timestamp, w.end_timestamp)
               for w in h.windows]
    return windows, h.emitted, [t["id"] for t in h.late]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    cfg=config,
    batches=st.lists(batch, min_size=1, max_size=8),
    crash=st.tuples(st.integers(0, 7), st.integers(0, 12)),
)
def test_crash_and_restart_anywhere_gives_the_same_windows_and_outputs(backend, cfg, batches, crash):
    straight = BoltHarness(_bolt(cfg), fields=("id", "ts"), state=fresh(backend))
    n = [0]
    for ops in batches:
        _run_batch(straight, ops, n)
        straight.commit()
    straight.close()

    crashed = BoltHarness(_bolt(cfg), fields=("id", "ts"), state=fresh(backend))
    crash_batch, crash_at = crash[0] % len(batches), crash[1]
    n = [0]
    for i, ops in enumerate(batches):
        if i == crash_batch:
            before = n[0]
            _run_batch(crashed, ops[:crash_at], n)  # part of the batch, then the process dies
            crashed.restart()
            n[0] = before
            _run_batch(crashed, ops, n)  # Spark runs the failed batch again
        else:
            _run_batch(crashed, ops, n)
        crashed.commit()
    crashed.close()

    assert _summary(crashed) == _summary(straight)


def test_init_state_receives_the_last_committed_user_state(backend):
    store = fresh(backend)
    h = BoltHarness(RunningTotal().with_tumbling_window(Count(2)).with_persistence(), fields=("id", "ts"), state=store)
    for i in (1, 2, 3, 4):
        h.feed({"id": i, "ts": 0})
    h.commit()
    h.feed({"id": 5, "ts": 0})
    h.feed({"id": 6, "ts": 0})  # fires with total 21, but is not committed
    h.restart()
    assert h.bolt.state.get("total") == 10
    assert dict(h.bolt.state) == {"total": 10}
    assert h.emitted == [("default", [[1, 2], 3]), ("default", [[3, 4], 10])]


def test_a_stateful_bolt_needs_a_store_and_a_recovery_mode():
    store = open_backend("memory://").namespace("n")
    with pytest.raises(ValueError, match="needs a state backend: pass state="):
        make_task(RunningTotal().with_tumbling_window(Count(2)).with_persistence(), TaskOptions("b"))
    with pytest.raises(ValueError, match=r"call with_message_id_field\(name\) or with_persistence\(\)"):
        BoltHarness(RunningTotal().with_tumbling_window(Count(2)), fields=("id", "ts"), state=store)
    both = RunningTotal().with_tumbling_window(Count(2)).with_persistence().with_message_id_field("id")
    with pytest.raises(ValueError, match="persistent windows need no message ids"):
        BoltHarness(both, fields=("id", "ts"), state=store)


def test_a_commit_right_after_a_restart_keeps_the_window(backend):
    bolt = RunningTotal().with_window(Count(3), Count(1)).with_message_id_field("id")
    store = fresh(backend)
    h = BoltHarness(bolt, fields=("id", "ts"), state=store)
    for i in (1, 2):
        h.feed({"id": i, "ts": 0})
    h.commit()
    h.restart()  # the window's tuples come back from the store
    h.commit()
    h.restart()
    h.feed({"id": 3, "ts": 0})
    assert h.windows[-1].tuples and [t["id"] for t in h.windows[-1].tuples] == [1, 2, 3]


def test_a_message_id_window_resumes_from_its_stored_tuples_in_another_harness():
    """As on Spark: the window's tuples are in the store, so a new task needs no source to replay them."""
    bolt = RunningTotal().with_window(Count(3), Count(1)).with_message_id_field("id")
    store = open_backend("memory://").namespace("n")
    h = BoltHarness(bolt, fields=("id", "ts"), state=store)
    for i in (1, 2):
        h.feed({"id": i, "ts": 0})
    h.commit()
    fresh = BoltHarness(RunningTotal().with_window(Count(3), Count(1)).with_message_id_field("id"),
                        fields=("id", "ts"), state=store)
    fresh.feed({"id": 3, "ts": 0})
    assert [t["id"] for t in fresh.windows[-1].tuples] == [1, 2, 3]


def test_a_message_id_that_is_not_an_int_is_refused_before_it_is_held():
    bolt = RunningTotal().with_window(Count(3), Count(1)).with_message_id_field("id")
    h = BoltHarness(bolt, fields=("id", "ts"))
    with pytest.raises(TupleError, match="with_message_id_field: 'id' must be an int; got 'x'"):
        h.feed({"id": "x", "ts": 0})
    assert h.windows == []


def _ids_task(store):
    """A task of a plain windowed bolt (``Count(3)`` sliding by 1) over ``store``, and the list it emits to."""
    options = TaskOptions(component="b", input_streams=(("s", "default"),), store=store)
    task = make_task(WindowIds().with_window(Count(3), Count(1)), options)
    out = []
    task.prepare({}, lambda stream, values: out.append(values))
    return task, out


def test_a_plain_windowed_bolt_persists_its_windows_when_asked(backend):
    store = fresh(backend)
    task, _ = _ids_task(store)
    for i in (1, 2):
        task.execute(Tuple([i, 0], Fields("id", "ts"), "default", "s"))
    task.commit(1)
    resumed, out = _ids_task(store)  # another process picks the task up from the store
    resumed.execute(Tuple([3, 0], Fields("id", "ts"), "default", "s"))
    assert out == [[[1, 2, 3]]]


def test_a_store_of_a_newer_format_is_refused_and_one_without_a_version_is_read():
    store = open_backend("memory://").namespace("versions")
    task, _ = _ids_task(store)
    for i in (1, 2):
        task.execute(Tuple([i, 0], Fields("id", "ts"), "default", "s"))
    assert task.commit(1)
    meta = unpack(store.get(META_KEY))
    assert meta["version"] == STATE_VERSION == 2
    store.commit(2, {META_KEY: pack({**meta, "version": STATE_VERSION + 1})})  # as a newer squall would write it
    with pytest.raises(ValueError, match=r"namespace 'versions' in memory://: the window state has format "
                                         r"version 3, newer than this squall reads \(version 2 at most\)"):
        _ids_task(store)
    del meta["version"]  # as squall wrote it before versions: still read
    store.commit(3, {META_KEY: pack(meta)})
    resumed, out = _ids_task(store)
    resumed.execute(Tuple([3, 0], Fields("id", "ts"), "default", "s"))
    assert out == [[[1, 2, 3]]]


def test_the_harness_takes_a_backend_url():
    h = BoltHarness(RunningTotal().with_tumbling_window(Count(2)).with_persistence(), fields=("id", "ts"),
                    state="memory://harness-url-test")
    h.feed({"id": 1, "ts": 0})
    h.commit()
    h.restart()
    h.feed({"id": 2, "ts": 0})
    assert h.emitted == [("default", [[1, 2], 3])]


class Counter(BaseStatefulWindowedBolt):
    def execute(self, window):
        self.collector.emit([sum(1 for _ in window.iter()), sum(t["id"] for t in window.iter())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("n", "total"))


@pytest.mark.parametrize("event_time", [False, True])
def test_a_bounded_persistent_window_keeps_at_most_n_tuples_in_memory(backend, event_time):
    bolt = Counter().with_window(Count(200), Count(50)) if not event_time else \
        Counter().with_window(Duration(200), Count(50)).with_timestamp_field("ts")
    bolt = bolt.with_persistence().with_max_events_in_memory(40)
    h = BoltHarness(bolt, fields=("id", "ts"), state=fresh(backend))
    for i in range(1, 301):
        h.feed({"id": i, "ts": i})
        if i % 10 == 0:
            h.commit()
            assert h.task.manager.eviction.buffer.resident <= 40 + h.task.manager.eviction.buffer.page_size
    h.advance(1000)
    # The last window holds the last 200 tuples (count), or (100, 300] (event time: one watermark, 300,
    # fires a window at every 50th tuple); either way read back from the backend page by page.
    assert [values for _, values in h.emitted][-1] == [200, sum(range(101, 301))]
    assert h.windows[-1].new is None and h.windows[-1].expired is None
    h.restart()
    h.feed({"id": 301, "ts": 301})
    assert len(h.task.manager.held()) >= 200


def test_a_bounded_window_refuses_get_new_and_get_expired(backend):
    class Asks(Counter):
        def execute(self, window):
            window.get_expired()

    bolt = Asks().with_tumbling_window(Count(2)).with_persistence().with_max_events_in_memory(10)
    h = BoltHarness(bolt, fields=("id", "ts"), state=fresh(backend))
    h.feed({"id": 1, "ts": 0})
    with pytest.raises(TypeError, match="get_expired: not available for a window bounded by with_max_events_in_memory"):
        h.feed({"id": 2, "ts": 0})
