"""Panes carry their time: which bolts take a pane's ``timestamp`` by default, and which are refused without one."""

import re

import pytest

from bolts import BaseWindowedBolt, Fields, WindowedAggregateBolt
from bolts.pane_time import PANE_TIME_FIELD, carries_pane_time, with_pane_time
from tests.event_time.helpers import OUT, panes, sum_bolt
from topologies import TopologyBuilder
from topologies.spouts import FileSpout
from topologies.testing import BoltHarness
from windowing import Duration, FixedWindows, aggregators


class Windows(BaseWindowedBolt):
    """Emits each window's bounds and the values it holds."""

    def execute(self, window):
        self.collector.emit([window.start_timestamp, window.end_timestamp, [t["value"] for t in window.get()]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("start", "end", "values"))


def upstream_panes():
    """Panes of a 10 s fixed-window sum, keyed: windows [0, 10 s) and [10 s, 20 s), fed at once, ending at 30 s."""
    h = BoltHarness(sum_bolt(FixedWindows(Duration.seconds(10))), fields=("key", "ts", "v"))
    h.feed_batch([("a", 1_000, 1), ("b", 2_000, 2), ("a", 12_000, 3), ("b", 25_000, 4)])
    h.advance_watermark(30_000)
    return [values for stream, values in h.emitted if stream == "default"]


def test_a_pane_s_time_is_the_last_instant_of_its_window():
    for pane in upstream_panes():
        assert pane[OUT.index("timestamp")] == pane[OUT.index("window_end")] - 1


def test_an_aggregation_of_panes_with_no_time_of_its_own_takes_theirs():
    bolt = WindowedAggregateBolt(aggregators.max("value"))
    h = BoltHarness(bolt, fields=OUT, start_time_ms=500_000)  # ingress time would put every pane at 500 s
    assert h.bolt.spec.timestamp_field == PANE_TIME_FIELD
    assert bolt.spec.timestamp_field is None  # the caller's bolt is left as configured
    h.feed_batch(upstream_panes())
    h.advance_watermark(30_000)
    assert [(p["window_start"], p["window_end"], p["value"], p["timestamp"]) for p in panes(h)] == [
        (0, 10_000, 2, 9_999), (10_000, 20_000, 3, 19_999), (20_000, 30_000, 4, 29_999)]
    assert not h.late


def test_a_windowed_bolt_over_panes_windows_them_by_their_time():
    bolt = Windows().with_tumbling_window(Duration.seconds(20))
    h = BoltHarness(bolt, fields=OUT, start_time_ms=500_000)
    assert h.bolt.window_config.timestamp_field == PANE_TIME_FIELD
    h.feed_batch(upstream_panes())
    h.advance_watermark(60_000)
    assert [values for stream, values in h.emitted] == [[0, 20_000, [1, 2, 3]], [20_000, 40_000, [4]]]


def test_a_time_of_the_bolt_s_own_wins_over_the_panes():
    by_field = WindowedAggregateBolt(aggregators.count()).with_timestamp_field("window_start")
    assert BoltHarness(by_field, fields=OUT).bolt.spec.timestamp_field == "window_start"
    by_extractor = WindowedAggregateBolt(aggregators.count()).with_timestamp_extractor(lambda t: t["window_end"])
    spec = BoltHarness(by_extractor, fields=OUT).bolt.spec
    assert spec.timestamp_field is None and spec.timestamp_extractor is not None


def test_only_streams_declaring_window_bounds_and_a_timestamp_are_panes():
    assert carries_pane_time(OUT)
    assert carries_pane_time(("window_end", "timestamp", "window_start"))
    assert not carries_pane_time(("window_start", "window_end", "value"))
    assert not carries_pane_time(("ts", "timestamp"))


def test_a_bolt_with_a_non_pane_input_keeps_ingress_time_when_it_can():
    bolt = WindowedAggregateBolt(aggregators.count()).with_windows(FixedWindows(Duration.seconds(1)))
    assert with_pane_time("x", bolt, {"events:default": ("key", "ts")}) is bolt
    assert with_pane_time("x", bolt, {"agg:default": OUT, "events:default": ("key", "ts")}) is bolt
    plain = Windows().with_tumbling_window(Duration.seconds(1))
    assert with_pane_time("x", plain, {"events:default": ("key", "ts")}).window_config.timestamp_field is None


def test_the_harness_refuses_a_bolt_that_needs_event_time_and_gets_none():
    bolt = WindowedAggregateBolt(aggregators.count())
    with pytest.raises(ValueError, match=re.escape(
            "with_windows: bolt 'bolt' has no assigner, so it keeps the windows of the panes it receives, in their "
            "time, but it has no timestamp field or extractor and spout:default is no pane stream (it lacks "
            "timestamp), so it would take ingress time; call with_timestamp_field(...)")):
        BoltHarness(bolt, fields=("window_start", "window_end", "value"))


def builder():
    b = TopologyBuilder()
    b.set_spout("events", FileSpout("/unused", "json", ("key", "ts", "value"),
                                    schema="key STRING, ts BIGINT, value BIGINT"))
    b.set_bolt("agg", WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
               .with_windows(FixedWindows(Duration.seconds(10))).with_timestamp_field("ts")) \
        .fields_grouping("events", Fields("key"))
    return b


def test_a_topology_holds_the_bolt_with_the_panes_time_and_leaves_the_caller_s_alone():
    b = builder()
    top = WindowedAggregateBolt(aggregators.max("value")).with_spark_semantics()
    b.set_bolt("top", top).global_grouping("agg")
    topology = b.create_topology()
    assert topology.bolts["top"].bolt.spec.timestamp_field == PANE_TIME_FIELD
    assert top.spec.timestamp_field is None


@pytest.mark.parametrize(("bolt", "method", "why"), [
    (WindowedAggregateBolt(aggregators.count()), "with_windows", "has no assigner"),
    (WindowedAggregateBolt(aggregators.count()).with_windows(FixedWindows(Duration.seconds(1)))
     .with_spark_semantics(), "with_spark_semantics", "follows Spark's watermark, which needs an event-time column"),
])
def test_a_topology_refuses_a_bolt_that_needs_event_time_on_an_input_that_is_no_pane_stream(bolt, method, why):
    b = builder()
    b.set_bolt("x", bolt).global_grouping("agg").shuffle_grouping("events")
    with pytest.raises(ValueError, match=re.escape(f"{method}: bolt 'x' {why}")) as info:
        b.create_topology()
    message = str(info.value)
    assert "events:default is no pane stream (it lacks window_start, window_end, timestamp)" in message
    assert "agg:default" not in message  # the pane stream is not the problem
    assert "with_timestamp_field(...)" in message

