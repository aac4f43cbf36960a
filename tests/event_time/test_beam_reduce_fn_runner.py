"""Beam Java's ``ReduceFnRunnerTest`` cases for holds, closing behaviour and merging, replayed on squall.

Each test names the Java test method it replays (apache/beam,
``runners/core-java/src/test/java/org/apache/beam/runners/core/ReduceFnRunnerTest.java``). Java's
``injectElement(tester, n)`` adds the value ``n`` at timestamp ``n``; here a row ``("a", n, n)`` does
the same, and the values are summed where Java lists them. Java's mocked trigger (told per element
whether to fire) becomes a real trigger that fires at the same points. squall consults triggers once
per micro-batch, so the elements Java injects together form one batch. Watermarks map one to one:
squall's watermark ``w`` is Java's input watermark ``w``; a window ``[start, end)`` fires when the
watermark reaches ``end``, as Java's end-of-window timer at ``end - 1`` fires once the input watermark
passes it; timestamps ``end - 1`` are Java's ``window.maxTimestamp()``.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

import pytest

from bolts.aggregate.holds import holding
from tests.event_time.helpers import harness, panes, sum_bolt
from windowing import Duration
from windowing.accumulation import AccumulationMode as M
from windowing.assigners import FixedWindows, Sessions
from windowing.triggers import (
    AfterAny,
    AfterCount,
    AfterEach,
    AfterProcessingTime,
    AfterWatermark,
    DefaultTrigger,
    Never,
    Repeatedly,
)


def bolt(
    assigner: Any,
    trigger: Any,
    *,
    mode: M = M.ACCUMULATING,
    lateness: int = 0,
    combiner: str = "earliest",
    closing: str = "fire_if_non_empty",
    on_time: str = "fire_always",
) -> Any:
    return (
        sum_bolt(assigner, mode=mode)
        .with_trigger(trigger)
        .with_allowed_lateness(Duration(lateness))
        .with_timestamp_combiner(combiner)
        .with_closing_behavior(closing)
        .with_on_time_behavior(on_time)
        .with_lag(Duration(100_000))
    )


def rows(*timestamps: int) -> list[tuple[str, int, int]]:
    return [("a", ts, ts) for ts in timestamps]


def out(h: Any, start: int = 0) -> list[tuple[Any, ...]]:
    """(value, timestamp, window_start, window_end, (timing, index, nonspeculative, is_last)) per pane."""
    return [
        (p["value"], p["timestamp"], p["window_start"], p["window_end"], tuple(p["pane"]))
        for p in panes(h, start)
        if not p["is_retraction"]
    ]


FIXED = FixedWindows(Duration(10))
SESSIONS = Sessions(Duration(10))


# Output timestamps from watermark holds -------------------------------------------------------------
def test_watermark_hold_and_late_data():
    """testWatermarkHoldAndLateData: a pane's timestamp combines only the elements since the last pane that were
    not behind the output watermark; a pane of late elements only is stamped at the end of the window (9).

    Java's stream and values: its mocked trigger fires on the 3rd element of the first bundle (1, 3, 2) and the
    4th of the second (2, 3, 5, 4), then at the end of the window;
    ``AfterWatermark(early=AfterEach(AfterCount(3), AfterCount(4), Never()), late=Never())`` fires at the same
    points. The third pane is ON_TIME (Java holds the output watermark back with its mocked timers; here the
    output watermark, 8, is before the end), the garbage-collection pane LATE; nothing is dropped.
    """
    trigger = AfterWatermark(early=AfterEach(AfterCount(3), AfterCount(4), Never()), late=Never())
    h = harness(bolt(FIXED, trigger, lateness=10))
    h.advance_watermark(0)
    h.feed_batch(rows(1, 3, 2))  # all on time: earliest 1
    h.advance_watermark(4)
    h.feed_batch(rows(2, 3, 5, 4))  # 2 and 3 are behind the output watermark; 5 and 4 hold: earliest 4
    h.advance_watermark(8)
    h.feed_batch(rows(6, 5, 4))  # all behind the output watermark (8): no element hold
    h.advance_watermark(10)  # the ON_TIME pane, stamped at the end of the window
    h.feed_batch(rows(8))  # late: end of window
    h.advance_watermark(50)
    assert out(h) == [
        (6, 1, 0, 10, ("EARLY", 0, -1, False)),
        (20, 4, 0, 10, ("EARLY", 1, -1, False)),
        (35, 9, 0, 10, ("ON_TIME", 2, 0, False)),
        (43, 9, 0, 10, ("LATE", 3, 1, True)),
    ]
    assert (h.task.closed_window_drops, h.task.late_tuples) == (0, 0)


def test_output_watermark_holds_a_later_tuple():
    """The window's own hold keeps the output watermark back (``WatermarkHold.addElementHold`` compares with the
    output watermark, not the input one): with ``latest``, 30 arrives behind the input watermark (50) but not
    behind the output watermark (10, held by the 10), so it holds and stamps the pane."""
    h = harness(bolt(FixedWindows(Duration(100)), AfterWatermark(), combiner="latest"))
    h.advance_watermark(0)
    h.feed_batch(rows(10))
    h.advance_watermark(50)
    h.feed_batch(rows(30))
    h.advance_watermark(100)
    assert out(h) == [(40, 30, 0, 100, ("ON_TIME", 0, 0, True))]


def test_a_pane_after_the_holds_were_released_past_the_end_is_late():
    """An EARLY pane releases the holds (``WatermarkHold.extractAndRelease``); the watermark then passes the end
    with no pane, so the output watermark passes the window and the next pane is LATE
    (``PaneInfoTracker.describePane``: ``isLateForOutput``)."""
    h = harness(bolt(FIXED, Repeatedly(AfterCount(1)), lateness=100))
    h.advance_watermark(0)
    h.feed_batch(rows(1))
    h.advance_watermark(20)
    h.feed_batch(rows(5))
    assert out(h) == [(1, 1, 0, 10, ("EARLY", 0, -1, False)), (6, 9, 0, 10, ("LATE", 1, 0, False))]


def test_no_empty_late_pane_at_collection():
    """After an EARLY pane and no data since, the garbage-collection pane is LATE and empty, so it is not
    emitted (``ReduceFnRunner.needToEmit``): the ON_TIME-when-empty rule does not apply."""
    h = harness(bolt(FIXED, Repeatedly(AfterCount(2)), lateness=100))
    h.advance_watermark(0)
    h.feed_batch(rows(1, 2))
    h.advance_watermark(20)
    h.advance_watermark(200)
    assert out(h) == [(3, 1, 0, 10, ("EARLY", 0, -1, False))]


def test_processing_time():
    """testProcessingTime: early panes every 5 ms of processing time until the watermark, then every 25 ms."""
    trigger = AfterEach(
        Repeatedly(AfterProcessingTime(Duration(5))).or_finally(AfterWatermark()),
        Repeatedly(AfterProcessingTime(Duration(25))),
    )
    h = harness(bolt(FIXED, trigger, lateness=100))
    one = lambda *ts: [("a", t, 1) for t in ts]  # noqa: E731 - Java injects value 1 here
    h.advance_watermark(0)
    h.feed_batch(one(1, 3, 7, 5))
    h.advance_to(6)
    h.feed_batch(one(8, 4))
    h.advance_watermark(11)
    h.feed_batch(one(8, 4, 5))
    h.advance_watermark(12)
    h.feed_batch(one(3))
    h.advance_to(15)
    h.feed_batch(one(5))
    h.advance_to(32)
    h.feed_batch(one(3))
    h.advance_watermark(125)
    assert out(h) == [
        (4, 1, 0, 10, ("EARLY", 0, -1, False)),
        (6, 4, 0, 10, ("ON_TIME", 1, 0, False)),
        (11, 9, 0, 10, ("LATE", 2, 1, False)),
        (12, 9, 0, 10, ("LATE", 3, 2, True)),
    ]


def test_garbage_collection_hold_on_late_elements():
    """setGarbageCollectionHoldOnLateElements: a tuple behind the output watermark adds the garbage-collection
    hold, so its pane, fired at collection, is emitted (LATE, stamped at the end of the window). The hold is at
    Java's 109 (``end - 1 + lateness``)."""
    trigger = AfterWatermark(late=AfterCount(2))
    h = harness(bolt(FIXED, trigger, mode=M.DISCARDING, lateness=100, combiner="end_of_window"))
    h.advance_watermark(0)
    h.feed_batch(rows(1))
    h.advance_watermark(109)
    h.feed_batch(rows(2))
    [window] = h.task.table.windows.values()
    assert holding(window, "end_of_window") == 109
    h.advance_watermark(110)
    assert out(h) == [(1, 9, 0, 10, ("ON_TIME", 0, 0, False)), (2, 9, 0, 10, ("LATE", 1, 1, True))]


