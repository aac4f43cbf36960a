"""KIP-450's figure (seed 003): time difference 10 ms, 4 records give 7 windows; 1 ms hopping windows give 26.

Records at 10, 14, 20 and 26 ms. Windows are inclusive at both ends::

    left   [0,10]={10}  [4,14]={10,14}  [10,20]={10,14,20}  [16,26]={20,26}
    right  [11,21]={14,20}  [15,25]={20}  [21,31]={26}          -> 7 windows

Hopping windows of 10 ms every 1 ms: every start in [1, 26] holds a record -> 26.
(Records 11 ms apart would share a window: the right window of t is the left window of t + 11.)
"""

import pytest

from tests.event_time.helpers import harness, last_by_window, panes, sum_bolt
from windowing import Duration
from windowing.assigners import SlidingWindows, TimeDifferenceWindows

RECORDS = [("k", 10, 1), ("k", 14, 1), ("k", 20, 1), ("k", 26, 1)]


def _windows(assigner, records):
    h = harness(sum_bolt(assigner).with_lag(Duration(1000)))
    for r in records:
        h.feed_batch([r])
    h.close()
    return last_by_window(panes(h))


@pytest.mark.parametrize("order", [RECORDS, RECORDS[::-1], [RECORDS[2], RECORDS[0], RECORDS[3], RECORDS[1]]])
def test_figure_seven_windows_for_four_records_in_any_order(order):
    windows = _windows(TimeDifferenceWindows(Duration(10), Duration(100)), order)
    # as [start, end) with end exclusive: an inclusive [s, s+10] is [s, s+11)
    assert windows == {
        ("k", 0, 11): 1, ("k", 4, 15): 2, ("k", 10, 21): 3, ("k", 16, 27): 2,
        ("k", 11, 22): 2, ("k", 15, 26): 1, ("k", 21, 32): 1,
    }


def test_figure_counts():
    sliding = _windows(TimeDifferenceWindows(Duration(10), Duration(100)), RECORDS)
    hopping = _windows(SlidingWindows(Duration(10), Duration(1)), RECORDS)
    assert len(hopping) == 26
    assert len(sliding) == 7


def test_both_ends_inclusive():
    windows = _windows(TimeDifferenceWindows(Duration(10), Duration(100)), [("k", 0, 1), ("k", 10, 1)])
    # 0 and 10 are 10 apart: one window holds both; the right window of 0 holds 10 alone
    assert windows == {("k", -10, 1): 1, ("k", 0, 11): 2, ("k", 1, 12): 1}
