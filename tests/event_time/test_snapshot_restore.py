"""Snapshot in the middle of a stream, rebuild from the msgpack'd snapshot, continue, compare."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts.aggregate.window_state import WindowState
from tests.event_time.helpers import harness, replay, sum_bolt
from windowing import Duration
from windowing.accumulation import AccumulationMode as M
from windowing.assigners import FixedWindows, Sessions, TimeDifferenceWindows
from windowing.triggers import AfterCount, AfterProcessingTime, AfterWatermark

ASSIGNERS = [FixedWindows(Duration(20)), Sessions(Duration(15)), TimeDifferenceWindows(Duration(10), Duration(30))]
step = st.one_of(
    st.tuples(
        st.just("batch"),
        st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 79), st.integers(1, 5)), min_size=1, max_size=4),
    ),
    st.tuples(st.just("advance"), st.integers(1, 700)),
    st.tuples(st.just("watermark"), st.integers(0, 100)),
)


def make(assigner, start=0, on_time="fire_always"):
    trigger = AfterWatermark(early=AfterProcessingTime(Duration(500)), late=AfterCount(1))
    # The earliest combiner: the snapshot must carry each window's holds and each key's output
    # watermark (issue 14); both on-time behaviours, since an empty ON_TIME pane depends on them.
    bolt = (
        sum_bolt(assigner, mode=M.ACCUMULATING_AND_RETRACTING)
        .with_trigger(trigger)
        .with_lag(Duration(5))
        .with_timestamp_combiner("earliest")
        .with_on_time_behavior(on_time)
    )
    if not isinstance(assigner, TimeDifferenceWindows):
        bolt = bolt.with_allowed_lateness(Duration(30))
    return harness(bolt.with_watermark_interval(Duration(300)), start_time_ms=start)


def version_4_layout(saved: dict) -> dict:
    """``saved`` as version 4 wrote it: every window record with all its fields, never the short form."""
    def full(data: list) -> list:
        ws = WindowState.from_data(data)
        return [list(ws.key), ws.window.start, ws.window.end, ws.acc, ws.seq, dict(ws.trigger), list(ws.timers),
                ws.has_new, ws.hold, ws.extra_hold, list(ws.history), ws.last, ws.retractions, ws.closed,
                ws.batch_tuples]

    return {**saved, "version": 4, "windows": [full(w) for w in saved["windows"]]}


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(ASSIGNERS),
    st.sampled_from(["fire_always", "fire_if_non_empty"]),
    st.lists(step, max_size=10),
    st.lists(step, max_size=10),
    st.booleans(),
)
def test_snapshot_rebuild_continue_equals_uninterrupted(assigner, on_time, before, after, written_by_version_4):
    whole = make(assigner, on_time=on_time)
    replay(whole, before + after)
    whole.close()

    first = make(assigner, on_time=on_time)
    replay(first, before)
    saved = first.task.snapshot()
    assert saved == first.task.snapshot()  # deterministic
    if written_by_version_4:  # state a task of the previous layout committed resumes the same
        saved = version_4_layout(saved)
    data = msgpack.unpackb(msgpack.packb(saved), strict_map_key=False)
    second = make(assigner, start=first.now, on_time=on_time)  # a fresh task at the saved processing time
    second.task.restore(data)
    replay(second, after)
    second.close()
    assert first.emitted + second.emitted == whole.emitted


def test_an_older_snapshot_is_refused_with_its_version():
    h = make(Sessions(Duration(15)))
    replay(h, [("batch", [("a", 1, 1)])])
    saved = h.task.snapshot()
    saved["version"] = 1
    with pytest.raises(ValueError, match=r"snapshot version 1, expected \d+"):
        make(Sessions(Duration(15))).task.restore(saved)


def test_a_snapshot_of_a_newer_layout_is_refused_naming_it():
    h = make(Sessions(Duration(15)))
    replay(h, [("batch", [("a", 1, 1)])])
    saved = {**h.task.snapshot(), "version": 99}
    with pytest.raises(ValueError, match=r"snapshot version 99, expected \d+; it was written by a newer squall"):
        make(Sessions(Duration(15))).task.restore(saved)
