"""Timestamps as Spark users have them (datetimes, Arrow timestamp columns) and durations as ``timedelta``.

A datetime timestamp must give exactly the windows its epoch milliseconds
give, on every path: tuple by tuple, a batch of tuples, and an aggregation
placed on Arrow columns. The oracle is the same bolt fed integer milliseconds.
"""

from __future__ import annotations

import copy
from datetime import UTC, date, datetime, timedelta, timezone

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import BaseWindowedBolt, Fields, TaskOptions, Tuple, TupleError, WindowedAggregateBolt, make_task
from bolts.aggregate.columnar import takes
from bolts.task_input import TaskInput
from bolts.timestamps import EPOCH, column_millis, millis
from topologies.testing import BoltHarness
from windowing import Count, Duration, FixedWindows, Sessions, SlidingWindows, aggregators
from windowing.duration import as_duration
from windowing.triggers import AfterProcessingTime

instants = st.integers(-10**12, 10**13)  # epoch microseconds, before and after 1970
zones = st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))])


@given(instants, zones)
def test_an_aware_datetime_is_its_instant_in_milliseconds_floored(micros, zone):
    when = (EPOCH + timedelta(microseconds=micros)).astimezone(zone)
    assert millis(when) == micros // 1_000


@given(instants)
def test_a_naive_datetime_is_read_as_utc(micros):
    naive = (EPOCH + timedelta(microseconds=micros)).replace(tzinfo=None)  # a TimestampNTZ value
    assert millis(naive) == micros // 1_000


@settings(max_examples=50)
@given(st.lists(instants, min_size=1, max_size=20), st.sampled_from(["s", "ms", "us", "ns"]),
       st.sampled_from([None, "UTC", "+05:30"]))
