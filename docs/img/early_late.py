"""Streaming 102's Listing 5: 2-minute fixed windows, early panes every minute, a late pane per late tuple.

``squall plot docs/img/early_late.py --out docs/img/early_late.png``
"""

from squall import (
    AccumulationMode,
    AfterCount,
    AfterProcessingTime,
    AfterWatermark,
    BoltHarness,
    Duration,
    FixedWindows,
    WindowedAggregateBolt,
    aggregators,
)


def at(m, s):
    """12:mm:ss as epoch milliseconds (day 0)."""
    return ((12 * 60 + m) * 60 + s) * 1000


# (arrival, event time, score): the 9 of 12:01:25 arrives long after the watermark passed 12:02.
ROWS = [((5, 10), (0, 26), 5), ((5, 30), (2, 24), 7), ((6, 0), (3, 6), 3), ((6, 20), (3, 39), 4),
        ((6, 40), (4, 19), 3), ((7, 5), (3, 50), 8), ((7, 30), (6, 45), 8), ((8, 10), (1, 25), 9),
        ((8, 30), (7, 40), 4)]


def build_harness():
    """The harness, fed and driven: what the figure shows."""
    bolt = (WindowedAggregateBolt(aggregators.sum("score")).with_timestamp_field("ts")
            .with_windows(FixedWindows(Duration.minutes(2)))
            .with_trigger(AfterWatermark(early=AfterProcessingTime(Duration.minutes(1)), late=AfterCount(1)))
            .with_accumulation_mode(AccumulationMode.ACCUMULATING)
            .with_allowed_lateness(Duration.minutes(10)).with_lag(Duration.minutes(2)))
    h = BoltHarness(bolt, fields=("ts", "score"), start_time_ms=at(5, 0), watermark_per_batch=True)
    for (am, as_), (em, es), score in ROWS:
        h.advance_to(at(am, as_))
        h.feed_batch([{"ts": at(em, es), "score": score}])
    h.advance_to(at(10, 0))
    h.close()  # end of input: the watermark goes to the end of time and the open windows fire
    return h


PLOT_OPTIONS = {"label": "score", "title": "FixedWindows(2 min), AfterWatermark(early=1 min, late=AfterCount(1))"}