@pytest.mark.parametrize(
    ("combiner", "expected"), [("earliest", [1, 4, 9]), ("latest", [3, 5, 9]), ("end_of_window", [9, 9, 9])]
)
def test_accumulating_panes_take_their_own_holds(combiner, expected):
    """The holds are released at every pane in every mode (``WatermarkHold.extractAndRelease``): an accumulating
    pane after new data does not keep the first pane's timestamp. Same stream as testWatermarkHoldAndLateData."""
    h = harness(bolt(FIXED, Repeatedly(AfterCount(1)), lateness=10, combiner=combiner))
    h.feed_batch(rows(1, 3, 2))
    h.advance_watermark(4)
    h.feed_batch(rows(2, 3, 5, 4))
    h.advance_watermark(8)
    h.feed_batch(rows(6, 5, 4))
    assert [ts for _, ts, *_ in out(h)] == expected


# Closing and on-time behaviour ------------------------------------------------------------------------
@pytest.mark.parametrize("closing", ["fire_always", "fire_if_non_empty"])
@pytest.mark.parametrize(("assigner", "window"), [(FIXED, (0, 10)), (SESSIONS, (1, 11))])
def test_end_of_window_and_gc_together(closing, assigner, window):
    """testFixedWindowsEowAndGcTogether, testFixedWindowsEowAndGcTogetherFireIfNonEmpty, testSessionEowAndGcTogether:
    one watermark step past both the end and the garbage collection time gives one ON_TIME, final pane."""
    h = harness(bolt(assigner, DefaultTrigger(), lateness=50, closing=closing))
    h.advance_watermark(0)
    h.feed_batch(rows(1))
    h.advance_watermark(100)
    assert out(h) == [(1, 1, *window, ("ON_TIME", 0, 0, True))]


