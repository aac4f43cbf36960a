"""A restart after the shutdown flush resumes every task as the last batch left it, in both placements.

The flush commits nothing, and a processing-time count window does not fire at
close, so a run split by a flush and a new submit must give what one run over
all the batches gives: the first activation after the restart reports, as
expired, the tuples the last window before the flush held (Storm's
``getExpired()``), in driver and distributed mode alike. No Spark: the
distributed stages run in this process (:class:`LocalFrames`) over a shared
``memory://<name>`` store, and each run builds new executors, as a new submit does.

A store that does not outlive its runner (``memory://``) cannot give that: a
new runner on a checkpoint that went on finds it empty, and ``submit`` refuses
it instead of resuming with empty windows (first activation: nothing expired).
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from bolts import BaseBolt, Fields, WindowedAggregateBolt
from state_backends import open_backend
from tests.cluster.cases import FIELDS, keyed_rows, spout
from tests.topologies.helpers import Record
from topologies import SparkRunner, TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.engine.placements import chunks
from topologies.engine.placements.local_frames import LocalFrames
from windowing import Count, Duration, aggregators
from windowing.assigners import FixedWindows

START, STEP = 100_000, 1_000


class PassOn(BaseBolt):
    """Passes each row on (shuffled over its tasks, so the restart must keep the shuffle counters too)."""

    def execute(self, input: Any) -> None:
        self.collector.emit([input["key"], input["ts"], input["value"], input["msgid"]])

    def declare_output_fields(self, declarer: Any) -> None:
        declarer.declare(Fields("key", "ts", "value", "msgid"))


def topology(tmp_path):
    b = TopologyBuilder()
    b.set_spout("events", spout(tmp_path))  # the path is not read: rows are fed directly
    b.set_bolt("pass", PassOn(), parallelism=2).shuffle_grouping("events")
    b.set_bolt("sum", WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
               .with_windows(FixedWindows(Duration.seconds(2))).with_timestamp_field("ts")
               .with_lag(Duration.milliseconds(500)), parallelism=2).fields_grouping("pass", Fields("key"))
    b.set_bolt("recent", Record().with_tumbling_window(Count(3)), parallelism=2).fields_grouping("pass", Fields("key"))
    return b.create_topology()


BATCHES = [[[row[f] for f in FIELDS] for row in rows] for rows in keyed_rows()]


def clock():
    ticks = iter(range(START, 2**62, STEP))
    return lambda: next(ticks)


def split_run(make):
    """Batches 0-1 and the flush; then, as a new submit (new executor, same store), batches 2-4 and the flush."""
    outputs = []
    for batches in ((0, 1), (2, 3, 4)):
        executor = make()
        executor.complete_pending_flush()
        for batch_id in batches:
            executor.run(batch_id, {"events": BATCHES[batch_id]})
        executor.flush()
        outputs.append(executor.log.all())
    return outputs


def windows(outputs):
    return [(o.task, o.values) for o in outputs if o.component == "recent"]


def test_after_a_flush_both_placements_resume_as_one_run_without_it(tmp_path):
    topo = topology(tmp_path)
    name = f"flush-restart-{uuid.uuid4().hex[:8]}"
    driver_store, driver_clock = open_backend("memory://"), clock()
    driver = split_run(lambda: batch_loop(topo, BatchClock(tmp_path / "d", driver_clock), backend=driver_store,
                                          name=name))
    url, distributed_clock = f"memory://{name}", clock()  # the workers' store: shared in this process
    distributed = split_run(lambda: batch_loop(topo, BatchClock(tmp_path / "x", distributed_clock),
                                               mode="distributed", backend=chunks.worker_backend(url), name=name,
                                               state_url=url, frames=LocalFrames(fresh_tasks=True)))
    assert driver == distributed

    whole = batch_loop(topo, BatchClock(tmp_path / "w", clock()))
    for batch_id, rows in enumerate(BATCHES):
        whole.run(batch_id, {"events": rows})
    split = windows(driver[0]) + windows(driver[1])  # the flushes fire no processing-time window
    assert split == windows(whole.log.all())
    for task in (0, 1):
        expired = [values[4] for t, values in split if t == task]
        assert expired[0] == 0 and set(expired[1:]) == {3}  # the first after the restart too: nothing dropped
    assert any(values[4] == 3 for _, values in windows(driver[1])[:2])


def checkpoint_with_commits(root, name: str, last: int) -> None:
    commits = root / name / "spark" / "commits"
    commits.mkdir(parents=True)
    for batch in range(last + 1):
        (commits / str(batch)).write_text("v1\n")


def test_a_new_runner_on_memory_state_is_refused_where_the_checkpoint_went_on(tmp_path):
    checkpoint_with_commits(tmp_path / "ck", "q", 1)
    runner = SparkRunner(None, checkpoint_location=tmp_path / "ck")  # memory://: a new runner, an empty store
    with pytest.raises(RuntimeError, match=r"behind the checkpoint of 'q': namespace 'q/__router' holds nothing, "
                                           r"but .* committed batch 1, 2 batch\(es\) more; memory:// lives only as "
                                           r"long as the SparkRunner .*delete the checkpoint directory"):
        runner.submit("q", topology(tmp_path), available_now=True)


class Reached(Exception):
    """Raised where submit builds the executor: the store check let the submit through."""


def test_the_runner_that_ran_the_query_resumes_it_on_memory_state(tmp_path, monkeypatch):
    checkpoint_with_commits(tmp_path / "ck", "q", 1)
    runner = SparkRunner(None, checkpoint_location=tmp_path / "ck")
    runner.backend.namespace("q/__router").commit(1, {b"after": b"\x90"})  # what batch 1 left in this runner's store

    def reached(*args: Any) -> None:
        raise Reached

    monkeypatch.setattr(SparkRunner, "_loop", reached)
    with pytest.raises(Reached):
        runner.submit("q", topology(tmp_path), available_now=True)


class CutOff(Exception):
    """The batch cut off where ``stop()`` interrupts it: after some of its tasks committed."""


@pytest.mark.parametrize("placement", ["driver", "distributed"])
def test_a_batch_cut_off_after_some_tasks_committed_it_is_not_flushed_and_the_next_submit_goes_on(
        tmp_path, monkeypatch, caplog, placement):
    """Closing the tasks that committed batch 2 would fire its tuples in the flush, and again when it runs again."""
    from topologies.engine.task_store import TaskStore

    topo, name = topology(tmp_path), f"cut-off-{uuid.uuid4().hex[:8]}"
    url, ticks = f"memory://{name}", clock()
    if placement == "driver":
        store = open_backend("memory://")

        def make():
            return batch_loop(topo, BatchClock(tmp_path / "c", ticks), backend=store, name=name)
    else:
        def make():
            return batch_loop(topo, BatchClock(tmp_path / "c", ticks), mode="distributed",
                              backend=chunks.worker_backend(url), name=name, state_url=url,
                              frames=LocalFrames(fresh_tasks=True))

    first = make()
    for batch_id in (0, 1):
        first.run(batch_id, {"events": BATCHES[batch_id]})
    commit, commits = TaskStore.commit, []

    def commit_twice_then_cut_off(self, batch_id, *args):
        if batch_id == 2 and len(commits) == 2:
            raise CutOff
        commits.append(self)
        return commit(self, batch_id, *args)

    monkeypatch.setattr(TaskStore, "commit", commit_twice_then_cut_off)
    with pytest.raises(CutOff):
        first.run(2, {"events": BATCHES[2]})
    monkeypatch.setattr(TaskStore, "commit", commit)
    assert len(first._tasks_ahead_of(1)) == 2

    first.flush()
    assert "no shutdown flush: batch 2 was cut off after 2 task(s) committed it" in caplog.text
    assert first.flush_record.pending() is None and not first.flush_record.done_after(1)
    second = make()
    second.complete_pending_flush()
    for batch_id in (2, 3, 4):
        second.run(batch_id, {"events": BATCHES[batch_id]})
    second.flush()

    whole = batch_loop(topo, BatchClock(tmp_path / "w", clock()))
    for batch_id, rows in enumerate(BATCHES):
        whole.run(batch_id, {"events": rows})
    whole.flush()
    assert first.log.all() + second.log.all() == whole.log.all()


def test_a_task_that_commits_the_next_batch_while_the_flush_closes_the_tasks_stops_the_flush(tmp_path, caplog):
    """A task of the cancelled job commits batch 2 after the first check: the flush is begun and writes nothing."""
    topo, store = topology(tmp_path), open_backend("memory://")
    name = f"late-commit-{uuid.uuid4().hex[:8]}"
    executor = batch_loop(topo, BatchClock(tmp_path / "c", clock()), backend=store, name=name)
    for batch_id in (0, 1):
        executor.run(batch_id, {"events": BATCHES[batch_id]})
    end = executor.placement.end

    def close_while_a_task_commits(key, delivery):
        closed = end(key, delivery)  # every task closed
        store.namespace(f"{name}/pass/0").commit(2, {b"late": b"1"})  # the cancelled job's task, just now
        return closed

    executor.placement.end = close_while_a_task_commits
    written = len(executor.log.all())
    executor.flush()
    assert len(executor.log.all()) == written, "the flush wrote a final after all"
    assert executor.flush_record.pending() == 1 and not executor.flush_record.done_after(1)
    assert "no shutdown flush: batch 2 was cut off after 1 task(s) committed it" in caplog.text
