"""create_topology() refuses what a task would refuse at batch 0: recovery modes, fields a bolt reads, joins, copies."""

import re
import threading

import pytest

from bolts import BaseBolt, BaseStatefulWindowedBolt, Fields, WindowedAggregateBolt, WindowedJoinBolt
from tests.topologies.helpers import loop_of
from topologies import TopologyBuilder
from topologies.spouts import FileSpout
from windowing import Count, Duration, FixedWindows, aggregators

FIELDS = ("key", "ts", "value", "id")
SCHEMA = "key STRING, ts BIGINT, value BIGINT, id BIGINT"


class Total(BaseStatefulWindowedBolt):
    """Sums the window's values into user state (works on bounded windows too: no get_new)."""

    def execute(self, window):
        total = self.state.get("total", 0) + sum(t["value"] for t in window.get())
        self.state.put("total", total)
        self.collector.emit([total])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("total"))


class Echo(BaseBolt):
    """Re-emits key, ts and value (no id) on `default`; declares `other` and `extra` with the same fields."""

    def execute(self, input):
        self.collector.emit([input["key"], input["ts"], input["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "ts", "value"))
        declarer.declare_stream("other", Fields("key", "ts", "value"))
        declarer.declare_stream("extra", Fields("key", "ts", "value"))


class HoldsALock(BaseBolt):
    def __init__(self):
        self.lock = threading.Lock()

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("x"))


def builder():
    b = TopologyBuilder()
    b.set_spout("events", FileSpout("/unused", "json", FIELDS, schema=SCHEMA))
    b.set_bolt("echo", Echo()).shuffle_grouping("events")
    return b


def refused(wire, message, error=ValueError):
    b = builder()
    wire(b)
    with pytest.raises(error, match=re.escape(message)) as info:
        b.create_topology()
    assert "'x'" in str(info.value)  # every refusal names the bolt
    return str(info.value)


def window():
    return Total().with_tumbling_window(Count(2))


def test_a_stateful_bolt_with_no_recovery_mode():
    refused(lambda b: b.set_bolt("x", window()).shuffle_grouping("events"),
            "BaseStatefulWindowedBolt: bolt 'x' (Total) chooses no way to recover its windows; "
            "call with_message_id_field(name) or with_persistence()")


def test_a_memory_bound_without_persistence():
    bolt = window().with_message_id_field("id").with_max_events_in_memory(100)
    refused(lambda b: b.set_bolt("x", bolt).shuffle_grouping("events"),
            "with_max_events_in_memory: 100 only applies to persistent windows, but bolt 'x' (Total) recovers "
            "with with_message_id_field('id'); call with_persistence() instead")


def test_both_recovery_modes():
    bolt = window().with_message_id_field("id").with_persistence()
    refused(lambda b: b.set_bolt("x", bolt).shuffle_grouping("events"),
            "with_message_id_field: 'id' and with_persistence() are both set on bolt 'x' (Total)")


def test_a_message_id_field_that_one_subscribed_stream_lacks():
    bolt = window().with_message_id_field("id")
    refused(lambda b: b.set_bolt("x", bolt).shuffle_grouping("events").shuffle_grouping("echo"),
            "with_message_id_field: bolt 'x' reads message ids from field 'id', but echo:default does not "
            "declare it; its fields are: key, ts, value")


def test_a_timestamp_field_that_one_subscribed_stream_lacks():
    bolt = window().with_persistence().with_timestamp_field("id")
    refused(lambda b: b.set_bolt("x", bolt).shuffle_grouping("events").shuffle_grouping("echo", "other"),
            "with_timestamp_field: bolt 'x' takes timestamps from field 'id', but echo:other does not declare it")


def test_a_fields_grouping_on_a_field_the_stream_lacks():
    refused(lambda b: b.set_bolt("x", Echo()).fields_grouping("echo", Fields("id")),
            "bolt 'x' subscribes to echo:default with fields grouping on 'id', which the stream does not declare")


def aggregate(key_fields=("key",), aggregator=None):
    return (WindowedAggregateBolt(aggregator or aggregators.sum("value"), key_fields=key_fields)
            .with_windows(FixedWindows(Duration.seconds(1))))


def test_an_aggregation_key_the_stream_lacks():
    refused(lambda b: b.set_bolt("x", aggregate(("key", "id"))).shuffle_grouping("echo"),
            "WindowedAggregateBolt: bolt 'x' groups by key field 'id', but echo:default does not declare it")


def test_an_aggregator_input_field_the_stream_lacks():
    refused(lambda b: b.set_bolt("x", aggregate(aggregator=aggregators.mean("id"))).shuffle_grouping("echo"),
            "which reads field 'id', but echo:default does not declare it; its fields are: key, ts, value")


def test_an_aggregation_timestamp_field_the_stream_lacks():
    refused(lambda b: b.set_bolt("x", aggregate().with_timestamp_field("id")).shuffle_grouping("echo"),
            "with_timestamp_field: bolt 'x' takes timestamps from field 'id', but echo:default does not declare it")


def test_an_aggregation_without_windows_on_tuples_that_carry_none():
    bolt = WindowedAggregateBolt(aggregators.count()).with_timestamp_field("ts")
    refused(lambda b: b.set_bolt("x", bolt).shuffle_grouping("events"),
            "with_windows: bolt 'x' has no window assigner, so it takes each tuple's window from field "
            "'window_start', but events:default does not declare it")


def test_an_aggregation_that_cannot_retract_reading_panes_that_retract():
    from windowing import AccumulationMode

    def wire(b, mode, aggregator):
        counts = aggregate().with_timestamp_field("ts").with_accumulation_mode(mode)
        b.set_bolt("counts", counts).shuffle_grouping("events")
        b.set_bolt("x", WindowedAggregateBolt(aggregator).with_timestamp_field("timestamp")).shuffle_grouping("counts")

    refused(lambda b: wire(b, AccumulationMode.ACCUMULATING_AND_RETRACTING, aggregators.max_by("key", "value")),
            "create_topology: bolt 'x' aggregates the panes of 'counts', which emits retractions "
            "(AccumulationMode.ACCUMULATING_AND_RETRACTING), but its aggregator MaxBy(value='key', by='value') "
            "cannot retract (it has no retract(acc, tuple))")
    for mode, aggregator in ((AccumulationMode.ACCUMULATING, aggregators.max_by("key", "value")),
                             (AccumulationMode.ACCUMULATING_AND_RETRACTING, aggregators.distinct_count("key"))):
        b = builder()
        wire(b, mode, aggregator)
        b.create_topology()  # panes without retractions, or an aggregator that retracts


def test_an_aggregation_late_stream_named_default():
    refused(lambda b: b.set_bolt("x", aggregate().with_timestamp_field("ts").with_late_tuple_stream("default"))
            .shuffle_grouping("events"),
            "declare_stream: 'x' declares stream 'default' twice")


def join():
    return WindowedJoinBolt("default", "other", key_fields=("key",)).with_windows(FixedWindows(Duration.seconds(1)))


def test_a_join_missing_one_of_its_streams():
    refused(lambda b: b.set_bolt("x", join()).shuffle_grouping("echo"),
            "WindowedJoinBolt: bolt 'x' joins streams 'default', 'other', but does not subscribe to 'other'")


def test_a_join_subscribed_to_a_third_stream():
    b2 = WindowedJoinBolt("default", "other", key_fields=("key",)).with_windows(FixedWindows(Duration.seconds(1)))
    refused(lambda b: b.set_bolt("x", b2).shuffle_grouping("echo").shuffle_grouping("echo", "other")
            .shuffle_grouping("echo", "extra"),
            "WindowedJoinBolt: bolt 'x' subscribes to echo:extra, which is neither of the joined streams")


def test_a_bolt_that_cannot_be_copied_for_its_tasks():
    message = refused(lambda b: b.set_bolt("x", HoldsALock()).shuffle_grouping("events"),
                      "set_bolt: bolt 'x' (HoldsALock) cannot be deep-copied, and each task runs its own copy: "
                      "TypeError: cannot pickle '_thread.lock' object", TypeError)
    assert "prepare()" in message


def test_the_accepted_versions_run():
    """The same bolts, configured right, pass create_topology and run two batches and the flush."""
    b = builder()
    b.set_bolt("persist", window().with_persistence().with_max_events_in_memory(8)).shuffle_grouping("events")
    b.set_bolt("ids", window().with_message_id_field("id").with_timestamp_field("ts")).shuffle_grouping("events")
    b.set_bolt("agg", aggregate().with_timestamp_field("ts")).shuffle_grouping("echo").shuffle_grouping("events")
    b.set_bolt("join", join().with_timestamp_field("ts")).shuffle_grouping("echo").shuffle_grouping("echo", "other")
    loop = loop_of(b.create_topology(), [0, 1_000])
    for batch in range(2):
        loop.run(batch, {"events": [[f"k{i % 2}", 1_000 * batch + 100 * i, i, 10 * batch + i] for i in range(5)]})
    loop.flush()
    assert {o.component for o in loop.log.all()} >= {"persist", "ids", "agg"}