@pytest.mark.parametrize(("mode", "values"), [(M.DISCARDING, (3, 0, 0)), (M.ACCUMULATING, (3, 3, 3))])
def test_pane_info_all_states_after_watermark(mode, values):
    """testPaneInfoAllStatesAfterWatermark, testPaneInfoAllStatesAfterWatermarkAccumulating: with
    ``fire_always`` the empty ON_TIME pane and the empty final pane are emitted, stamped at the end of the window."""
    trigger = Repeatedly(AfterAny(AfterCount(2), AfterWatermark()))
    h = harness(bolt(FIXED, trigger, mode=mode, lateness=100, closing="fire_always"))
    h.advance_watermark(0)
    h.feed_batch(rows(1, 2))
    h.advance_watermark(50)
    h.advance_watermark(150)
    assert out(h) == [
        (values[0], 1, 0, 10, ("EARLY", 0, -1, False)),
        (values[1], 9, 0, 10, ("ON_TIME", 1, 0, False)),
        (values[2], 9, 0, 10, ("LATE", 2, 1, True)),
    ]


@pytest.mark.parametrize(("closing", "count"), [("fire_if_non_empty", 2), ("fire_always", 3)])
def test_no_empty_panes_final(closing, count):
    """noEmptyPanesFinalIfNonEmpty, noEmptyPanesFinalAlways: the empty final pane only with ``fire_always``."""
    trigger = Repeatedly(AfterAny(AfterCount(2), AfterWatermark()))
    h = harness(bolt(FIXED, trigger, lateness=100, closing=closing))
    h.advance_watermark(0)
    h.feed_batch(rows(1, 2))
    h.advance_watermark(20)
    h.advance_watermark(250)
    assert out(h) == [
        (3, 1, 0, 10, ("EARLY", 0, -1, False)),
        (3, 9, 0, 10, ("ON_TIME", 1, 0, False)),
        (3, 9, 0, 10, ("LATE", 2, 1, True)),
    ][:count]