def test_an_arrow_timestamp_column_gives_what_each_value_gives(micros, unit, tz):
    scale = {"s": 10**-6, "ms": 10**-3, "us": 1, "ns": 1_000}[unit]
    raw = [int(m * scale) if unit != "s" else m // 1_000_000 for m in micros]
    column = pa.chunked_array([pa.array(raw, pa.int64()).cast(pa.timestamp(unit, tz))])
    assert column_millis(column).tolist() == [millis(v) for v in column.to_pylist()]


@pytest.mark.parametrize("value", [True, "soon", 1.5, None, date(2024, 1, 1)])
def test_other_values_are_not_timestamps(value):
    assert millis(value) is None


class Values(BaseWindowedBolt):
    def execute(self, window):
        self.collector.emit([window.start_timestamp, window.end_timestamp, sorted(t["v"] for t in window.get())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("start", "end", "values"))


ROWS = [(1_000, 1), (2_500, 2), (1_800, 3), (7_000, 4), (6_100, 5), (400, 6), (12_345, 7), (15_000, 8)]


def as_datetime(ms: int, zone=UTC) -> datetime:
    return (EPOCH + timedelta(milliseconds=ms)).astimezone(zone)


def _storm_run(bolt, convert, batched: bool) -> list:
    fields = Fields("ts", "v")
    emitted: list = []
    task = make_task(copy.deepcopy(bolt), TaskOptions(component="values", input_streams=[("spout", "default")],
                                                      watermark_at_batch_end=True))
    task.prepare({}, lambda stream, values: emitted.append((stream, values)))
    for b, part in enumerate((ROWS[:3], ROWS[3:6], ROWS[6:])):
        tuples = [Tuple([convert(ms), v], fields, "default", "spout", 0) for ms, v in part]
        task.advance_to(1_000 * (b + 1))
        if batched:
            task.execute_batch(TaskInput.of(tuples))
        else:
            for tup in tuples:
                task.execute(tup)
        task.end_batch()
    task.close()
    return [(s, v if s != "late" else v[0]["v"]) for s, v in emitted]


@pytest.mark.parametrize("zone", [UTC, timezone(timedelta(hours=-3))])
@pytest.mark.parametrize("batched", [False, True], ids=["per-tuple", "batch"])
def test_a_storm_bolt_on_datetimes_fires_the_windows_of_their_milliseconds(zone, batched):
    bolt = Values().with_window(Duration.seconds(4), Duration.seconds(2)).with_timestamp_field("ts") \
        .with_lag(Duration(500)).with_late_tuple_stream("late")
    on_ms = _storm_run(bolt, lambda ms: ms, batched)
    assert _storm_run(bolt, lambda ms: as_datetime(ms, zone), batched) == on_ms
    assert any(s == "late" for s, _ in on_ms) and any(s == "default" for s, _ in on_ms)


def test_a_bad_timestamp_names_both_forms_it_takes():
    h = BoltHarness(Values().with_tumbling_window(Count(2)).with_timestamp_field("ts"), fields=("ts", "v"))
    with pytest.raises(TupleError, match=r"int of epoch milliseconds or a datetime; got 'soon' \(str\)"):
        h.feed({"ts": "soon", "v": 1})


def _aggregate_task(assigner):
    bolt = WindowedAggregateBolt(aggregators.sum("v"), key_fields=("k",)).with_windows(assigner) \
        .with_timestamp_field("ts").with_lag(Duration(300)).with_late_tuple_stream("late")
    emitted: list = []
    task = make_task(copy.deepcopy(bolt), TaskOptions(component="agg", input_streams=[("spout", "default")],
                                                      watermark_at_batch_end=True))
    task.prepare({}, lambda stream, values: emitted.append((stream, values)))
    return task, emitted


@pytest.mark.parametrize("assigner", [FixedWindows(Duration(1_000)), SlidingWindows(Duration(2_000), Duration(500)),
                                      Sessions(Duration(700))], ids=["fixed", "sliding", "sessions"])
def test_an_aggregation_on_an_arrow_timestamp_column_equals_one_on_milliseconds(assigner):
    fields = Fields("k", "ts", "v")
    on_ms, ms_out = _aggregate_task(assigner)
    on_column, column_out = _aggregate_task(assigner)
    for b, part in enumerate((ROWS[:3], ROWS[3:6], ROWS[6:])):
        keys = ["a" if v % 2 else "b" for _, v in part]
        table = pa.table({"k": keys, "ts": pa.array([ms * 1_000 for ms, _ in part], pa.int64())
                          .cast(pa.timestamp("us", "UTC")), "v": [v for _, v in part]})
        columns = TaskInput()
        columns.append_table("spout", 0, "default", fields, table)
        assert on_column._columnar  # sessions take columns too (issue 36)
        assert takes(on_column.spec, columns.segments[0])
        tuples = TaskInput.of([Tuple([k, ms, v], fields, "default", "spout", 0)
                               for k, (ms, v) in zip(keys, part, strict=True)])
        for task, batch in ((on_column, columns), (on_ms, tuples)):
            task.advance_to(1_000 * (b + 1))
            task.execute_batch(batch)
            task.end_batch()
    on_column.close()
    on_ms.close()

    def comparable(out):  # a late tuple carries its own timestamp, a datetime on one side
        return [(s, v if s != "late" else [v[0]["k"], v[0]["v"]]) for s, v in out]

    assert comparable(column_out) == comparable(ms_out)
    assert any(s == "default" for s, _ in ms_out)


# Durations -----------------------------------------------------------------------------------------------------

def test_every_method_that_takes_a_duration_takes_a_timedelta():
    second = timedelta(seconds=1)
    a = Values().with_window(2 * second, second).with_timestamp_field("ts").with_lag(timedelta(milliseconds=250)) \
        .with_watermark_interval(second)
    b = Values().with_window(Duration(2_000), Duration(1_000)).with_timestamp_field("ts").with_lag(Duration(250)) \
        .with_watermark_interval(Duration(1_000))
    assert a.window_config == b.window_config
    assert Values().with_tumbling_window(second).window_config == Values().with_tumbling_window(Duration(1_000)) \
        .window_config
    agg = WindowedAggregateBolt(aggregators.count()).with_windows(SlidingWindows(2 * second, second)) \
        .with_allowed_lateness(second).with_trigger(AfterProcessingTime(second))
    assert agg.build_spec("x") == WindowedAggregateBolt(aggregators.count()) \
        .with_windows(SlidingWindows(Duration(2_000), Duration(1_000))).with_allowed_lateness(Duration(1_000)) \
        .with_trigger(AfterProcessingTime(Duration(1_000))).build_spec("x")
    assert Sessions(second) == Sessions(Duration(1_000))
    assert Duration.from_timedelta(timedelta(minutes=2)) == Duration.minutes(2)


@pytest.mark.parametrize("call", [
    lambda: Values().with_lag(timedelta(microseconds=1500)),
    lambda: FixedWindows(timedelta(microseconds=1)),
    lambda: Duration.from_timedelta(timedelta(microseconds=999)),
], ids=["with_lag", "FixedWindows", "from_timedelta"])
def test_a_timedelta_that_is_not_whole_milliseconds_is_refused_naming_the_method(call):
    with pytest.raises(ValueError, match=r"(with_lag|FixedWindows|Duration.from_timedelta): `\w+` must be a whole "
                                         r"number of milliseconds; got datetime.timedelta"):
        call()


def test_a_negative_timedelta_is_refused_as_a_negative_duration_is():
    with pytest.raises(ValueError, match="with_lag: `duration` must not be negative"):
        Values().with_lag(timedelta(seconds=-1))
    assert as_duration("m", "x", 5) == 5  # not a timedelta: left for the caller's own check


# On Spark: a TIMESTAMP column ---------------------------------------------------------------------------------
