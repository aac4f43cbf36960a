"""Apex WindowedOperator's three session-merge cases, with retractions (seed 000).

Gap 10 ms, ACCUMULATING_AND_RETRACTING, a pane after every batch::

    t=0  ->  [0,10)                        new proto-session
    t=15 ->  [15,25)                       new proto-session
    t=20 ->  [15,25) fits? no: [20,30) overlaps one session -> [15,30), retract [15,25)
    t=22 ->  [22,32) overlaps one -> [15,32)             (extends again)
    t=17 ->  [17,27) inside [15,32): applied to its state, retract its own last pane
    t=7  ->  [7,17) overlaps [0,10) and [15,32) -> [0,32), retract both
"""

from tests.event_time.helpers import brief, harness, panes, sum_bolt
from windowing import Duration
from windowing.accumulation import AccumulationMode
from windowing.assigners import Sessions
from windowing.triggers import AfterCount, Repeatedly

AR = AccumulationMode.ACCUMULATING_AND_RETRACTING


def _h():
    bolt = sum_bolt(Sessions(Duration(10)), mode=AR).with_trigger(Repeatedly(AfterCount(1)))
    return harness(bolt.with_allowed_lateness(Duration(1000)))


def test_new_proto_sessions_and_extension_of_one_session_retracts_it():
    h = _h()
    h.feed_batch([("u", 0, 1)])
    h.feed_batch([("u", 15, 2)])
    assert [brief(p) for p in panes(h)] == [("u", 0, 10, 1, "EARLY", False), ("u", 15, 25, 2, "EARLY", False)]
    mark = len(h.emitted)
    h.feed_batch([("u", 20, 3)])  # overlaps one session: a longer session replaces it
    assert [brief(p) for p in panes(h, mark)] == [("u", 15, 25, 2, "EARLY", True), ("u", 15, 30, 5, "EARLY", False)]


def test_proto_session_inside_a_session_only_updates_it():
    h = _h()
    h.feed_batch([("u", 15, 2), ("u", 22, 3)])
    mark = len(h.emitted)
    h.feed_batch([("u", 17, 4)])  # [17,27) fits in [15,32)
    assert [brief(p) for p in panes(h, mark)] == [("u", 15, 32, 5, "EARLY", True), ("u", 15, 32, 9, "EARLY", False)]


def test_proto_session_overlapping_two_sessions_merges_them_and_retracts_both():
    h = _h()
    h.feed_batch([("u", 0, 1), ("u", 15, 2)])
    mark = len(h.emitted)
    h.feed_batch([("u", 7, 4)])
    out = [brief(p) for p in panes(h, mark)]
    assert out == [("u", 0, 10, 1, "EARLY", True), ("u", 15, 25, 2, "EARLY", True), ("u", 0, 25, 7, "EARLY", False)]
    assert len(h.task.table.windows) == 1


def test_keys_do_not_merge_and_touching_sessions_stay_apart():
    h = _h()
    h.feed_batch([("u", 0, 1), ("v", 5, 1), ("u", 10, 1)])  # [0,10) and [10,20) touch only
    assert sorted(brief(p)[:4] for p in panes(h)) == [("u", 0, 10, 1), ("u", 10, 20, 1), ("v", 5, 15, 1)]
