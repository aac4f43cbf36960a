"""The watermark at the end of every batch: event-time results depend on the batches, not on the clock.

The issue's example: two batches, the second's timestamps 20 s behind the first's, lag 5 s.

  batch 1: ts 30 s 32 s 34 s      -> at its end the watermark is 34 s - 5 s = 29 s
  batch 2: ts 10 s 12 s           -> below 29 s: late, whatever the time between the batches

With the watermark only on its 1 s interval timer, batch 2 is late only when the
clock moved at least 1 s between the batches: 0 late tuples with a fast machine
(1 ms per batch), 2 with a slow one (10 s per batch).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import BaseStatefulWindowedBolt, BaseWindowedBolt, Fields, WindowedAggregateBolt, WindowedJoinBolt
from topologies.testing import BoltHarness
from windowing import AccumulationMode, Duration, FixedWindows, SlidingWindows, aggregators
from windowing.triggers import AfterCount, AfterWatermark

FIELDS = ("key", "ts", "value")
FAST, SLOW = 1, 10_000  # processing time between batches: 1 ms, 10 s
TWO_FILES = [
    [{"key": "a", "ts": 30_000, "value": 1}, {"key": "b", "ts": 32_000, "value": 2},
     {"key": "a", "ts": 34_000, "value": 3}],
    [{"key": "a", "ts": 10_000, "value": 4}, {"key": "b", "ts": 12_000, "value": 5}],
]


class Sums(BaseWindowedBolt):
    def execute(self, window):
        self.collector.emit([window.start_timestamp, window.end_timestamp, sorted(t["value"] for t in window.get())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("start", "end", "values"))


class StatefulSums(BaseStatefulWindowedBolt):
    def execute(self, window):
        total = self.state.get("total", 0) + sum(t["value"] for t in window.get())
        self.state.put("total", total)
        self.collector.emit([window.start_timestamp, window.end_timestamp, total])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("start", "end", "total"))


def storm_bolt():
    return (Sums().with_window(Duration.seconds(10), Duration.seconds(5)).with_timestamp_field("ts")
            .with_lag(Duration.seconds(5)).with_late_tuple_stream("late"))


def aggregate_bolt():
    return (WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
            .with_windows(SlidingWindows(Duration.seconds(10), Duration.seconds(5)))
            .with_trigger(AfterWatermark(late=AfterCount(1)))
            .with_accumulation_mode(AccumulationMode.ACCUMULATING).with_allowed_lateness(Duration.seconds(3))
            .with_timestamp_field("ts").with_lag(Duration.seconds(5)).with_late_tuple_stream("late"))


def stateful_bolt():
    return (StatefulSums().with_tumbling_window(Duration.seconds(5)).with_timestamp_field("ts")
            .with_lag(Duration.seconds(5)).with_late_tuple_stream("late").with_persistence())


BOLTS = {"storm": storm_bolt, "aggregate": aggregate_bolt, "stateful": stateful_bolt}


def run(make_bolt, batches, steps, *, per_batch):
    """Each batch ``steps[i]`` ms after the previous one, then the end of input: windows, emitted, late."""
    h = BoltHarness(make_bolt(), fields=FIELDS, watermark_per_batch=per_batch, state="memory://")
    for step, rows in zip(steps, batches, strict=True):
        h.advance(step)
        h.feed_batch(rows)
    h.close()
    return summary(h)


def summary(h):
    """Windows (bounds and tuples), emitted tuples (a late one as its values) and late tuples."""
    windows = [(w.start_timestamp, w.end_timestamp, [list(t.values) for t in w.tuples]) for w in h.windows]
    emitted = [(s, list(v[0].values) if s == "late" else v) for s, v in h.emitted]
    return windows, emitted, [list(t.values) for t in h.late]


@pytest.mark.parametrize("kind", BOLTS)
def test_two_files_give_two_late_tuples_on_any_machine(kind):
    fast = run(BOLTS[kind], TWO_FILES, [FAST, FAST], per_batch=True)
    slow = run(BOLTS[kind], TWO_FILES, [SLOW, SLOW], per_batch=True)
    assert fast == slow
    assert fast[2] == [["a", 10_000, 4], ["b", 12_000, 5]]
    assert [v for s, v in fast[1] if s == "late"] == fast[2]


@pytest.mark.parametrize("kind", BOLTS)
def test_without_the_option_the_watermark_follows_the_clock(kind):
    """The harness's default: the watermark moves only on advance (its interval timer)."""
    fast = run(BOLTS[kind], TWO_FILES, [FAST, FAST], per_batch=False)
    slow = run(BOLTS[kind], TWO_FILES, [SLOW, SLOW], per_batch=False)
    assert fast[2] == []
    assert len(slow[2]) == 2


