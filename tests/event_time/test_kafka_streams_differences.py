"""Where TimeDifferenceWindows and Kafka Streams' SlidingWindows give different windows on the same records.

docs/event-time.md ("KIP-450 sliding windows") states both places; these tests pin them. Each
case holds squall's windows (asserted by running the bolt) and Kafka Streams' windows, derived by
hand from ``KStreamSlidingWindowAggregate`` (apache/kafka, streams/.../kstream/internals), so the
difference between the two is fixed here and a change on either side shows.

Windows are written as Kafka writes them, ``[start, end]`` with both ends inclusive
(``end = start + d``; squall's ``window_end`` is ``end + 1``), mapped to the sorted timestamps
they hold. Records come one per micro-batch with ``with_lag(0)`` and ``watermark_per_batch``, so
squall's watermark before a record is the largest timestamp so far: Kafka's stream time. Both
then use the same rules for dropping a record (``ts + d + 1 <= stream time - grace``) and for
closing a window (``end < stream time - grace``).
"""

import pytest

from tests.event_time.helpers import harness, last_by_window, panes, sum_bolt
from windowing import Duration, aggregators
from windowing.assigners import TimeDifferenceWindows

Windows = dict[tuple[int, int], list[int]]


def squall_windows(d: int, grace: int, times: list[int], batch: int = 1) -> Windows:
    """Every window's final contents, [start, end] inclusive -> sorted timestamps; nothing may be late."""
    bolt = sum_bolt(TimeDifferenceWindows(Duration(d), Duration(grace)), aggregator=aggregators.collect("ts"))
    h = harness(bolt.with_lag(Duration(0)), watermark_per_batch=True)
    for i in range(0, len(times), batch):
        h.feed_batch([("k", ts, 1) for ts in times[i : i + batch]])
    h.close()
    assert h.late == []
    return {(start, end - 1): sorted(v) for (_, start, end), v in last_by_window(panes(h)).items()}


# --- (a) records with timestamps below the time difference ------------------------------------
#
#   d = 10, records 2, 5, 8 (all below d)
#
#   -8    -5    -2  0  2  3  5  6  8  10    13    16
#    [--------------2]                              squall: left window of 2
#          [--------------5]                        squall: left window of 5
#                [--------------8]                  squall: left window of 8
#                   [0----------------10]           Kafka:  one window for every record below d
#                         [3-----------------13]    both:   right window of 2
#                               [6-----------------16]  both: right window of 5
#
# Kafka: process() sends a record with ts < timeDifferenceMs to processEarly(), which never
# creates a left window [ts - d, ts]. In order 2, 5, 8:
#   2: no window yet -> creates the combined window [0, 10] = {2}.
#   5: the combined window's latest record (2) is before 5, so 2 is the previous record and
#      createPreviousRecordRightWindow makes [3, 13] = {5}; [0, 10] becomes {2, 5}.
#   8: [3, 13] (start <= 8) takes 8 -> {5, 8}; the previous record is 5, its right window
#      [6, 16] = {8} is created; [0, 10] becomes {2, 5, 8}.
# In order 8, 5, 2 the right windows come from the combined window's aggregate instead
# (5: [6, 16] = {8}; 2: [3, 13] = {5, 8}) and [0, 10] again ends as {2, 5, 8}.
EARLY = [2, 5, 8]
EARLY_SQUALL = {(-8, 2): [2], (-5, 5): [2, 5], (-2, 8): [2, 5, 8], (3, 13): [5, 8], (6, 16): [8]}
EARLY_KAFKA = {(0, 10): [2, 5, 8], (3, 13): [5, 8], (6, 16): [8]}


@pytest.mark.parametrize("order", [EARLY, EARLY[::-1]], ids=["in-order", "reversed"])
@pytest.mark.parametrize("batch", [1, 2, 3])
def test_records_below_the_time_difference(order, batch):
    squall = squall_windows(10, 100, order, batch)
    assert squall == EARLY_SQUALL
    # The right windows agree; Kafka's one [0, d] stands for squall's three left windows.
    assert {w: v for w, v in squall.items() if w[0] > 0} == {w: v for w, v in EARLY_KAFKA.items() if w[0] > 0}
    assert sorted(w for w in squall if w[0] < 0) == [(-8, 2), (-5, 5), (-2, 8)]
    assert EARLY_KAFKA[(0, 10)] == squall[(-2, 8)]  # here the same records (none lies in (8, 10])