def test_pane_info_final_and_on_time():
    """testPaneInfoFinalAndOnTime: the ``or_finally`` watermark fires an empty pane that is both ON_TIME and last."""
    trigger = Repeatedly(AfterCount(2)).or_finally(AfterWatermark())
    h = harness(bolt(FIXED, trigger, mode=M.DISCARDING, lateness=100, combiner="end_of_window", closing="fire_always"))
    h.advance_watermark(0)
    h.feed_batch(rows(1, 2))
    h.advance_watermark(150)
    assert [pane for *_, pane in out(h)] == [("EARLY", 0, -1, False), ("ON_TIME", 1, 0, True)]


def _early_then_on_time(**options: Any) -> Any:
    trigger = AfterEach(
        Repeatedly(AfterProcessingTime(Duration(5))).or_finally(AfterWatermark()),
        Repeatedly(AfterProcessingTime(Duration(25))),
    )
    h = harness(bolt(FIXED, trigger, lateness=100, **options))
    h.advance_watermark(0)
    h.feed_batch([("a", 1, 1), ("a", 3, 1), ("a", 7, 1), ("a", 5, 1)])
    h.advance_to(6)  # the early pane
    h.advance_watermark(11)  # the on-time moment, with nothing new
    return h


def test_empty_on_time_from_or_finally():
    """testEmptyOnTimeFromOrFinally: under the default ``fire_always`` the empty ON_TIME pane is emitted."""
    h = _early_then_on_time()
    assert out(h) == [(4, 1, 0, 10, ("EARLY", 0, -1, False)), (4, 9, 0, 10, ("ON_TIME", 1, 0, False))]


def test_empty_on_time_with_on_time_behavior_fire_if_non_empty():
    """testEmptyOnTimeWithOnTimeBehaviorFireIfNonEmpty: no empty ON_TIME pane; the empty final pane
    (``fire_always`` closing) comes at garbage collection and is LATE, since the on-time moment has passed."""
    h = _early_then_on_time(closing="fire_always", on_time="fire_if_non_empty")
    h.advance_watermark(110)
    assert out(h) == [(4, 1, 0, 10, ("EARLY", 0, -1, False)), (4, 9, 0, 10, ("LATE", 1, 0, True))]


def test_empty_on_time_with_on_time_behavior_fire_if_non_empty_and_late_data():
    """testEmptyOnTimeWithOnTimeBehaviorFireIfNonEmptyAndLateData: after the skipped on-time pane, late data
    fires a LATE pane stamped at the end of the window (the 9 is behind the watermark, 11)."""
    h = _early_then_on_time(on_time="fire_if_non_empty")
    h.feed_batch([("a", 9, 1)])
    h.advance_to(6 + 25 + 1)
    assert out(h) == [(4, 1, 0, 10, ("EARLY", 0, -1, False)), (5, 9, 0, 10, ("LATE", 1, 0, False))]


def test_empty_on_time_with_on_time_behavior_backward_compatibility():
    """testEmptyOnTimeWithOnTimeBehaviorBackwardCompatibility: the defaults (closing ``fire_if_non_empty``,
    on time ``fire_always``) emit the empty ON_TIME pane that is also the last."""
    h = harness(bolt(FIXED, AfterWatermark(early=AfterCount(1))))
    h.advance_watermark(0)
    h.feed_batch(rows(1))
    h.advance_watermark(11)
    assert [pane for *_, pane in out(h)] == [("EARLY", 0, -1, False), ("ON_TIME", 1, 0, True)]


# Merging ---------------------------------------------------------------------------------------------
def test_merge_before_finalizing():
    """testMergeBeforeFinalizing: [1, 11) and [10, 20) merge before any output; one ON_TIME pane at 1."""
    h = harness(bolt(SESSIONS, DefaultTrigger(), mode=M.DISCARDING))
    h.feed_batch(rows(1, 10))
    h.advance_watermark(100)
    assert out(h) == [(11, 1, 1, 20, ("ON_TIME", 0, 0, True))]


def test_merging_with_close_before_gc():
    """testMergingWithCloseBeforeGC: the merged window's trigger finishes before its garbage collection."""
    h = harness(bolt(SESSIONS, AfterWatermark(), mode=M.DISCARDING, lateness=50))
    h.feed_batch(rows(1, 10))
    h.advance_watermark(30)
    h.advance_watermark(100)
    assert out(h) == [(11, 1, 1, 20, ("ON_TIME", 0, 0, True))]