def test_a_window_the_batch_end_watermark_completes_fires_in_that_batch():
    h = BoltHarness(storm_bolt(), fields=FIELDS, watermark_per_batch=True)
    h.feed_batch([{"key": "a", "ts": 3_000, "value": 1}, {"key": "a", "ts": 16_000, "value": 2}])
    assert h.watermark == 11_000
    assert [(w.start_timestamp, w.end_timestamp) for w in h.windows] == [(-5_000, 5_000), (0, 10_000)]
    agg = BoltHarness(aggregate_bolt(), fields=FIELDS, watermark_per_batch=True)
    agg.feed_batch([{"key": "a", "ts": 3_000, "value": 1}, {"key": "a", "ts": 16_000, "value": 2}])
    assert [(v[1], v[2], v[3]) for _, v in agg.emitted] == [(-5_000, 5_000, 1), (0, 10_000, 1)]


def test_feed_alone_does_not_end_a_batch():
    h = BoltHarness(storm_bolt(), fields=FIELDS, watermark_per_batch=True)
    h.feed({"key": "a", "ts": 16_000, "value": 2})
    assert h.watermark == 0
    h.feed_batch([])
    assert h.watermark == 11_000


def test_the_batch_end_watermark_equals_the_timer_right_after_the_batch():
    """Per batch, the timer firing just after it (advance by the interval) gives the same results."""
    for make in BOLTS.values():
        by_timer = BoltHarness(make(), fields=FIELDS, state="memory://")
        for rows in TWO_FILES:
            by_timer.feed_batch(rows)
            by_timer.advance(Duration.seconds(1))
        by_timer.close()
        assert summary(by_timer) == run(make, TWO_FILES, [0, 1_000], per_batch=True)


rows = st.fixed_dictionaries({"key": st.sampled_from("abc"), "ts": st.integers(0, 60_000),
                              "value": st.integers(0, 9)})
clock = st.integers(0, 30_000)


@settings(max_examples=100, deadline=None)
@given(kind=st.sampled_from(sorted(BOLTS)), batches=st.lists(st.lists(rows, max_size=6), min_size=1, max_size=6),
       clocks=st.data())
def test_any_batches_under_any_two_clocks_give_the_same_results(kind, batches, clocks):
    first = clocks.draw(st.lists(clock, min_size=len(batches), max_size=len(batches)))
    second = clocks.draw(st.lists(clock, min_size=len(batches), max_size=len(batches)))
    assert run(BOLTS[kind], batches, first, per_batch=True) == run(BOLTS[kind], batches, second, per_batch=True)


def run_join(steps, *, per_batch):
    """A join: each batch has a click and a view; the second batch is 20 s behind the first."""
    bolt = (WindowedJoinBolt("clicks", "views", key_fields=("user",))
            .with_windows(FixedWindows(Duration.seconds(10))).with_timestamp_field("ts")
            .with_lag(Duration.seconds(5)).with_late_tuple_stream("late"))
    h = BoltHarness(bolt, fields=("user", "ts", "what"), streams=("clicks", "views"),
                    watermark_per_batch=per_batch)
    for step, ts in zip(steps, (30_000, 10_000), strict=True):
        h.advance(step)
        h.feed({"user": "u1", "ts": ts, "what": f"click@{ts}"}, stream="clicks")
        h.feed_batch([{"user": "u1", "ts": ts + 1_000, "what": f"view@{ts}"}], stream="views")
    h.close()
    return [(s, list(v[0].values) if s == "late" else v[:4]) for s, v in h.emitted]


def test_a_join_gives_the_same_panes_and_late_tuples_under_two_clocks():
    fast, slow = run_join([FAST, FAST], per_batch=True), run_join([SLOW, SLOW], per_batch=True)
    assert fast == slow
    assert [v for s, v in fast if s == "late"] == [["u1", 10_000, "click@10000"], ["u1", 11_000, "view@10000"]]
    assert [s for s, _ in run_join([FAST, FAST], per_batch=False)] == ["default", "default"]  # nothing late


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(sorted(BOLTS)), batches=st.lists(st.lists(rows, max_size=6), min_size=1, max_size=6))
def test_the_batch_end_watermark_is_the_timer_firing_right_after_each_batch(kind, batches):
    by_timer = BoltHarness(BOLTS[kind](), fields=FIELDS, state="memory://")  # watermark interval: 1 s
    for batch_rows in batches:
        by_timer.feed_batch(batch_rows)
        by_timer.advance(Duration.seconds(1))
    by_timer.close()
    assert summary(by_timer) == run(BOLTS[kind], batches, [0] + [1_000] * (len(batches) - 1), per_batch=True)
