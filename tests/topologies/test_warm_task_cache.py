"""What a Spark worker's warm cache lets go of: stale copies, earlier submissions, tasks idle too long.

The distributed placement runs here without Spark (:class:`LocalFrames`: the
functions Spark's Python workers run, called in this process). Two caches
stand for two Python workers; which one runs a layer is chosen per layer, as
Spark hands a layer's tasks to whichever worker is free.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bolts import BaseBolt, Fields
from tests.cluster.cases import FIELDS, Probe, keyed_rows, spout
from tests.topologies.helpers import counting_clock
from topologies import TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.engine.placements import chunks
from topologies.engine.placements.local_frames import LocalFrames
from topologies.engine.stage import TaskCache


class Clock:
    """A monotonic clock a test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


class Count(BaseBolt):
    """A plain bolt: how many tuples its task has seen, kept in an instance field."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.seen = 0

    def execute(self, input):
        self.seen += 1
        self.collector.emit([self.seen])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("seen"))


def chain(tmp_path):
    """A spout, a plain bolt with two tasks, and one more bolt reading it: two layers."""
    b = TopologyBuilder()
    b.set_spout("events", spout(tmp_path))
    b.set_bolt("probe", Probe(), 2).fields_grouping("events", ["key"])
    b.set_bolt("tally", Count()).shuffle_grouping("probe")
    return b.create_topology()


def batches(n: int) -> list[list[list]]:
    return [[[row[f] for f in FIELDS] for row in rows] for rows in keyed_rows(n, 6)]


class Workers:
    """Caches standing for Python workers; :meth:`serving` makes one of them the process's cache."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, count: int, idle_seconds: float | None = None) -> None:
        self.clock = Clock()
        self.caches = [TaskCache(chunks.worker_backend, idle_seconds, self.clock) for _ in range(count)]
        self.monkeypatch = monkeypatch

    @contextmanager
    def serving(self, worker: int) -> Iterator[TaskCache]:
        self.monkeypatch.setattr(chunks, "TASKS", self.caches[worker])
        yield self.caches[worker]


def loop_named(topology, tmp_path, name: str):
    return batch_loop(topology, BatchClock(tmp_path / f"clock-{uuid.uuid4().hex[:6]}", counting_clock()),
                      mode="distributed", name=name, state_url="memory://", frames=LocalFrames())


def keys_of(cache: TaskCache, name: str) -> set[tuple[str, int]]:
    return {(component, task) for (_, topology, component, task) in cache.tasks if topology == name}


def test_a_copy_another_worker_has_run_since_is_let_go_when_its_submission_runs_here(tmp_path, monkeypatch):
    workers, name = Workers(monkeypatch, 2), f"stale-{uuid.uuid4().hex[:8]}"
    loop, rows = loop_named(chain(tmp_path), tmp_path, name), batches(3)
    with workers.serving(0) as first:
        loop.run(0, {"events": rows[0]})
    assert keys_of(first, name) == {("probe", 0), ("probe", 1), ("tally", 0)}
    with workers.serving(1):
        loop.run(1, {"events": rows[1]})  # every task moves to the other worker: the first's copies are stale
    layer = loop.placement.run_layer
    seen: list[set[tuple[str, int]]] = []

    def probe_here_tally_there(stages, starts):
        worker = 0 if stages[0].component == "probe" else 1
        with workers.serving(worker):
            result = layer(stages, starts)
        seen.append(keys_of(first, name))
        return result

    monkeypatch.setattr(loop.placement, "run_layer", probe_here_tally_there)
    loop.run(2, {"events": rows[2]})
    # The first worker ran probe's tasks again (rebuilt) and let go of its stale copy of tally's task.
    assert seen[0] == {("probe", 0), ("probe", 1)}
    assert first.dropped == 2  # probe's task 1 (let go when task 0 ran, rebuilt after) and tally's
    assert first.tasks[("memory://", name, "probe", 0)].committed == 2


def test_a_task_used_warm_stays(tmp_path, monkeypatch):
    workers, name = Workers(monkeypatch, 1), f"warm-{uuid.uuid4().hex[:8]}"
    loop, rows = loop_named(chain(tmp_path), tmp_path, name), batches(3)
    with workers.serving(0) as cache:
        for batch_id, batch in enumerate(rows):
            loop.run(batch_id, {"events": batch})
    assert cache.builds == 3 and cache.dropped == 0  # built at the first batch only
    assert keys_of(cache, name) == {("probe", 0), ("probe", 1), ("tally", 0)}


def test_a_new_submission_of_a_topology_lets_go_of_the_earlier_ones_tasks(tmp_path, monkeypatch):
    workers, name = Workers(monkeypatch, 1), f"again-{uuid.uuid4().hex[:8]}"
    topology, rows = chain(tmp_path), batches(2)
    with workers.serving(0) as cache:
        loop_named(topology, tmp_path, name).run(0, {"events": rows[0]})
        earlier = {key: warm.generation for key, warm in cache.tasks.items()}
        again = loop_named(topology, tmp_path, name)  # a new generation, resuming from the same store
        layer = again.placement.run_layer
        seen: list[set[str]] = []

        def recorded(stages, starts):
            result = layer(stages, starts)
            seen.append({warm.generation for warm in cache.tasks.values()})
            return result

        monkeypatch.setattr(again.placement, "run_layer", recorded)
        again.run(1, {"events": rows[1]})
    assert len(set(earlier.values())) == 1
    old = next(iter(earlier.values()))
    assert old not in seen[0]  # gone once the new submission's first task ran, tally's too
    assert cache.dropped == 2 and cache.builds == 6  # probe's task 1 and tally's let go; all three rebuilt


def test_a_worker_lets_go_of_the_tasks_of_a_query_idle_longer_than_its_limit(tmp_path, monkeypatch):
    workers = Workers(monkeypatch, 1, idle_seconds=60.0)
    ended, running = f"ended-{uuid.uuid4().hex[:8]}", f"running-{uuid.uuid4().hex[:8]}"
    rows = batches(3)
    with workers.serving(0) as cache:
        loop_named(chain(tmp_path), tmp_path, ended).run(0, {"events": rows[0]})
        other = loop_named(chain(tmp_path), tmp_path, running)
        workers.clock.now += 59.0
        other.run(0, {"events": rows[1]})
        assert len(keys_of(cache, ended)) == 3  # idle for 59 s: still warm
        workers.clock.now += 2.0
        other.run(1, {"events": rows[2]})
    assert keys_of(cache, ended) == set()  # idle for 61 s
    assert keys_of(cache, running) == {("probe", 0), ("probe", 1), ("tally", 0)}
    assert cache.dropped == 3


def test_only_spark_workers_let_go_of_idle_tasks(tmp_path):
    """The driver placement's tasks wait for the next batch however long the trigger is."""
    driver = batch_loop(chain(tmp_path), BatchClock(tmp_path / "clock", counting_clock()))
    assert driver.placement.tasks.idle_seconds is None
    assert chunks.TASKS.idle_seconds == 60.0