def test_merging_with_reused_window():
    """testMergingWithReusedWindow: an element for a closed session's exact window is dropped as closed."""
    h = harness(bolt(SESSIONS, AfterWatermark(), mode=M.DISCARDING, lateness=50))
    h.feed_batch(rows(1))
    h.advance_watermark(15)
    h.feed_batch(rows(1))
    assert h.task.closed_window_drops == 1
    h.advance_watermark(100)
    assert out(h) == [(1, 1, 1, 11, ("ON_TIME", 0, 0, True))]
    assert not h.task.table.windows  # hasNoActiveWindows: the closed session was collected


@pytest.mark.parametrize("bundle", list(permutations((1, 2, 8))))
def test_merging_with_closed_representative(bundle):
    """testMergingWithClosedRepresentative: the second bundle's sessions merge into [1, 18), the bounds of the
    closed session: the open parts are lost and all three elements are dropped as closed.

    In any order: Java merges the whole bundle's windows (``ReduceFnRunner.processElements``, ``mergeWindows``)
    before it asks, per element, whether its merged window is closed.
    """
    h = harness(bolt(SESSIONS, AfterCount(1), mode=M.DISCARDING, lateness=50))
    h.feed_batch(rows(1, 8))
    h.feed_batch(rows(*bundle))
    h.advance_watermark(100)
    assert out(h) == [(9, 1, 1, 18, ("EARLY", 0, -1, True))]
    assert h.task.closed_window_drops == 3
    assert not h.task.table.windows


def test_a_closed_session_stays_out_of_the_merge_index_across_a_restart():
    """A closed session is not active (Beam's ``MergingActiveWindowSet``) also after a snapshot and restore:
    a proto-session overlapping it opens a new session instead of joining or being dropped."""
    h = harness(bolt(SESSIONS, AfterCount(1), mode=M.DISCARDING, lateness=50))
    h.feed_batch(rows(1))  # [1, 11) fires and closes
    state = h.task.snapshot()
    h2 = harness(bolt(SESSIONS, AfterCount(1), mode=M.DISCARDING, lateness=50))
    h2.task.restore(state)
    assert h2.task.table.sessions.get(("a",), []) == []
    h2.feed_batch(rows(5))  # [5, 15) overlaps the closed [1, 11) only
    assert out(h2) == [(5, 5, 5, 15, ("EARLY", 0, -1, True))]
    assert h2.task.closed_window_drops == 0


@pytest.mark.parametrize("bundle", list(permutations((1, 2, 3))))
def test_merging_with_closed_does_not_poison(bundle):
    """testMergingWithClosedDoesNotPoison: the closed [2, 12) takes no part in merging, so the open
    sessions the next elements make merge into [1, 13), which closes normally.

    Java closes the first window with its mocked trigger; ``AfterProcessingTime(10)`` does it here. In any
    order: the bundle's windows merge before any element is placed, so the 2 is not dropped for meeting the
    closed [2, 12) on its own.
    """
    h = harness(
        bolt(SESSIONS, AfterAny(AfterProcessingTime(Duration(10)), AfterWatermark()), mode=M.DISCARDING, lateness=50)
    )
    h.feed_batch(rows(2))
    h.advance_to(10)
    h.feed_batch(rows(*bundle))
    h.advance_watermark(100)
    assert out(h) == [(2, 2, 2, 12, ("EARLY", 0, -1, True)), (6, 1, 1, 13, ("ON_TIME", 0, 0, True))]
    assert h.task.closed_window_drops == 0


