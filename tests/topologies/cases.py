"""One topology covering every grouping and every window kind, with what BoltHarness expects of it."""

from __future__ import annotations

from bolts import Fields, WindowedAggregateBolt
from tests.topologies.helpers import GROUPINGS, Record, harness_outputs
from topologies import TopologyBuilder
from topologies.spouts.base import Spout
from windowing import AccumulationMode, Count, Duration, FixedWindows, Sessions, aggregators
from windowing.triggers import AfterCount, AfterProcessingTime, AfterWatermark


def window_bolts():
    """(component, bolt, grouping name, parallelism): each window kind under some grouping."""
    return [
        ("ev_time_sliding", Record().with_window(Duration.seconds(2), Duration.seconds(1)).with_timestamp_field("ts")
         .with_lag(Duration.milliseconds(500)).with_late_tuple_stream("late")
         .with_watermark_interval(Duration.milliseconds(400)), "fields", 2),
        ("ev_time_tumbling", Record().with_tumbling_window(Duration.seconds(1)).with_timestamp_field("ts"),
         "shuffle", 2),
        ("ev_count", Record().with_window(Count(3), Count(2)).with_timestamp_field("ts"), "global", 2),
        ("ev_count_time_slide", Record().with_window(Count(4), Duration.seconds(1)).with_timestamp_field("ts"),
         "fields", 1),
        ("pt_count_sliding", Record().with_window(Count(5), Count(2)), "shuffle", 2),
        ("pt_count_tumbling", Record().with_tumbling_window(Count(4)), "global", 2),
        ("pt_time_sliding", Record().with_window(Duration.milliseconds(2500), Duration.seconds(1)), "all", 2),
        ("pt_time_tumbling", Record().with_tumbling_window(Duration.milliseconds(1500)), "fields", 2),
        ("agg_fixed", retracting_sums(), "fields", 2),
        ("agg_sessions", WindowedAggregateBolt(aggregators.collect("value"), key_fields=("key",))
         .with_windows(Sessions(Duration.milliseconds(600))).with_timestamp_field("ts")
         .with_accumulation_mode(AccumulationMode.ACCUMULATING_AND_RETRACTING).with_late_tuple_stream("agg_late")
         .with_watermark_interval(Duration.milliseconds(400)), "shuffle", 2),
    ]


def retracting_sums() -> WindowedAggregateBolt:
    """Sums per key in 1 s windows: early panes 0.5 s after data, late ones per batch, retracting."""
    trigger = AfterWatermark(early=AfterProcessingTime(Duration.milliseconds(500)), late=AfterCount(1))
    return (WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
            .with_windows(FixedWindows(Duration.seconds(1))).with_trigger(trigger)
            .with_accumulation_mode(AccumulationMode.ACCUMULATING_AND_RETRACTING)
            .with_allowed_lateness(Duration.seconds(1)).with_timestamp_field("ts").with_lag(Duration.milliseconds(300))
            .with_watermark_interval(Duration.milliseconds(400)))


def build(spout: Spout):
    builder = TopologyBuilder()
    builder.set_spout("events", spout)
    for name, bolt, grouping, n in window_bolts():
        declarer = builder.set_bolt(name, bolt, parallelism=n)
        {
            "fields": lambda d: d.fields_grouping("events", Fields("key")),
            "shuffle": lambda d: d.shuffle_grouping("events"),
            "global": lambda d: d.global_grouping("events"),
            "all": lambda d: d.all_grouping("events"),
        }[grouping](declarer)
    return builder.create_topology()


def expected(batches):
    return {name: (n, harness_outputs(bolt, GROUPINGS[grouping], n, batches, name))
            for name, bolt, grouping, n in window_bolts()}
