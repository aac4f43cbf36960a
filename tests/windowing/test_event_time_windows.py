"""Event-time windows: every Count/Duration combination, lateness, and several input streams.

The watermark is the minimum over the input streams of their latest timestamp,
minus the lag, emitted every watermark interval. Time windows end at multiples
of the slide and hold ``(end - length, end]``; count windows hold the last N
tuples, in arrival order, at or before the window's end.
"""

import logging

import pytest

from bolts import TupleError
from topologies.testing import BoltHarness
from windowing import Count, Duration

from .helpers import Recorder, names, summary


def harness(bolt, streams=("default",), lag=0):
    bolt = bolt.with_timestamp_field("ts").with_lag(Duration(lag))
    return BoltHarness(bolt, fields=("name", "ts"), streams=streams)


def feed(h, *items, stream="default"):
    for name, ts in items:
        h.feed({"name": name, "ts": ts}, stream=stream)


def test_duration_tumbling_windows_align_to_the_epoch_and_include_their_end():
    #   (0, 10]: 1 9 10 | (10, 20]: 11 | 25 waits for a watermark past 30
    h = harness(Recorder().with_tumbling_window(Duration(10)))
    feed(h, ("a", 1), ("b", 9), ("c", 10), ("d", 11), ("e", 25))
    h.advance(Duration.seconds(1))
    assert summary(h) == [
        (["a", "b", "c"], ["a", "b", "c"], [], 0, 10),
        (["d"], ["d"], ["a", "b", "c"], 10, 20),
    ]


def test_windows_skip_empty_stretches_of_event_time():
    h = harness(Recorder().with_tumbling_window(Duration(10)))
    feed(h, ("a", 5), ("b", 1_000_005), ("c", 2_000_000))
    h.advance(Duration.seconds(1))
    # the watermark is exactly 2_000_000: the window ending there (it holds c) waits for it to pass
    assert [(w.end_timestamp, names(w.tuples)) for w in h.windows] == [(10, ["a"]), (1_000_010, ["b"])]
    h.close()
    assert [(w.end_timestamp, names(w.tuples)) for w in h.windows][-1] == (2_000_000, ["c"])


def test_a_window_fires_once_the_watermark_passes_its_end():
    # Storm fires (0, 10] when the watermark reaches 10; y at 10 is still on time then and,
    # arriving after the firing, would never be evaluated by a tumbling window.
    h = harness(Recorder().with_tumbling_window(Duration(10)))
    feed(h, ("x", 4), ("z", 10))
    h.advance(Duration.seconds(1))
    assert h.watermark == 10 and h.windows == []
    feed(h, ("y", 10), ("w", 11))
    h.advance(Duration.seconds(1))
    assert summary(h) == [(["x", "z", "y"], ["x", "z", "y"], [], 0, 10)]


def test_count_window_count_slide_counts_in_timestamp_order():
    # arrival: a10 b20 c15 d30 e40; watermark 40. Windows end at the timestamp of every 2nd
    # arrival (the largest so far): 20, then 30. At 20 the tuples at or before 20, in timestamp
    # order, are a c b: the window is the first 2 (a c). At 30 they are a c b d: 4 > 3, so a
    # expires and c b d form the window (handed over in arrival order: b c d).
    h = harness(Recorder().with_window(Count(3), Count(2)))
    feed(h, ("a", 10), ("b", 20), ("c", 15), ("d", 30), ("e", 40))
    h.advance(Duration.seconds(1))
    assert summary(h) == [
        (["a", "c"], ["a", "c"], [], None, 20),
        (["b", "c", "d"], ["b", "d"], ["a"], None, 30),
    ]
    h.close()  # e alone does not make a count of 2
    assert len(h.windows) == 2


def test_count_window_duration_slide():
    # a3 b7 c12 d25, watermark 25: windows end at 10 (a b) and 20 (b c; a expires);
    # at the end of input the window ending 30 holds the last two at or before 30.
    h = harness(Recorder().with_window(Count(2), Duration(10)))
    feed(h, ("a", 3), ("b", 7), ("c", 12), ("d", 25))
    h.advance(Duration.seconds(1))
    assert summary(h) == [
        (["a", "b"], ["a", "b"], [], None, 10),
        (["b", "c"], ["c"], ["a"], None, 20),
    ]
    h.close()
    assert summary(h)[2:] == [(["c", "d"], ["d"], ["b"], None, 30)]


@pytest.mark.parametrize("newest", [11, 15, 19, 20])
def test_end_of_input_evaluates_the_newest_tuple_of_a_count_window(newest):
    h = harness(Recorder().with_window(Count(2), Duration(10)))
    feed(h, ("a", 3), ("b", newest))
    h.close()
    assert summary(h)[-1][0] == ["a", "b"]
    assert summary(h)[-1][4] == 20


def test_duration_window_count_slide():
    # a5 b8 c14 d21: every 2nd tuple ends a window, at the largest timestamp so far (8, 21).
    h = harness(Recorder().with_window(Duration(10), Count(2)))
    feed(h, ("a", 5), ("b", 8), ("c", 14), ("d", 21))
    h.advance(Duration.seconds(1))
    assert summary(h) == [
        (["a", "b"], ["a", "b"], [], -2, 8),
        (["c", "d"], ["c", "d"], ["a", "b"], 11, 21),
    ]


