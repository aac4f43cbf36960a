"""A task whose every batch runs in a fresh process gives driver mode's outputs: no Spark, the moves forced.

the distributed placement (`batch_loop(..., mode="distributed")`) runs here with its stages run in this process
(:class:`LocalFrames`: the functions Spark's Python workers run, called here) and
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
from tests.topologies.helpers import counting_clock, loop_of
from topologies import TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.engine.placements import chunks
from topologies.engine.placements.local_frames import LocalFrames


def rows_of(batches):
    return [[[row[f] for f in FIELDS] for row in rows] for rows in batches]


def run_both(topology, spout_id: str, batches, tmp_path, monkeypatch):
    from state_backends import open_backend

    driver = batch_loop(topology, BatchClock(tmp_path / "d", counting_clock()))
    state_url = "memory://"
    backend = chunks.worker_backend(state_url)  # the executors' store: in this process, one shared memory backend
    distributed = batch_loop(topology, BatchClock(tmp_path / "x", counting_clock()), mode="distributed",
                             backend=open_backend("memory://"), name=f"moves-{uuid.uuid4().hex[:8]}",
                             state_url=state_url, frames=LocalFrames(fresh_tasks=True))
    for batch_id, rows in enumerate(batches):
        driver.run(batch_id, {spout_id: rows})
        distributed.run(batch_id, {spout_id: rows})
    driver.flush()
    distributed.flush()
    assert backend is chunks.worker_backend(state_url)
    return driver.log.all(), distributed.log.all()


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
    before = chunks.TASKS.builds
    run_both(mixed(tmp_path), "events", rows_of(keyed_rows(3, 4)), tmp_path, monkeypatch)
    assert chunks.TASKS.builds - before >= 3 * 15  # every task of every stage, every batch


def test_a_task_whose_commit_lost_to_another_attempt_continues_from_the_winners_state(tmp_path, monkeypatch):
    """Two attempts of one batch: the one that commits second keeps nothing of its own run."""
    from bolts.instance_fields import FIELD_PREFIX, encode_field
    from state_backends.base import Namespace
    from tests.cluster.cases import Probe

    b = TopologyBuilder()
    b.set_spout("events", spout(tmp_path))
    b.set_bolt("probe", Probe()).shuffle_grouping("events")
    loop = loop_of(b.create_topology(), itertools.count(1_000, 1_000), tmp_path / "clock")
    rows = rows_of(keyed_rows(3, 3))
    loop.run(0, {"events": rows[0]})
    commit = Namespace.commit

    def another_attempt_first(self, batch_id, puts, deletes=()):
        if self.name.endswith("/probe/0") and batch_id == 1:  # the winner counted 100
            commit(self, batch_id, {**puts, FIELD_PREFIX + b"count": encode_field(100)}, deletes)
        return commit(self, batch_id, puts, deletes)  # this attempt's commit is refused: the batch is committed

    monkeypatch.setattr(Namespace, "commit", another_attempt_first)
    loop.run(1, {"events": rows[1]})
    monkeypatch.undo()
    loop.run(2, {"events": rows[2]})
    assert [o.values[3] for o in loop.log.batches[2]] == [101, 102, 103, 104]  # on from the winner's count
