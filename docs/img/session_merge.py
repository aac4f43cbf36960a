"""Streaming 102's Listing 11: sessions with a 1-minute gap, early and late firings, accumulating and retracting.

``squall plot docs/img/session_merge.py --out docs/img/session_merge.png``
"""

from squall import (
    AccumulationMode,
    AfterCount,
    AfterProcessingTime,
    AfterWatermark,
    BoltHarness,
    Duration,
    Sessions,
    WindowedAggregateBolt,
    aggregators,
)

S = 1000
# (arrival, [(event time, score), ...] of one micro-batch), in seconds; the watermark comes from upstream.
STEPS = [(5, [(10, 5)]), (20, [(105, 7)]), (60, "watermark", 40), (90, [(180, 3), (200, 4)]), (100, [(230, 3)]),
         (120, "watermark", 60), (170, [(150, 8)]), (180, "watermark", 300), (225, [(60, 9)])]


def build_harness():
    """The harness, fed and driven: what the figure shows."""
    bolt = (WindowedAggregateBolt(aggregators.sum("score")).with_timestamp_field("ts")
            .with_windows(Sessions(Duration.minutes(1)))
            .with_trigger(AfterWatermark(early=AfterProcessingTime(Duration.minutes(1)), late=AfterCount(1)))
            .with_accumulation_mode(AccumulationMode.ACCUMULATING_AND_RETRACTING)
            .with_allowed_lateness(Duration.minutes(10)).with_lag(Duration.minutes(10)))
    h = BoltHarness(bolt, fields=("ts", "score"))
    for arrival, *step in STEPS:
        h.advance_to(arrival * S)
        if step[0] == "watermark":
            h.advance_watermark(step[1] * S)
        else:
            h.feed_batch([{"ts": ts * S, "score": score} for ts, score in step[0]])
    h.advance_to(255 * S)
    return h


PLOT_OPTIONS = {
    "label": "score",
    "title": "Sessions(1 min), early every minute, late per tuple, retracting",
    "figsize": (9, 6),
}