def test_a_merged_window_restarts_its_panes_and_keeps_finished_once_triggers():
    """``ReduceFnRunner.OnMergeCallback.onMerge`` clears the parts' pane info, so the merged window's first pane
    has index 0; ``AfterPaneStateMachine.onMerge`` keeps an ``AfterCount`` finished in any part finished.

    With merging windows ``AfterEachStateMachine`` runs every child on each element and clears them all at
    each pane. [0, 15) fired its AfterCount(1); [20, 35) has not, and its AfterCount(2) counted the 20 too.
    The 10 merges them: AfterCount(1) stays finished, AfterCount(2) has 2 tuples and fires, the last pane.
    The 30 then starts a session of its own.
    """
    h = harness(bolt(Sessions(Duration(15)), AfterEach(AfterCount(1), AfterCount(2)), lateness=100))
    h.feed_batch(rows(0))
    h.feed_batch([*rows(20), *rows(10)])
    assert out(h) == [(0, 0, 0, 15, ("EARLY", 0, -1, False)), (30, 10, 0, 35, ("EARLY", 0, -1, True))]
    h.feed_batch(rows(30))
    assert out(h)[2:] == [(30, 30, 30, 45, ("EARLY", 0, -1, False))]


def test_after_processing_time_comes_back_after_a_merge():
    """``AfterDelayFromFirstElementStateMachine.onMerge`` looks at the merged window's own finished bit (clear,
    the window is new): an ``AfterProcessingTime`` that fired in a part comes back, due at the earliest delay
    left in the parts (11, from the 12: the fired part's delay was cleared by ``AfterEach`` at its pane)."""
    h = harness(bolt(SESSIONS, AfterEach(AfterProcessingTime(Duration(5)), AfterCount(2)), lateness=100))
    h.feed_batch(rows(0))
    h.advance_to(6)  # [0, 10) fires
    h.feed_batch(rows(12))
    h.advance_to(7)
    h.feed_batch(rows(8))  # [0, 10) + [8, 18) + [12, 22)
    h.advance_to(13)
    assert out(h) == [(0, 0, 0, 10, ("EARLY", 0, -1, False)), (20, 8, 0, 22, ("EARLY", 0, -1, False))]


def test_a_window_merged_after_its_end_is_on_time_while_its_parts_hold():
    """``WatermarkHold.onMerge`` carries the parts' element holds into the merged window: the output
    watermark stays at 0, so the merged window's first pane is ON_TIME though the input watermark (30) has
    passed its end."""
    h = harness(bolt(SESSIONS, Repeatedly(AfterCount(2)), lateness=100))
    h.advance_watermark(0)
    h.feed_batch(rows(0))
    h.feed_batch(rows(15))
    h.advance_watermark(30)
    h.feed_batch(rows(8))
    assert out(h) == [(23, 0, 0, 25, ("ON_TIME", 0, 0, False))]


def test_the_first_pane_of_a_window_merged_after_its_end_is_late():
    """A merge after the watermark passed the merged window's end: its first pane is LATE, index 0
    (``PaneInfoTracker.describePane`` with no previous pane, the window's end behind the watermark)."""
    h = harness(bolt(SESSIONS, DefaultTrigger(), lateness=100))
    h.feed_batch(rows(0))
    h.feed_batch(rows(15))
    h.advance_watermark(30)
    h.feed_batch(rows(8))  # [8, 18) joins [0, 10) and [15, 25)
    assert out(h) == [
        (0, 0, 0, 10, ("ON_TIME", 0, 0, False)),
        (15, 15, 15, 25, ("ON_TIME", 0, 0, False)),
        (23, 24, 0, 25, ("LATE", 0, 0, False)),
    ]


def test_after_each_keeps_after_watermarks_late_phase_in_merging_windows():
    """``AfterEachStateMachine`` clears every child at each pane in merging windows, but Java keeps
    ``AfterWatermark``'s phase as its early child's finished bit, which ``TriggerStateMachine.clear`` keeps:
    after the ON_TIME pane the late ``AfterCount(2)`` still counts late tuples (a LATE pane every second one)."""
    trigger = AfterEach(AfterWatermark(late=AfterCount(2)), AfterCount(1))
    h = harness(bolt(SESSIONS, trigger, mode=M.DISCARDING, lateness=100))
    h.advance_watermark(0)
    h.feed_batch(rows(1))
    h.advance_watermark(20)
    assert out(h) == [(1, 1, 1, 11, ("ON_TIME", 0, 0, False))]
    seen = []
    for _ in range(3):
        mark = len(h.emitted)
        h.feed_batch(rows(1))
        seen.append(out(h, mark))
    assert seen == [[], [(2, 10, 1, 11, ("LATE", 1, 1, False))], []]


