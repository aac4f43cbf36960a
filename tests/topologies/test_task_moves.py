"""A task whose every batch runs in a fresh process gives driver mode's outputs: no Spark, the moves forced.

:class:`DistributedExecutor` runs here with its stages run in this process
(:class:`LocalStages`: the functions Spark's Python workers run, called here) and
the workers' warm cache emptied before every task, so each task is rebuilt
from the state store at every batch, as when it lands on another executor.
The topology is the equivalence suite's ``mixed`` case: bolts with running
totals in instance fields, plain bolts, stateful, paged and message-id
windows, and aggregations.
"""

from __future__ import annotations

import itertools
import re
import uuid

import pytest

from bolts import BaseBolt, Fields
from tests.cluster.cases import FIELDS, keyed_rows, mixed, spout
from tests.topologies.helpers import counting_clock
from topologies import TopologyBuilder
from topologies.executor import BatchClock, DistributedExecutor, DriverExecutor, OutputLog, worker
from topologies.executor.stage_engines import LocalStages


def rows_of(batches):
    return [[[row[f] for f in FIELDS] for row in rows] for rows in batches]


def run_both(topology, spout_id: str, batches, tmp_path, monkeypatch):
    from state_backends import open_backend

    driver = DriverExecutor(topology, {}, BatchClock(tmp_path / "d", counting_clock()), OutputLog(None))
    state_url = "memory://"
    backend = worker._backend(state_url)  # the executors' store: in this process, one shared memory backend
    distributed = DistributedExecutor(topology, {}, BatchClock(tmp_path / "x", counting_clock()), OutputLog(None),
                                      open_backend("memory://"), f"moves-{uuid.uuid4().hex[:8]}", None, state_url,
                                      engine=LocalStages(fresh_tasks=True))
    for batch_id, rows in enumerate(batches):
        driver.run(batch_id, {spout_id: rows})
        distributed.run(batch_id, {spout_id: rows})
    driver.flush()
    distributed.flush()
    assert backend is worker._backend(state_url)
    return driver.outputs.all(), distributed.outputs.all()


def test_tasks_rebuilt_from_the_store_at_every_batch_give_driver_modes_outputs(tmp_path, monkeypatch):
    topology = mixed(tmp_path)  # the spout's path is not read: rows are fed directly
    expected, got = run_both(topology, "events", rows_of(keyed_rows()), tmp_path, monkeypatch)
    assert {o.component for o in expected} >= {"tally", "tally_all", "stateful", "paged", "msgid", "agg_total"}
    assert got == expected


class Keeper(BaseBolt):
    """A plain bolt that keeps a compiled pattern it builds after prepare(): not plain data, cannot move."""

    def execute(self, input):
        self.pattern = re.compile(str(input["value"]))
        self.collector.emit([input["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


def test_an_attribute_that_cannot_move_fails_the_first_commit_naming_bolt_and_attribute(tmp_path, monkeypatch):
    b = TopologyBuilder()
    b.set_spout("events", spout(tmp_path))
    b.set_bolt("keeper", Keeper(), 2).shuffle_grouping("events")
    with pytest.raises(TypeError, match=r"commit: bolt 'keeper' \(Keeper\): attribute 'pattern' holds re.compile"):
        run_both(b.create_topology(), "events", rows_of(keyed_rows(1, 2)), tmp_path, monkeypatch)


def test_every_task_is_rebuilt_from_the_store_at_every_batch(tmp_path, monkeypatch):
    """The forced moves are real: each stage of each batch builds its tasks anew."""
    calls = itertools.count()
    original = worker._build

    def counting_build(*args, **kwargs):
        next(calls)
        return original(*args, **kwargs)

    monkeypatch.setattr(worker, "_build", counting_build)
    run_both(mixed(tmp_path), "events", rows_of(keyed_rows(3, 4)), tmp_path, monkeypatch)
    assert next(calls) >= 3 * 15  # every task of every stage, every batch


def test_a_task_whose_commit_lost_to_another_attempt_continues_from_the_winners_state(tmp_path, monkeypatch):
    """Two attempts of one batch: the one that commits second keeps nothing of its own run."""
    from bolts.instance_fields import FIELD_PREFIX, encode_field
    from tests.cluster.cases import Probe
    from topologies.executor import TopologyRuntime

    b = TopologyBuilder()
    b.set_spout("events", spout(tmp_path))
    b.set_bolt("probe", Probe()).shuffle_grouping("events")
    runtime = TopologyRuntime(b.create_topology(), {}, 1_000)
    rows = rows_of(keyed_rows(2, 3))
    runtime.run_batch(0, {"events": rows[0]}, 1_000)
    namespace = runtime.tasks["probe"][0].store.namespace
    commit = namespace.commit

    def another_attempt_first(batch_id, puts, deletes):
        commit(batch_id, {**puts, FIELD_PREFIX + b"count": encode_field(100)}, deletes)  # the winner counted 100
        return commit(batch_id, puts, deletes)  # this attempt's commit is refused: the batch is committed

    monkeypatch.setattr(namespace, "commit", another_attempt_first)
    runtime.run_batch(1, {"events": rows[1]}, 2_000)
    assert runtime.tasks["probe"][0].task.bolt.count == 100
