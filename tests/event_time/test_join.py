"""WindowedJoinBolt: inner join and cogroup per key and window; the watermark is the slower stream's."""

import pytest

from bolts.aggregate.windowed_join_bolt import WindowedJoinBolt
from topologies.testing import BoltHarness
from windowing import Duration
from windowing.assigners import FixedWindows

FIELDS = {"l": ("user", "ts", "a"), "r": ("user", "ts", "b")}


def _h(how):
    bolt = WindowedJoinBolt("l", "r", key_fields=("user",), how=how).with_windows(FixedWindows(Duration(10)))
    return BoltHarness(bolt.with_timestamp_field("ts"), fields=FIELDS, streams=("l", "r"))


def test_inner_join_per_key_and_window_fires_when_the_slower_stream_passes():
    h = _h("inner")
    h.feed_batch([{"user": "u", "ts": 1, "a": 1}, {"user": "u", "ts": 12, "a": 2}], stream="l")
    h.feed_batch([{"user": "u", "ts": 3, "b": "x"}, {"user": "v", "ts": 4, "b": "y"}], stream="r")
    h.advance_watermark(10, "l")
    assert h.emitted == []  # the right stream's watermark is still 0
    h.advance_watermark(20, "r")
    assert h.watermark == 10
    out = [v for _, v in h.emitted]
    assert [(v[0], v[1], v[3]) for v in out] == [
        ("u", 0, [[{"user": "u", "ts": 1, "a": 1}, {"user": "u", "ts": 3, "b": "x"}]]),
        ("v", 0, []),
    ]


def test_cogroup_keeps_both_sides():
    h = _h("cogroup")
    h.feed_batch([{"user": "u", "ts": 1, "a": 1}], stream="l")
    h.feed_batch([{"user": "u", "ts": 2, "b": "x"}, {"user": "u", "ts": 5, "b": "z"}], stream="r")
    h.close()
    [(_, values)] = h.emitted
    left, right = [{"user": "u", "ts": 1, "a": 1}], [{"user": "u", "ts": 2, "b": "x"}, {"user": "u", "ts": 5, "b": "z"}]
    assert values[3] == [left, right]


def test_both_streams_must_be_inputs():
    bolt = WindowedJoinBolt("l", "r", key_fields=("user",)).with_windows(FixedWindows(Duration(10)))
    with pytest.raises(ValueError, match="not inputs"):
        BoltHarness(bolt, fields=FIELDS["l"], streams=("l",))
    with pytest.raises(ValueError, match="how"):
        WindowedJoinBolt("l", "r", how="outer")