def test_out_of_order_tuples_within_the_lag_land_in_their_window():
    h = harness(Recorder().with_tumbling_window(Duration(10)), lag=5)
    feed(h, ("a", 12), ("b", 3), ("c", 9), ("d", 16))
    h.advance(Duration.seconds(1))  # watermark 11
    assert summary(h) == [(["b", "c"], ["b", "c"], [], 0, 10)]


def test_a_tuple_below_the_watermark_is_late_and_goes_to_the_late_stream():
    bolt = Recorder().with_tumbling_window(Duration(10)).with_late_tuple_stream("late")
    h = harness(bolt, lag=5)
    feed(h, ("a", 100))
    h.advance(Duration.seconds(1))  # watermark 95
    late = h.feed({"name": "x", "ts": 94})
    h.feed({"name": "y", "ts": 95})
    assert h.late == [late]
    assert ("late", [late]) in h.emitted
    h.close()
    assert [names(w.tuples) for w in h.windows] == [["a", "y"]]  # the window (90, 100]


def test_late_tuples_without_a_stream_are_logged_at_info(caplog):
    h = harness(Recorder().with_tumbling_window(Duration(10)))
    feed(h, ("a", 100))
    h.advance(Duration.seconds(1))
    with caplog.at_level(logging.INFO, logger="squall.bolts"):
        feed(h, ("x", 50))
    assert [names(h.late)] == [["x"]]
    assert "late tuple" in caplog.text and "50" in caplog.text
    assert {stream for stream, _ in h.emitted} <= {"default"}


def test_the_watermark_waits_for_every_input_stream():
    h = harness(Recorder().with_tumbling_window(Duration(10)), streams=("s1", "s2"))
    feed(h, ("a", 100), stream="s1")
    h.advance(Duration.seconds(5))
    assert h.watermark == 0 and h.windows == []
    feed(h, ("b", 45), stream="s2")
    h.advance(Duration.seconds(1))
    assert h.watermark == 45  # the slower stream holds the watermark back
    feed(h, ("c", 60), stream="s1")  # on time: 60 >= 45, though s1 has seen 100
    feed(h, ("d", 40), stream="s2")  # late
    assert names(h.late) == ["d"]
    feed(h, ("e", 70), stream="s2")
    h.advance(Duration.seconds(1))
    assert h.watermark == 70
    assert summary(h) == [(["b"], ["b"], [], 40, 50), (["c"], ["c"], ["b"], 50, 60)]


def test_streams_skewed_by_more_than_the_lag_lose_nothing():
    # Storm stops its event-time scan at the first queued tuple beyond the window end plus
    # the lag (here a at 1000), so b and c, queued behind it, would never be windowed.
    h = harness(Recorder().with_tumbling_window(Duration(10)), streams=("fast", "slow"))
    feed(h, ("a", 1000), stream="fast")
    feed(h, ("b", 5), ("c", 8), ("d", 12), stream="slow")
    h.advance(Duration.seconds(1))  # watermark 12
    assert summary(h) == [(["b", "c"], ["b", "c"], [], 0, 10)]


def test_an_upstream_watermark_fires_windows_and_makes_older_tuples_late():
    h = harness(Recorder().with_tumbling_window(Duration(10)))
    feed(h, ("a", 5), ("b", 15))
    h.advance_watermark(10)
    assert h.windows == []
    h.advance_watermark(11)
    assert summary(h) == [(["a"], ["a"], [], 0, 10)]
    feed(h, ("c", 7))
    assert names(h.late) == ["c"]
    h.advance_watermark(3)  # watermarks never go back
    assert h.watermark == 11


def test_a_tuple_exactly_at_the_watermark_is_on_time():
    h = harness(Recorder().with_tumbling_window(Duration(10)))
    feed(h, ("a", 20))
    h.advance(Duration.seconds(1))
    feed(h, ("b", 20))
    assert h.late == []


def test_watermarks_are_emitted_every_interval():
    bolt = Recorder().with_tumbling_window(Duration(10)).with_watermark_interval(Duration(50))
    h = harness(bolt)
    feed(h, ("a", 5), ("b", 12))
    h.advance(49)
    assert h.watermark == 0
    h.advance(1)
    assert h.watermark == 12 and len(h.windows) == 1


def test_timestamp_extractor():
    bolt = Recorder().with_tumbling_window(Duration(10)).with_timestamp_extractor(lambda t: t["ts"] * 10)
    h = BoltHarness(bolt, fields=("name", "ts"))
    feed(h, ("a", 1), ("b", 2))
    h.advance(Duration.seconds(1))  # timestamps 10 and 20; watermark 20
    assert summary(h) == [(["a"], ["a"], [], 0, 10)]


def test_a_missing_timestamp_field_names_the_field():
    h = BoltHarness(Recorder().with_tumbling_window(Duration(10)).with_timestamp_field("ts"), fields=("name",))
    with pytest.raises(TupleError, match=r"with_timestamp_field: .* no field 'ts'; its fields are: name"):
        h.feed(["a"])


@pytest.mark.parametrize("bad", ["12", 1.5, None, True])
def test_a_timestamp_that_is_not_an_int_is_refused(bad):
    h = harness(Recorder().with_tumbling_window(Duration(10)))
    with pytest.raises(TupleError, match="must be an int of epoch milliseconds or a datetime"):
        h.feed({"name": "a", "ts": bad})


def test_processing_time_bolts_take_no_watermark():
    h = BoltHarness(Recorder().with_tumbling_window(Duration(10)), fields=("name",))
    with pytest.raises(ValueError, match=r"advance_watermark: .* processing time"):
        h.advance_watermark(10)
