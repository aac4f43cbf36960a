"""One task contract: the harness runs the very task class the batch loop runs, for every kind of bolt.

Every task is built from its bolt and one ``TaskOptions`` value by one registry
(``bolts.task_factory.TASK_TYPES``); whether a windowed task stores its windows
follows from the store it is given, and both the harness and the batch loop give
every task one.
"""

from __future__ import annotations

import itertools

import pytest

from bolts import (
    BaseBasicBolt,
    BaseBolt,
    BaseStatefulBolt,
    BaseStatefulWindowedBolt,
    BaseWindowedBolt,
    Fields,
    StoredWindowedBoltTask,
    TaskOptions,
    WindowedAggregateBolt,
    WindowedBoltTask,
    WindowedJoinBolt,
    make_task,
)
from bolts.aggregate.task import AggregateTask
from bolts.storm.base_basic_bolt import BasicBoltTask
from bolts.storm.base_stateful_bolt import StatefulBoltTask
from bolts.task import PlainBoltTask
from tests.topologies.helpers import FIELDS, START, loop_of
from topologies import TopologyBuilder
from topologies.spouts import FileSpout
from topologies.testing import BoltHarness
from windowing import Count, Duration, FixedWindows, aggregators


class Plain(BaseBolt):
    def execute(self, input):
        self.collector.emit([input["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


class Basic(BaseBasicBolt):
    def execute(self, input, collector):
        collector.emit([input["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


class Stateful(BaseStatefulBolt):
    def execute(self, input):
        self.state.put("n", self.state.get("n", 0) + 1)
        self.collector.emit([self.state.get("n")])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


class Windowed(BaseWindowedBolt):
    def execute(self, window):
        self.collector.emit([len(window.get())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


class StatefulWindowed(BaseStatefulWindowedBolt):
    def execute(self, window):
        self.collector.emit([len(window.get())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


KINDS = {
    "plain": (Plain, PlainBoltTask),
    "basic": (Basic, BasicBoltTask),
    "stateful": (Stateful, StatefulBoltTask),
    "windowed": (lambda: Windowed().with_tumbling_window(Count(2)), StoredWindowedBoltTask),
    "stateful windowed": (lambda: StatefulWindowed().with_tumbling_window(Count(2)).with_persistence(),
                          StoredWindowedBoltTask),
    "aggregate": (lambda: WindowedAggregateBolt(aggregators.count()).with_windows(FixedWindows(Duration.seconds(1)))
                  .with_timestamp_field("ts"), AggregateTask),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_harness_runs_the_task_class_the_batch_loop_runs(kind):
    make, task_class = KINDS[kind]
    h = BoltHarness(make(), fields=FIELDS)
    b = TopologyBuilder()
    b.set_spout("events", FileSpout("/unused", "json", FIELDS, schema="key STRING, ts BIGINT, value BIGINT"))
    b.set_bolt("bolt", make()).shuffle_grouping("events")
    loop = loop_of(b.create_topology(), itertools.count(START, 1_000))
    loop.run(0, {"events": [["k", 1, 1], ["k", 2, 2]]})
    (warm,) = loop.placement.tasks.tasks.values()  # the loop's one task, kept warm after the batch
    assert type(h.task) is type(warm.built.task) is task_class


def test_a_windowed_task_keeps_its_windows_in_a_store_exactly_when_it_has_one():
    bolt = Windowed().with_tumbling_window(Count(2))
    assert type(make_task(bolt, TaskOptions("w"))) is WindowedBoltTask
    from state_backends import open_backend

    store = open_backend("memory://").namespace("w")
    assert type(make_task(bolt, TaskOptions("w", store=store))) is StoredWindowedBoltTask


def test_a_bolt_of_no_base_class_has_no_task_and_is_told_so():
    class NotABolt:
        pass

    with pytest.raises(TypeError, match=r"bolt 'x': NotABolt derives from no bolt base class \(BaseBolt, "):
        make_task(NotABolt(), TaskOptions("x"))  # type: ignore[arg-type]


def test_a_join_task_needs_both_of_its_streams_as_inputs():
    join = WindowedJoinBolt("left", "right", key_fields=("key",)).with_windows(FixedWindows(Duration.seconds(1)))
    with pytest.raises(ValueError, match=r"WindowedJoinBolt: streams \['right'\] are not inputs of bolt 'j'"):
        BoltHarness(join, fields=FIELDS, streams=("left",), component="j")
