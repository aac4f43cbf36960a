"""WindowedJoinBolt(matched_only=True): panes only for the windows where both sides met."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts.aggregate.windowed_join_bolt import WindowedJoinBolt
from topologies.testing import BoltHarness
from windowing import AccumulationMode, Duration
from windowing.assigners import FixedWindows
from windowing.triggers import AfterCount, Repeatedly

FIELDS = {"l": ("user", "ts", "a", "is_retraction"), "r": ("user", "ts", "b", "is_retraction")}


def join(how="inner", **options):
    bolt = WindowedJoinBolt("l", "r", key_fields=("user",), how=how, **options)
    return bolt.with_windows(FixedWindows(Duration(10))).with_timestamp_field("ts")


def run(bolt, batches):
    """Feed ``batches`` (lists of (stream, user, ts, value)) one micro-batch each, then close; the panes."""
    h = BoltHarness(bolt, fields=FIELDS, streams=("l", "r"))
    for batch in batches:
        for stream in ("l", "r"):
            rows = [{"user": u, "ts": ts, "a" if stream == "l" else "b": v, "is_retraction": False}
                    for s, u, ts, v in batch if s == stream]
            if rows:
                h.feed_batch(rows, stream=stream)
        h.advance_watermark(max((ts for _, _, ts, _ in batch), default=0) - 5)
    h.close()
    return [values for stream, values in h.emitted if stream == "default"]


rows = st.tuples(st.sampled_from("lr"), st.sampled_from(["u", "v", "w"]), st.integers(0, 60), st.integers(0, 9))


@settings(max_examples=60, deadline=None)
@given(batches=st.lists(st.lists(rows, max_size=6), min_size=1, max_size=4), how=st.sampled_from(["inner", "cogroup"]),
       mode=st.sampled_from([AccumulationMode.DISCARDING, AccumulationMode.ACCUMULATING]))
def test_matched_only_emits_the_panes_of_every_window_where_both_sides_met(batches, how, mode):
    every = run(join(how).with_accumulation_mode(mode), batches)
    matched = run(join(how, matched_only=True).with_accumulation_mode(mode), batches)

    def met(values):
        value = values[3]
        return bool(value) if how == "inner" else bool(value[0]) and bool(value[1])

    assert matched == [values for values in every if met(values)]


def test_an_early_pane_with_one_side_is_held_back_and_its_rows_join_the_next():
    bolt = join(matched_only=True).with_trigger(Repeatedly(AfterCount(1)))
    h = BoltHarness(bolt, fields=FIELDS, streams=("l", "r"))
    h.feed_batch([{"user": "u", "ts": 1, "a": 1, "is_retraction": False}], stream="l")
    assert h.emitted == []
    h.feed_batch([{"user": "u", "ts": 2, "b": 2, "is_retraction": False}], stream="r")
    [(_, pane)] = h.emitted
    assert [[left["a"], right["b"]] for left, right in pane[3]] == [[1, 2]]
    assert pane[5].index == 0  # the held-back pane was not counted


def test_a_window_that_loses_a_side_retracts_its_last_pane_and_emits_nothing_new():
    bolt = (join(matched_only=True).with_trigger(Repeatedly(AfterCount(1)))
            .with_accumulation_mode(AccumulationMode.ACCUMULATING_AND_RETRACTING))
    h = BoltHarness(bolt, fields=FIELDS, streams=("l", "r"))
    h.feed_batch([{"user": "u", "ts": 1, "a": 1, "is_retraction": False}], stream="l")
    h.feed_batch([{"user": "u", "ts": 2, "b": 2, "is_retraction": False}], stream="r")
    h.feed_batch([{"user": "u", "ts": 2, "b": 2, "is_retraction": True}], stream="r")  # upstream takes it back
    h.close()
    got = [(v[3], v[6]) for _, v in h.emitted]
    pair = [{"user": "u", "ts": 1, "a": 1, "is_retraction": False},
            {"user": "u", "ts": 2, "b": 2, "is_retraction": False}]
    assert got == [([pair], False), ([pair], True)]


def test_the_default_still_emits_windows_with_one_side():
    assert join().matched_only is False and join(matched_only=True).matched_only is True
    assert [v[3] for v in run(join(), [[("l", "u", 1, 1)]])] == [[]]
    assert run(join(matched_only=True), [[("l", "u", 1, 1)]]) == []


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_matched_only_must_be_a_bool(value):
    with pytest.raises(TypeError, match=rf"WindowedJoinBolt: `matched_only` must be a bool .*got {value!r}"):
        WindowedJoinBolt("l", "r", matched_only=value)
