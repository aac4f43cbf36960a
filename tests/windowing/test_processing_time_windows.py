"""Processing-time windows: every combination of Count and Duration, as Storm evaluates them.

A tuple's timestamp is the processing time it arrives at. A count trigger fires
as the N-th tuple arrives (the window ends at that instant); a time trigger fires
every interval from the start, and its window ends one millisecond before the
firing instant, so tuples of that very millisecond wait for the next window.
"""

import pytest

from topologies.testing import BoltHarness
from windowing import Count, Duration

from .helpers import Recorder, summary


def run(bolt, script):
    """Script items: ("feed", name) or ("at", ms) to move processing time."""
    h = BoltHarness(bolt, fields=("name",))
    for kind, arg in script:
        if kind == "feed":
            h.feed([arg])
        else:
            h.advance_to(arg)
    return h


def feeds(*names):
    return [("feed", n) for n in names]


def test_count_window_count_slide():
    #  tuples: 1 2 | 3 4 | 5 6 | 7      length 3, slides every 2 tuples
    h = run(Recorder().with_window(Count(3), Count(2)), feeds("1", "2", "3", "4", "5", "6", "7"))
    assert summary(h) == [
        (["1", "2"], ["1", "2"], [], None, 0),
        (["2", "3", "4"], ["3", "4"], ["1"], None, 0),
        (["4", "5", "6"], ["5", "6"], ["2", "3"], None, 0),
    ]


def test_count_window_slides_with_every_tuple_by_default():
    h = run(Recorder().with_window(Count(2)), feeds("a", "b", "c"))
    assert summary(h) == [
        (["a"], ["a"], [], None, 0),
        (["a", "b"], ["b"], [], None, 0),
        (["b", "c"], ["c"], ["a"], None, 0),
    ]


def test_count_tumbling_window():
    h = run(Recorder().with_tumbling_window(Count(3)), feeds("1", "2", "3", "4", "5", "6", "7", "8"))
    assert summary(h) == [
        (["1", "2", "3"], ["1", "2", "3"], [], None, 0),
        (["4", "5", "6"], ["4", "5", "6"], ["1", "2", "3"], None, 0),
    ]


def test_count_window_duration_slide():
    #  t=0 a | t=5 b c | t=9 d | fire@10 (ends 9): last 3 | e at 10 | fire@20 | fire@30
    script = [("feed", "a"), ("at", 5), *feeds("b", "c"), ("at", 9), ("feed", "d"), ("at", 10),
              ("feed", "e"), ("at", 30)]
    h = run(Recorder().with_window(Count(3), Duration(10)), script)
    assert summary(h) == [
        (["b", "c", "d"], ["b", "c", "d"], ["a"], None, 9),
        (["c", "d", "e"], ["e"], ["b"], None, 19),
        (["c", "d", "e"], [], [], None, 29),  # count windows hold their last N tuples
    ]


def test_duration_window_duration_slide():
    #  0    3    5         10        15        20   25
    #  a    b    c(after the 5 ms firing)     |d
    #  fire@5: first window holds all so far | fire@10: (-1, 9] | fire@15: (4, 14]
    #  fire@20: (9, 19] is empty: no activation | fire@25: (14, 24]
    script = [("feed", "a"), ("at", 3), ("feed", "b"), ("at", 5), ("feed", "c"), ("at", 20),
              ("feed", "d"), ("at", 25)]
    h = run(Recorder().with_window(Duration(10), Duration(5)), script)
    assert summary(h) == [
        (["a", "b"], ["a", "b"], [], -6, 4),
        (["a", "b", "c"], ["c"], [], -1, 9),
        (["c"], [], ["a", "b"], 4, 14),
        (["d"], ["d"], [], 14, 24),  # c expired at the empty evaluation at 20
    ]


def test_tuples_of_the_firing_millisecond_wait_for_the_next_window():
    script = [("at", 10), ("feed", "x"), ("at", 20)]
    h = run(Recorder().with_tumbling_window(Duration(10)), script)
    assert summary(h) == [(["x"], ["x"], [], 9, 19)]


def test_duration_tumbling_window():
    script = [("at", 1), ("feed", "a"), ("at", 6), ("feed", "b"), ("at", 10)]
    h = run(Recorder().with_tumbling_window(Duration(5)), script)
    assert summary(h) == [
        (["a"], ["a"], [], -1, 4),
        (["b"], ["b"], ["a"], 4, 9),
    ]


def test_duration_window_count_slide():
    #  a@0 b@4 -> fire at 4: (-6, 4]    c@12 d@13 -> fire at 13: (3, 13]
    script = [("feed", "a"), ("at", 4), ("feed", "b"), ("at", 12), ("feed", "c"), ("at", 13), ("feed", "d")]
    h = run(Recorder().with_window(Duration(10), Count(2)), script)
    assert summary(h) == [
        (["a", "b"], ["a", "b"], [], -6, 4),
        (["b", "c", "d"], ["c", "d"], ["a"], 3, 13),
    ]


def test_duration_window_slides_with_every_tuple_by_default():
    script = [("feed", "a"), ("at", 6), ("feed", "b"), ("at", 11), ("feed", "c")]
    h = run(Recorder().with_window(Duration(10)), script)
    assert summary(h) == [
        (["a"], ["a"], [], -10, 0),
        (["a", "b"], ["b"], [], -4, 6),
        (["b", "c"], ["c"], ["a"], 1, 11),
    ]


def test_no_activation_without_tuples_while_time_moves():
    h = run(Recorder().with_tumbling_window(Duration(10)), [("at", 1000)])
    assert h.windows == []


def test_a_time_window_fires_while_no_input_arrives():
    h = run(Recorder().with_window(Duration(100), Duration(10)), [("feed", "a")])
    h.advance(Duration(10))
    assert len(h.windows) == 1
    h.advance(Duration(50))  # nothing arrives; the window keeps sliding over "a"
    assert [w.end_timestamp for w in h.windows] == [9, 19, 29, 39, 49, 59]


@pytest.mark.parametrize("step", [1, 3, 7, 1000])
def test_moving_time_in_any_steps_gives_the_same_windows(step):
    def build():
        return BoltHarness(Recorder().with_window(Duration(20), Duration(5)), fields=("name",))

    a, b = build(), build()
    for i in range(30):
        a.feed([str(i)])
        b.feed([str(i)])
        a.advance(3)
        b.advance(3)
    a.advance_to(200)
    while b.now < 200:
        b.advance(min(step, 200 - b.now))
    assert summary(a) == summary(b)
