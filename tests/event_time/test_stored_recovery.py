"""Windowed aggregations with their state in a backend: crash anywhere, restart from the last commit, same panes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bolts.aggregate.store import BUCKET_PREFIX, WINDOW_PREFIX
from bolts.aggregate.windowed_aggregate_bolt import WindowedAggregateBolt
from bolts.aggregate.windowed_join_bolt import WindowedJoinBolt
from bolts.codecs.value_codec import pack_value, unpack_value
from state_backends import open_backend
from tests.event_time.helpers import FIELDS, replay
from tests.service_fixtures import fresh_namespace
from topologies.testing import BoltHarness
from windowing import Duration, aggregators
from windowing.accumulation import AccumulationMode
from windowing.assigners import FixedWindows, GlobalWindows, Sessions, SlidingWindows, TimeDifferenceWindows
from windowing.triggers import AfterCount, AfterProcessingTime, AfterWatermark, DefaultTrigger, Repeatedly

ASSIGNERS = {
    "fixed": FixedWindows(Duration(20)),
    "sliding": SlidingWindows(Duration(30), Duration(10)),
    "sessions": Sessions(Duration(15)),
    "time_difference": TimeDifferenceWindows(Duration(10), Duration(25)),
    "global": GlobalWindows(),
}
TRIGGERS = {
    "default": DefaultTrigger(),
    "early_late": AfterWatermark(early=AfterProcessingTime(Duration(400)), late=AfterCount(1)),
    "every_2": Repeatedly(AfterCount(2)),
    "processing_time": Repeatedly(AfterProcessingTime(Duration(250))),
}
AGGREGATORS = {
    "sum": lambda: aggregators.sum("v"),
    "mean": lambda: aggregators.mean("v"),
    "collect": lambda: aggregators.collect("v"),
    "top_n": lambda: aggregators.top_n("v", 2),
}

config = st.fixed_dictionaries(
    {
        "assigner": st.sampled_from(sorted(ASSIGNERS)),
        "trigger": st.sampled_from(sorted(TRIGGERS)),
        "mode": st.sampled_from(list(AccumulationMode)),
        "aggregator": st.sampled_from(sorted(AGGREGATORS)),
        "keyed": st.booleans(),
        "lateness": st.integers(0, 40),
        # Holds and the closing behaviour (issue 14) are window state too: they must survive a restart.
        "combiner": st.sampled_from(["end_of_window", "earliest", "latest"]),
        "closing": st.sampled_from(["fire_if_non_empty", "fire_always"]),
        "on_time": st.sampled_from(["fire_always", "fire_if_non_empty"]),
    }
)
step = st.one_of(
    st.tuples(
        st.just("batch"),
        st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 120), st.integers(1, 5)), min_size=1, max_size=4),
    ),
    st.tuples(st.just("advance"), st.integers(1, 500)),
    st.tuples(st.just("watermark"), st.integers(0, 140)),
)


def build(cfg, state):
    bolt = WindowedAggregateBolt(AGGREGATORS[cfg["aggregator"]](), key_fields=("key",) if cfg["keyed"] else None)
    bolt = (
        bolt.with_windows(ASSIGNERS[cfg["assigner"]])
        .with_trigger(TRIGGERS[cfg["trigger"]])
        .with_accumulation_mode(cfg["mode"])
        .with_timestamp_field("ts")
        .with_lag(Duration(5))
        .with_watermark_interval(Duration(200))
        .with_late_tuple_stream("late")
        .with_timestamp_combiner(cfg.get("combiner", "end_of_window"))
        .with_closing_behavior(cfg.get("closing", "fire_if_non_empty"))
        .with_on_time_behavior(cfg.get("on_time", "fire_always"))
    )
    if cfg["assigner"] != "time_difference":
        bolt = bolt.with_allowed_lateness(Duration(cfg["lateness"]))
    return BoltHarness(bolt, fields=FIELDS, state=state)


def plain(snapshot):
    """A snapshot as it reads back from the store (tuples become lists)."""
    return unpack_value(pack_value(snapshot))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    cfg=config,
    batches=st.lists(st.lists(step, max_size=5), min_size=1, max_size=6),
    crash=st.tuples(st.integers(0, 5), st.integers(0, 5)),
)
def test_crash_and_restart_anywhere_gives_the_same_panes_and_state(backend, cfg, batches, crash):
    straight = build(cfg, fresh_namespace(backend))
    committed = [plain(straight.task.snapshot())]
    for steps in batches:
        replay(straight, steps)
        straight.commit()
        committed.append(plain(straight.task.snapshot()))
    straight.close()

    crashed = build(cfg, fresh_namespace(backend))
    crash_batch, crash_at = crash[0] % len(batches), crash[1]
    for i, steps in enumerate(batches):
        if i == crash_batch:
            replay(crashed, steps[:crash_at])  # part of the batch, then the process dies
            crashed.restart()
            assert plain(crashed.task.snapshot()) == committed[i]  # exactly the state of the last commit
            replay(crashed, steps)  # Spark runs the failed batch again
        else:
            replay(crashed, steps)
        crashed.commit()
    crashed.close()

    assert crashed.emitted == straight.emitted
    assert crashed.late == straight.late


class CountingStore:
    """A namespace that records the keys each commit writes and deletes."""

    def __init__(self, namespace):
        self.namespace = namespace
        self.commits = []

    def get(self, key):
        return self.namespace.get(key)

    def scan(self, prefix):
        return self.namespace.scan(prefix)

    def commit(self, batch_id, puts, deletes):
        self.commits.append((sorted(puts), sorted(deletes)))
        return self.namespace.commit(batch_id, puts, deletes)


def test_a_commit_writes_what_the_batch_changed_not_the_whole_state():
    store = CountingStore(open_backend("memory://").namespace("n"))
    bolt = (
        WindowedAggregateBolt(aggregators.sum("v"), key_fields=("key",))
        .with_windows(FixedWindows(Duration(100)))
        .with_timestamp_field("ts")
    )
    h = BoltHarness(bolt, fields=FIELDS, state=store)
    h.feed_batch([[f"k{i}", 5, 1] for i in range(1000)])  # 1,000 windows
    h.commit()
    assert sum(k.startswith(WINDOW_PREFIX) for k in store.commits[-1][0]) == 1000
    h.feed_batch([["k7", 6, 1], ["k8", 7, 1]])
    h.commit()
    puts, deletes = store.commits[-1]
    assert [k for k in puts if k.startswith(WINDOW_PREFIX)] and len(puts) == 3  # two windows and the meta
    assert deletes == []
    h.advance_watermark(100)  # every window fires and is collected
    h.commit()
    puts, deletes = store.commits[-1]
    assert len(puts) == 1 and len(deletes) == 1000
    assert list(store.scan(WINDOW_PREFIX)) == []


def test_time_difference_buckets_are_committed_per_key_and_dropped_when_past_the_grace():
    store = open_backend("memory://").namespace("n")
    bolt = (
        WindowedAggregateBolt(aggregators.count(), key_fields=("key",))
        .with_windows(TimeDifferenceWindows(Duration(10), Duration(0)))
        .with_timestamp_field("ts")
    )
    h = BoltHarness(bolt, fields=FIELDS, state=store)
    h.feed_batch([["a", 5, 1], ["b", 8, 1]])
    h.commit()
    assert sorted(unpack_value(k[len(BUCKET_PREFIX) :]) for k, _ in store.scan(BUCKET_PREFIX)) == [["a"], ["b"]]
    h.advance_watermark(100)
    h.commit()
    assert list(store.scan(BUCKET_PREFIX)) == []


def test_a_join_resumes_from_its_store():
    store = open_backend("memory://").namespace("n")

    def harness():
        bolt = (
            WindowedJoinBolt("left", "right", key_fields=("key",))
            .with_windows(FixedWindows(Duration(10)))
            .with_timestamp_field("ts")
        )
        return BoltHarness(bolt, fields=("key", "ts", "v"), streams=("left", "right"), state=store)

    h = harness()
    h.feed_batch([["a", 1, "l1"]], stream="left")
    h.commit()
    h = harness()  # a new process
    h.feed_batch([["a", 2, "r1"]], stream="right")
    h.advance_watermark(10)
    [(_, values)] = h.emitted
    assert values[3] == [[{"key": "a", "ts": 1, "v": "l1"}, {"key": "a", "ts": 2, "v": "r1"}]]


def test_commit_and_restart_work_on_the_harness_own_store():
    """Without ``state`` the harness gives the task a private memory:// store, as the batch loop gives each task one."""
    bolt = WindowedAggregateBolt(aggregators.count()).with_windows(GlobalWindows())
    h = BoltHarness(bolt, fields=FIELDS)
    h.feed({"key": "a", "ts": 0, "v": 1})
    h.commit()
    h.feed({"key": "a", "ts": 1, "v": 2})
    h.restart()  # the second tuple was not committed: the batch is fed again
    h.feed({"key": "a", "ts": 1, "v": 2})
    h.close()
    assert [values[3] for _, values in h.emitted] == [2]  # the count of the global window: each tuple once