def test_a_record_at_the_time_difference_shares_kafkas_combined_window():
    # 10 is not below d: both give it its left window [0, 10], which in Kafka is the combined
    # window, so Kafka's [0, 10] = {2, 10}: the same as squall's. Only 2's own window differs.
    squall = squall_windows(10, 100, [2, 10])
    assert squall == {(-8, 2): [2], (0, 10): [2, 10], (3, 13): [10]}
    kafka = {(0, 10): [2, 10], (3, 13): [10]}
    assert {w: v for w, v in squall.items() if w != (-8, 2)} == kafka


# --- (b) an accepted record whose own window had closed ---------------------------------------
#
#   d = 10, grace = 5; records 94, 100, then 90 (stream time 100: windows ending before 95 are
#   closed; 90 is kept as 90 + 11 > 95, but its own [80, 90] is closed), then 97.
#
#   80    84  87  90 91  94 95  97 98  100 101     105     108
#    [-------90]                                 closed: nobody has it
#         [--------94]                           closed before 90 came: both lack 90
#             [---------97]                      created by 97: Kafka copies [84, 94] -> {94, 97}
#                 [90-----------100]             squall also adds 90 -> {90, 94, 97}
#                    [91----------101]
#                         [95-----------105]
#                                [98-----------108]
#
# Kafka, from KStreamSlidingWindowAggregate (processReverse; processInOrder finds the same):
#   94: [84, 94] = {94}.
#   100: [84, 94] ends before 100, so it is the left aggregate and 94 the previous record;
#        createWindows makes 94's right window [95, 105] = {100} and 100's left window
#        [90, 100] from a copy of [84, 94] -> {94, 100}. Stream time 100, close time 95.
#   90: kept (90 + 1 + 10 > 95). Windows holding 90: [90, 100] takes it -> {90, 94, 100};
#       updateWindowAndForward skips [84, 94] (94 < 95). Its left window [80, 90] is skipped
#       too; its right window [91, 101] is a copy of [90, 100]'s aggregate before 90 -> {94, 100}.
#   97: [95, 105], [91, 101], [90, 100] take 97; [84, 94] (ends before 97) is the left
#       aggregate, so createWindows makes [87, 97] from a copy of {94} -> {94, 97}: 90 is
#       missing, though [87, 97] holds 90 and is open. Right window [98, 108] = {100}.
# squall builds [87, 97] from its per-timestamp partial aggregates, which keep 90.
CLOSED = [94, 100, 90, 97]
CLOSED_SQUALL = {
    (84, 94): [94], (87, 97): [90, 94, 97], (90, 100): [90, 94, 97, 100],
    (91, 101): [94, 97, 100], (95, 105): [97, 100], (98, 108): [100],
}  # fmt: skip
CLOSED_KAFKA = {**CLOSED_SQUALL, (87, 97): [94, 97]}


def test_accepted_record_past_its_window_goes_to_windows_created_later():
    squall = squall_windows(10, 5, CLOSED)
    assert squall == CLOSED_SQUALL
    differ = {w for w in squall.keys() | CLOSED_KAFKA.keys() if squall.get(w) != CLOSED_KAFKA.get(w)}
    assert differ == {(87, 97)}
    assert sorted(set(squall[(87, 97)]) - set(CLOSED_KAFKA[(87, 97)])) == [90]


def test_a_later_window_copied_from_one_that_took_the_record_agrees():
    # Kafka's later windows are not all without the record: one copied from a window that took
    # it holds it too. d = 10, grace = 0; records 97, 100, then 95 (kept: 95 + 11 > 100; its
    # [85, 95] closed), then 104.
    #   95: [90, 100] takes it -> {95, 97, 100}; [87, 97] is closed (97 < 100) and skips it.
    #   104: its left aggregate is [90, 100] (the last window ending before 104), so [94, 104]
    #        is a copy of {95, 97, 100} plus 104: the same as squall's.
    squall = squall_windows(10, 0, [97, 100, 95, 104])
    kafka = {
        (87, 97): [97], (90, 100): [95, 97, 100], (94, 104): [95, 97, 100, 104],
        (96, 106): [97, 100, 104], (98, 108): [100, 104], (101, 111): [104],
    }  # fmt: skip
    assert squall == kafka
