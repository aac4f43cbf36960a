"""Processing-time timers of windows: due ones fire in order, past ones (left by a merge) fire at once."""

from __future__ import annotations

from tests.event_time.helpers import harness, panes, sum_bolt
from windowing import Duration
from windowing.accumulation import AccumulationMode
from windowing.assigners import FixedWindows, Sessions
from windowing.triggers import AfterAll, AfterCount, AfterProcessingTime, Repeatedly


def test_a_merge_that_keeps_a_passed_deadline_fires_without_moving_time_back():
    """A deadline can pass without the trigger firing (AfterAll waits for its count); a merge keeps it.

    Before issue 14 this used a closed session, which merged then; under Beam's rules a closed
    session does not merge, so the passed deadline now comes from an open part.
    """
    bolt = (
        sum_bolt(Sessions(Duration(15)), mode=AccumulationMode.ACCUMULATING)
        .with_trigger(AfterAll(AfterProcessingTime(Duration(100)), AfterCount(3)))
        .with_allowed_lateness(Duration(1000))
    )
    h = harness(bolt)
    h.feed_batch([("a", 0, 1)])  # session [0, 15), deadline 100
    h.advance_to(150)  # the deadline passes at 100; AfterAll still waits for 3 tuples
    h.feed_batch([("a", 24, 2)])  # session [24, 39), deadline 250
    h.advance_to(200)
    h.feed_batch([("a", 10, 4)])  # joins both: the merged session keeps the earliest deadline, 100, now passed
    h.advance_to(220)  # it fires at the next step, at 200, not at 250
    got = [(p["window_start"], p["window_end"], p["value"]) for p in panes(h)]
    assert got == [(0, 39, 7)]


def test_timers_of_many_windows_fire_at_their_instants_in_creation_order():
    bolt = sum_bolt(FixedWindows(Duration(10)), mode=AccumulationMode.DISCARDING).with_trigger(
        Repeatedly(AfterProcessingTime(Duration(100)))
    )
    h = harness(bolt)
    h.feed_batch([("b", 15, 1), ("a", 5, 2)])
    h.advance_to(50)
    h.feed_batch([("a", 25, 3)])
    h.advance_to(120)  # the first two windows fire at 100; the third one waits for 150
    assert [(p["key"], p["window_start"], p["value"]) for p in panes(h)] == [("b", 10, 1), ("a", 0, 2)]
    h.advance_to(150)
    assert [(p["key"], p["window_start"], p["value"]) for p in panes(h)][2:] == [("a", 20, 3)]
