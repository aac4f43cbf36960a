"""A Spark worker's objects frozen out of PySpark's collections, and thawed when a task it let go must be freed.

PySpark's daemon runs ``gc.collect()`` after every task; squall's partitions
end with ``gc.freeze()`` (:mod:`topologies.engine.placements.worker_collector`),
and a frozen object in a reference cycle is freed only after a thaw. The
distributed placement runs here as its workers run it (:class:`LocalFrames`:
the workers' functions called in this process, one cache standing for one
worker), on every kind of bolt of the cluster suite's topology.
"""

from __future__ import annotations

import gc
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bolts import Fields
from squall import Duration, SlidingWindows, WindowedAggregateBolt, aggregators
from tests.cluster.cases import keyed_rows, mixed, spout
from tests.topologies.helpers import counting_clock
from tests.topologies.test_warm_task_cache import Workers, chain, loop_named
from topologies import TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.engine.placements import worker_collector
from topologies.engine.placements.local_frames import LocalFrames
from topologies.engine.placements.worker_collector import FROZEN_PARTITIONS, FreezeState, after_partition
from topologies.engine.stage import TaskCache

# Aggregations' windows, Storm windows' events and their pages.
STATE_KINDS = {"bolts.aggregate.window_state.WindowState", "windowing.storm.event.Event",
               "windowing.storm.paged_event_buffer.Page"}
FIELDS = ("key", "ts", "value", "msgid")


def held_state() -> int:
    """Objects the collector tracks, frozen ones included, that hold windowed state."""
    frozen = gc.get_freeze_count()
    gc.unfreeze()  # gc.get_objects leaves the permanent generation out
    try:
        return sum(1 for o in gc.get_objects() if _kind(o) in STATE_KINDS)
    finally:
        if frozen:
            gc.freeze()


def _kind(o: object) -> str:
    return f"{type(o).__module__}.{type(o).__qualname__}"


@contextmanager
def collector_as_in_a_worker() -> Iterator[None]:
    """The collector runs only where PySpark runs it (after each task); everything frozen is thawed at the end."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def rows(batch: list[dict]) -> list[list]:
    return [[row[f] for f in FIELDS] for row in batch]


def test_a_task_a_worker_lets_go_of_is_freed_by_pysparks_next_collection(tmp_path, monkeypatch):
    workers, state = Workers(monkeypatch, 1, idle_seconds=60.0), FreezeState()
    ended = batch_loop(mixed(tmp_path / "mixed"), BatchClock(tmp_path / "clock", counting_clock()),
                       mode="distributed", name=f"ended-{uuid.uuid4().hex[:8]}", state_url="memory://",
                       frames=LocalFrames())
    batches = keyed_rows(4, 12)
    with collector_as_in_a_worker(), workers.serving(0) as cache:
        before = held_state()  # what earlier tests in this process left alive
        frozen = []
        for batch_id, batch in enumerate(batches[:3]):
            ended.run(batch_id, {"events": rows(batch)})
            frozen.append(after_partition(cache, state))
            gc.collect()  # PySpark's, after the task
        held = held_state()
        assert frozen == [True, True, True]  # building tasks lets go of none
        workers.clock.now += 61.0  # the query ended a minute ago: its tasks go when the next one runs here
        loop_named(chain(tmp_path), tmp_path, f"next-{uuid.uuid4().hex[:8]}").run(0, {"events": rows(batches[3])})
        assert cache.dropped >= 10  # every task of the ended query
        assert cache.left_to_collector > 0  # a Storm task's window manager calls back into it: a cycle
        assert not after_partition(cache, state)  # thawed
        gc.collect()
        left = held_state() - before
    held -= before
    assert held > 100, f"the warm tasks held only {held} windows, events and pages"
    assert left == 0, f"{left} of the {held} windows, events and pages of the tasks let go are still there"


def spark_counts(tmp_path):
    """Counts per key in sliding windows with Spark's rules: a task without a watermark timer, in no cycle."""
    b = TopologyBuilder()
    b.set_spout("events", spout(tmp_path))
    b.set_bolt("counts", WindowedAggregateBolt(aggregators.count(), key_fields=("key",))
               .with_windows(SlidingWindows(Duration.seconds(20), Duration.seconds(1)))
               .with_timestamp_field("ts").with_spark_semantics(), 2).fields_grouping("events", Fields("key"))
    return b.create_topology()


def test_a_task_in_no_cycle_is_freed_frozen_and_the_worker_stays_frozen(tmp_path, monkeypatch):
    workers, state = Workers(monkeypatch, 1, idle_seconds=60.0), FreezeState()
    batches = keyed_rows(4, 12)
    ended = loop_named(spark_counts(tmp_path), tmp_path, f"ended-{uuid.uuid4().hex[:8]}")
    with collector_as_in_a_worker(), workers.serving(0) as cache:
        before = held_state()  # what earlier tests in this process left alive
        for batch_id, batch in enumerate(batches[:3]):
            ended.run(batch_id, {"events": rows(batch)})
            assert after_partition(cache, state)
            gc.collect()
        held = held_state()
        workers.clock.now += 61.0
        loop_named(chain(tmp_path), tmp_path, f"next-{uuid.uuid4().hex[:8]}").run(0, {"events": rows(batches[3])})
        assert cache.dropped == 2 and cache.left_to_collector == 0
        assert after_partition(cache, state)  # still frozen: nothing waits for the collector
        left = held_state() - before
    held -= before
    assert held > 50, f"the warm tasks held only {held} windows"
    assert left == 0, f"{left} of the {held} windows of the tasks let go are still there"


def test_frozen_objects_in_cycles_stay_until_a_thaw():
    """Why the thaw is needed: what the module docstring says of frozen garbage in cycles."""

    class Node:
        pass

    with collector_as_in_a_worker():
        node = Node()
        node.me = node  # a cycle
        gc.freeze()
        del node
        gc.collect()
        gc.unfreeze()
        assert any(type(o) is Node for o in gc.get_objects())  # still there, though nothing refers to it
        gc.collect()
        assert not any(type(o) is Node for o in gc.get_objects())


@pytest.fixture
def recorded(monkeypatch) -> list[str]:
    calls: list[str] = []
    monkeypatch.setattr(worker_collector.gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(worker_collector.gc, "unfreeze", lambda: calls.append("unfreeze"))
    return calls


def test_a_worker_thaws_at_least_every_few_partitions(recorded):
    cache, state = TaskCache(lambda url: None), FreezeState()
    frozen = [after_partition(cache, state) for _ in range(2 * (FROZEN_PARTITIONS + 1) + 1)]
    assert frozen == ([True] * FROZEN_PARTITIONS + [False]) * 2 + [True]
    assert recorded == (["freeze"] * FROZEN_PARTITIONS + ["unfreeze"]) * 2 + ["freeze"]


def test_a_worker_thaws_after_a_partition_that_left_a_task_to_the_collector(recorded):
    cache, state = TaskCache(lambda url: None), FreezeState()
    assert after_partition(cache, state)
    cache.builds += 1
    cache.dropped += 1  # let go, and freed by reference counting
    assert after_partition(cache, state)
    cache.left_to_collector += 1
    assert not after_partition(cache, state)
    assert after_partition(cache, state)
    assert recorded == ["freeze", "freeze", "unfreeze", "freeze"]