class DistinctValues:
    """A user aggregator whose accumulator is a set: fine in memory, not storable."""

    def create(self):
        return set()

    def add(self, acc, tup):
        return acc | {tup["v"]}

    def merge(self, accs):
        return set().union(*accs)

    def extract(self, acc):
        return sorted(acc)


def test_an_accumulator_that_cannot_be_stored_fails_the_commit_naming_the_aggregator():
    bolt = WindowedAggregateBolt(DistinctValues()).with_windows(GlobalWindows())
    in_memory = BoltHarness(bolt, fields=FIELDS)
    in_memory.feed_batch([["a", 1, 2]])
    in_memory.close()
    assert in_memory.emitted[0][1][3] == [2]
    stored = BoltHarness(
        WindowedAggregateBolt(DistinctValues()).with_windows(GlobalWindows()),
        fields=FIELDS,
        component="distinct",
        state="memory://",
    )
    stored.feed_batch([["a", 1, 2]])
    with pytest.raises(
        TypeError,
        match=r"distinct: the state of WindowedAggregateBolt cannot be stored .*set.*"
        r"the accumulators of .*DistinctValues.* must be plain data",
    ):
        stored.commit()


def test_a_store_of_an_older_version_is_refused_before_its_windows_are_read():
    """A version-1 store (windows of another layout) fails with the version message, not while unpacking."""
    from bolts.codecs.value_codec import pack_value, unpack_value
    from bolts.codecs.window_state_codec import META_KEY

    bolt = WindowedAggregateBolt(aggregators.count()).with_windows(GlobalWindows()).with_timestamp_field("ts")
    h = BoltHarness(bolt, fields=FIELDS, state="memory://")
    h.feed_batch([["a", 1, "x"]])
    h.commit()
    store = h.task.store
    meta = unpack_value(store.get(META_KEY))
    meta["version"] = 1
    store.commit(99, {META_KEY: pack_value(meta), b"w/" + (10**6).to_bytes(8, "big"): pack_value([1, 2, 3])}, [])
    with pytest.raises(ValueError, match=r"snapshot version 1, expected \d+"):
        h.restart()