def test_holds_of_sessions_lost_to_a_closed_one_are_released():
    """A deliberate difference (docs/event-time.md): Java keeps the holds of the open parts a merge onto a closed
    session's bounds loses, and never releases them (its output watermark stays at 8: ON_TIME at 70, EARLY
    stamped 95). squall deletes them with the parts, so the output watermark moves on to 100."""
    h = harness(bolt(SESSIONS, AfterCount(2), mode=M.DISCARDING, lateness=50))
    h.feed_batch(rows(1, 8))  # [1, 18) fires and closes
    h.feed_batch(rows(8))  # opens [8, 18), holding at 8
    h.feed_batch(rows(1))  # merges into the closed [1, 18): [8, 18) is lost, the 1 dropped
    assert h.task.closed_window_drops == 1
    h.advance_watermark(100)
    assert h.task.table.output_watermark(("a",)) == 100
    mark = len(h.emitted)
    h.feed_batch([("a", 60, 1), ("a", 61, 1)])
    h.feed_batch([("a", 95, 1), ("a", 96, 1)])
    assert out(h, mark) == [(2, 70, 60, 71, ("LATE", 0, 0, True)), (2, 105, 95, 106, ("EARLY", 0, -1, True))]


def test_a_merge_back_to_the_early_phase_clears_a_count_finished_by_the_on_time_pane():
    """``AfterWatermarkEarlyAndLate``: the on-time pane sets the early child's finished bit, which it keeps in
    the late phase; merging a late-phase [0, 10) with an early-phase [12, 22), ``AfterPaneStateMachine.onMerge``
    sees the count finished in a merging window and clears it (then the early child is unfinished): the tuple
    at 9 makes no EARLY pane, and the merged window's one pane is ON_TIME with index 0."""
    h = harness(bolt(SESSIONS, AfterWatermark(early=AfterCount(2), late=AfterCount(1)), lateness=100))
    h.advance_watermark(0)
    h.feed_batch([("a", 0, 1)])
    h.advance_watermark(15)
    h.feed_batch([("a", 12, 1)])
    mark = len(h.emitted)
    h.feed_batch([("a", 9, 1)])  # merges everything into [0, 22)
    assert out(h, mark) == []
    h.advance_watermark(30)
    assert out(h, mark) == [(3, 21, 0, 22, ("ON_TIME", 0, 0, False))]


def test_the_early_delay_runs_in_the_late_phase_of_merging_windows():
    """``AfterWatermarkEarlyAndLate.onElement`` feeds both children when windows merge: the late tuple at
    processing time 1 starts the early ``AfterProcessingTime(5)`` of the late-phase [0, 10) (due at 6), so the
    window merged at 5 fires EARLY at 6, not at 9 (the delay of [12, 22)). Java fires at 7: squall's
    ``AfterProcessingTime`` is due at its deadline, Java's strictly after it (docs/event-time.md)."""
    trigger = AfterWatermark(early=AfterProcessingTime(Duration(5)), late=AfterCount(1))
    h = harness(bolt(SESSIONS, trigger, lateness=100))
    h.advance_watermark(0)
    h.feed_batch([("a", 0, 1)])
    h.advance_watermark(15)
    h.advance_to(1)
    h.feed_batch([("a", 0, 1)])  # LATE in [0, 10)
    h.advance_to(4)
    h.feed_batch([("a", 12, 1)])
    h.advance_to(5)
    h.feed_batch([("a", 9, 1)])  # merges everything into [0, 22)
    mark = len(h.emitted)
    h.advance_to(5)
    assert out(h, mark) == []
    h.advance_to(6)
    assert out(h, mark) == [(4, 21, 0, 22, ("EARLY", 0, -1, False))]


def test_after_processing_time_is_due_at_its_deadline():
    """A deliberate difference (docs/event-time.md): squall fires at first tuple + delay, Java
    (``AfterDelayFromFirstElementStateMachine.shouldFire``, ``isAfter``) one millisecond later; the Streaming 102
    walk-through (test_seed_streaming102.py) has its early panes exactly at the delay."""
    h = harness(bolt(FIXED, Repeatedly(AfterProcessingTime(Duration(5)))))
    h.feed_batch(rows(1))
    h.advance_to(4)
    assert out(h) == []
    h.advance_to(5)
    assert out(h) == [(1, 1, 0, 10, ("EARLY", 0, -1, False))]
