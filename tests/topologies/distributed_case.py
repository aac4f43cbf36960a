"""The topology the driver-vs-distributed tests run: windowed, stateful, aggregate and plain bolts, and chains."""

from __future__ import annotations

from bolts import BaseBolt, BaseStatefulWindowedBolt, Fields, WindowedAggregateBolt
from tests.topologies.cases import retracting_sums
from tests.topologies.helpers import LateValues, Record
from topologies import TopologyBuilder
from topologies.sinks.records import to_json
from topologies.spouts.base import Spout
from windowing import AccumulationMode, Count, Duration, aggregators


class RunningTotal(BaseStatefulWindowedBolt):
    """Emits each window's values and a running total kept in user state."""

    def execute(self, window):
        total = self.state.get("total", 0) + sum(t["value"] for t in window.get_new())
        self.state.put("total", total)
        self.collector.emit([[t["value"] for t in window.get()], total])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("values", "total"))


class SumOf(BaseBolt):
    """A plain bolt downstream of a windowed one: the sum of each window's values."""

    def execute(self, input):
        self.collector.emit([input.source_task, sum(input["values"])])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("from_task", "sum"))


def build(spout: Spout, small: bool = False):
    """The case topology; ``small`` keeps the event-time chain and the stateful bolt only (fewer Spark jobs)."""
    b = TopologyBuilder()
    b.set_spout("events", spout)
    b.set_bolt("ev_sliding", Record().with_window(Duration.seconds(2), Duration.seconds(1)).with_timestamp_field("ts")
               .with_lag(Duration.milliseconds(500)).with_late_tuple_stream("late")
               .with_watermark_interval(Duration.milliseconds(400)), 2).fields_grouping("events", Fields("key"))
    b.set_bolt("late", LateValues()).global_grouping("ev_sliding", "late")
    b.set_bolt("sum", SumOf(), 2).shuffle_grouping("ev_sliding")
    b.set_bolt("total", RunningTotal().with_tumbling_window(Count(3)).with_persistence(), 2) \
        .fields_grouping("events", Fields("key"))
    # Panes with retractions travel to a downstream aggregation that keeps their windows and takes the
    # aggregation's watermark.
    b.set_bolt("agg", retracting_sums(), 2).fields_grouping("events", Fields("key"))
    b.set_bolt("agg_total", WindowedAggregateBolt(aggregators.sum("value")).with_timestamp_field("timestamp")
               .with_accumulation_mode(AccumulationMode.ACCUMULATING).with_allowed_lateness(Duration.seconds(1))) \
        .global_grouping("agg")
    # Running totals in instance fields: the crash test restarts them from the store.
    from tests.cluster.cases import KeyTotals

    b.set_bolt("fields", KeyTotals().with_window(Duration.seconds(2), Duration.seconds(1)).with_timestamp_field("ts")
               .with_lag(Duration.milliseconds(500)), 2).fields_grouping("events", Fields("key"))
    if small:
        return b.create_topology()
    b.set_bolt("pt_count", Record().with_window(Count(5), Count(2)), 2).shuffle_grouping("events")
    b.set_bolt("pt_time", Record().with_window(Duration.milliseconds(2500), Duration.seconds(1)), 2) \
        .all_grouping("events")
    return b.create_topology()


def as_json(outputs) -> list[list]:
    """Outputs as comparable JSON-ready records."""
    return [[o.component, o.task, o.stream, to_json(o.values)] for o in outputs]
