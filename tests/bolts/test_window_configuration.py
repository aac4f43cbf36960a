"""Bad window configuration fails when the bolt is configured or built, naming the method and the value."""

import re

import pytest

from bolts import BaseWindowedBolt, Fields
from topologies.testing import BoltHarness
from windowing import Count, Duration


class Bolt(BaseWindowedBolt):
    def execute(self, window):
        pass


@pytest.mark.parametrize(
    ("configure", "error", "message"),
    [
        (lambda b: b.with_window(5), TypeError,
         "with_window: `window_length` must be a Count or Duration; got 5 (int) instead"),
        (lambda b: b.with_window(Count(0)), ValueError,
         "with_window: `window_length` must be positive; got Count(0) instead"),
        (lambda b: b.with_window(Duration(-10)), ValueError,
         "with_window: `window_length` must be positive; got Duration(-10) instead"),
        (lambda b: b.with_window(Duration(10), Count(-1)), ValueError,
         "with_window: `sliding_interval` must be positive; got Count(-1) instead"),
        (lambda b: b.with_window(Duration(10), "1s"), TypeError,
         "with_window: `sliding_interval` must be a Count or Duration; got '1s' (str) instead"),
        (lambda b: b.with_tumbling_window(Duration(0)), ValueError,
         "with_tumbling_window: `length` must be positive; got Duration(0) instead"),
        (lambda b: b.with_tumbling_window(None), TypeError,
         "with_tumbling_window: `length` must be a Count or Duration; got None (NoneType) instead"),
        (lambda b: b.with_lag(Duration(-5)), ValueError,
         "with_lag: `duration` must not be negative; got Duration(-5) instead"),
        (lambda b: b.with_lag(5000), TypeError, "with_lag: `duration` must be a Duration; got 5000 (int) instead"),
        (lambda b: b.with_watermark_interval(Duration(0)), ValueError,
         "with_watermark_interval: `interval` must be positive; got Duration(0) instead"),
        (lambda b: b.with_timestamp_field(""), ValueError, "with_timestamp_field: `field_name` must not be empty"),
        (lambda b: b.with_timestamp_field(3), TypeError, "with_timestamp_field: `field_name` must be a str"),
        (lambda b: b.with_timestamp_field("ts").with_timestamp_field("t2"), ValueError,
         "with_timestamp_field: the bolt already takes its timestamp from 'ts'; got 't2' too"),
        (lambda b: b.with_timestamp_extractor("ts"), TypeError,
         "with_timestamp_extractor: `extractor` must be callable; got 'ts' instead"),
        (lambda b: b.with_late_tuple_stream(""), ValueError, "with_late_tuple_stream: `stream_id` must not be empty"),
    ],
)
def test_configuration_methods_check_their_argument(configure, error, message):
    with pytest.raises(error, match=re.escape(message)):
        configure(Bolt())


@pytest.mark.parametrize(
    ("configure", "message"),
    [
        (lambda b: b, "with_window: the window length is not set"),
        (lambda b: b.with_window(Count(3)).with_lag(Duration(5)), "with_lag: Duration(5) only applies to event time"),
        (lambda b: b.with_window(Count(3)).with_late_tuple_stream("late"),
         "with_late_tuple_stream: 'late' only applies to event time"),
        (lambda b: b.with_window(Count(3)).with_watermark_interval(Duration(5)),
         "with_watermark_interval: Duration(5) only applies to event time"),
    ],
)
def test_rules_across_settings_fail_when_the_bolt_is_built(configure, message):
    bolt = configure(Bolt())
    with pytest.raises(ValueError, match=re.escape(message)):
        BoltHarness(bolt, fields=("ts",))


def test_the_late_tuple_stream_is_declared_for_the_bolt():
    bolt = Bolt().with_window(Count(3)).with_timestamp_field("ts").with_late_tuple_stream("late")
    assert bolt.output_streams()["late"] == Fields("late_tuple")


def test_a_bolt_may_not_redeclare_the_late_stream_differently():
    class Declares(Bolt):
        def declare_output_fields(self, declarer):
            declarer.declare_stream("late", Fields("x", "y"))

    bolt = Declares().with_window(Count(3)).with_timestamp_field("ts").with_late_tuple_stream("late")
    with pytest.raises(ValueError, match="with_late_tuple_stream: stream 'late' is also declared"):
        BoltHarness(bolt, fields=("ts",))


def test_configuration_chains_and_keeps_every_setting():
    bolt = (Bolt().with_window(Duration.seconds(20), Duration.seconds(10)).with_timestamp_field("ts")
            .with_lag(Duration.seconds(5)).with_late_tuple_stream("late").with_watermark_interval(Duration.seconds(1)))
    cfg = bolt.window_config
    got = (cfg.length, cfg.slide, cfg.timestamp_field, cfg.lag_ms, cfg.late_tuple_stream, cfg.watermark_interval_ms)
    assert got == (Duration(20_000), Duration(10_000), "ts", 5000, "late", 1000)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: Count("3"), TypeError, "Count: `value` must be an int; got '3' (str) instead"),
        (lambda: Duration(True), TypeError, "Duration: `value` must be an int; got True (bool) instead"),
        (lambda: Duration.seconds(0.0005), ValueError, "Duration.seconds: 0.0005 seconds is not a whole number"),
        (lambda: Duration.minutes("1"), TypeError, "Duration.minutes: `amount` must be a number; got '1' instead"),
    ],
)
def test_counts_and_durations_refuse_what_is_not_a_whole_number(make, error, message):
    with pytest.raises(error, match=re.escape(message)):
        make()


def test_duration_helpers():
    assert Duration.seconds(1.5) == Duration(1500)
    assert Duration.minutes(1) == Duration(60_000)
    assert Duration.hours(1) == Duration(3_600_000)
    assert Duration.days(1) == Duration(86_400_000)
    assert Duration.milliseconds(7).ms == 7
    assert Count.of(3) == Count(3)
