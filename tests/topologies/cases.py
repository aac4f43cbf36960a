"""One topology covering every grouping and every window kind, with what BoltHarness expects of it."""

from __future__ import annotations

from bolts import Fields
from tests.topologies.helpers import GROUPINGS, Record, harness_outputs
from topologies import TopologyBuilder
from topologies.spouts.base import Spout
from windowing import Count, Duration


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
    ]


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
