"""Streaming 102's session walk-through and its allowed-lateness example (seed 004), tuple by tuple.

Sessions with a 1-minute gap, early firings one minute of processing time after
the first datum, a late firing per late datum, accumulating and retracting::

    event time (s)   10     60     105    150    180  200  230        290
    value             5     9*      7      8      3    4    3
    sessions       [10,70)       [105,165)      [180 ......... 290)
    after 8:                     [105 .......................... 290) = 25
    after 9 (late): [10 ............................................. 290) = 39
"""

from tests.event_time.helpers import brief, harness, panes, sum_bolt
from windowing import Duration
from windowing.accumulation import AccumulationMode
from windowing.assigners import FixedWindows, Sessions
from windowing.triggers import AfterCount, AfterProcessingTime, AfterWatermark, DefaultTrigger

S = 1000


def test_late_datum_joins_two_sessions_new_session_and_both_retractions_come_out_at_once():
    trigger = AfterWatermark(early=AfterProcessingTime(Duration.minutes(1)), late=AfterCount(1))
    bolt = (sum_bolt(Sessions(Duration.minutes(1)), mode=AccumulationMode.ACCUMULATING_AND_RETRACTING, keyed=False)
            .with_trigger(trigger).with_allowed_lateness(Duration.minutes(10)).with_lag(Duration.minutes(10)))
    h = harness(bolt)
    h.feed_batch([(None, 10 * S, 5)])
    h.feed_batch([(None, 105 * S, 7)])
    h.advance(Duration.minutes(1))  # early panes: 5 and 7
    assert [brief(p) for p in panes(h)] == [
        (None, 10 * S, 70 * S, 5, "EARLY", False), (None, 105 * S, 165 * S, 7, "EARLY", False)]
    h.feed_batch([(None, 180 * S, 3), (None, 200 * S, 4)])
    h.feed_batch([(None, 230 * S, 3)])
    mark = len(h.emitted)
    h.advance(Duration.minutes(1))  # the early firing for the merged proto-sessions: 10
    assert [brief(p) for p in panes(h, mark)] == [(None, 180 * S, 290 * S, 10, "EARLY", False)]
    h.feed_batch([(None, 150 * S, 8)])  # merges 7 and 10: nothing comes out yet
    mark = len(h.emitted)
    h.advance_watermark(300 * S)  # the watermark passes both sessions' ends
    assert [brief(p) for p in panes(h, mark)] == [
        (None, 10 * S, 70 * S, 5, "EARLY", True),
        (None, 10 * S, 70 * S, 5, "ON_TIME", False),
        (None, 105 * S, 165 * S, 7, "EARLY", True),
        (None, 180 * S, 290 * S, 10, "EARLY", True),
        (None, 105 * S, 290 * S, 25, "ON_TIME", False),
    ]
    mark = len(h.emitted)
    h.feed_batch([(None, 60 * S, 9)])  # late, within the allowed lateness: joins 5 and 25
    assert [brief(p) for p in panes(h, mark)] == [
        (None, 10 * S, 70 * S, 5, "ON_TIME", True),
        (None, 105 * S, 290 * S, 25, "ON_TIME", True),
        (None, 10 * S, 290 * S, 39, "LATE", False),
    ]
    running = sum(-p["value"] if p["is_retraction"] else p["value"] for p in panes(h))
    assert running == 39


def test_allowed_lateness_keeps_a_tuple_within_the_horizon_and_drops_one_beyond_it():
    """Figure 8: the 6 is late but within the horizon (5 becomes 11); the 9 is beyond it and dropped."""
    bolt = (sum_bolt(FixedWindows(Duration.minutes(2)), keyed=False).with_trigger(DefaultTrigger())
            .with_allowed_lateness(Duration.minutes(1)).with_late_tuple_stream("late"))
    h = harness(bolt)
    h.feed_batch([(None, 30 * S, 5)])
    h.advance_watermark(120 * S)
    assert [brief(p) for p in panes(h)] == [(None, 0, 120 * S, 5, "ON_TIME", False)]
    h.advance_watermark(150 * S)
    h.feed_batch([(None, 60 * S, 6)])  # 120 s + 1 min > 150 s: within the horizon
    assert [brief(p) for p in panes(h)][-1] == (None, 0, 120 * S, 11, "LATE", False)
    h.advance_watermark(180 * S)  # end + lateness reached: the window's state is deleted
    assert h.task.table.windows == {}
    h.feed_batch([(None, 90 * S, 9)])
    assert [brief(p)[3] for p in panes(h)] == [5, 11]
    assert [t["v"] for t in h.late] == [9]
    assert h.task.late_tuples == 1
    assert [s for s, _ in h.emitted].count("late") == 1
