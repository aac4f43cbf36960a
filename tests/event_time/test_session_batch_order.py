"""The order of the tuples within a batch does not change what merging sessions give.

Beam Java's ``ReduceFnRunner.processElements`` merges the windows of a whole bundle
(``mergeWindows``, ``MergingActiveWindowSet.merge``) before it places any element, and
only then asks, per element, whether its merged window is closed. squall holds a
batch's session tuples until the batch closes and merges their proto-sessions first
(``WindowTable.plan_sessions``), so any permutation of a batch gives the same panes,
late tuples and closed-window drops.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.event_time.helpers import harness, panes, replay, sum_bolt
from tests.event_time.test_property_triggers import triggers
from windowing import Duration
from windowing.accumulation import AccumulationMode as M
from windowing.assigners import Sessions
from windowing.triggers import AfterAny, AfterCount, AfterProcessingTime, AfterWatermark

# Few timestamps, so that merges often land on the bounds of a session a finished trigger closed.
batch = st.lists(st.tuples(st.sampled_from("aab"), st.integers(0, 25), st.integers(1, 5)), min_size=1, max_size=6)
closing = st.sampled_from([AfterCount(1), AfterCount(2), AfterAny(AfterProcessingTime(Duration(5)), AfterWatermark())])
step = st.one_of(
    st.tuples(st.just("batch"), batch),
    st.tuples(st.just("watermark"), st.integers(0, 40)),
    st.tuples(st.just("advance"), st.integers(1, 25)),
)


def run(trigger: Any, mode: M, lateness: int, steps: list[tuple[str, Any]]) -> tuple[Any, ...]:
    """Each window's panes in order (windows in any order), the late tuples and the closed-window drops."""
    bolt = sum_bolt(Sessions(Duration(10)), mode=mode).with_trigger(trigger).with_lag(Duration(100_000))
    h = harness(bolt.with_allowed_lateness(Duration(lateness)))
    replay(h, steps)
    h.advance_watermark(10_000)
    by_window: dict[tuple[Any, ...], list[tuple[Any, ...]]] = defaultdict(list)
    for p in panes(h):
        by_window[(p["key"], p["window_start"], p["window_end"])].append(
            (p["value"], p["timestamp"], tuple(p["pane"]), p["is_retraction"])
        )
    return dict(by_window), h.task.late_tuples, h.task.closed_window_drops


@settings(max_examples=80, deadline=None)
@given(
    closing | triggers,
    st.sampled_from([M.DISCARDING, M.ACCUMULATING, M.ACCUMULATING_AND_RETRACTING]),
    st.sampled_from([0, 20, 50]),
    st.lists(step, min_size=1, max_size=10),
    st.randoms(use_true_random=False),
)
def test_any_order_of_a_batch_gives_the_same_result(trigger, mode, lateness, steps, rnd):
    shuffled = [(kind, rnd.sample(arg, len(arg)) if kind == "batch" else arg) for kind, arg in steps]
    assert run(trigger, mode, lateness, shuffled) == run(trigger, mode, lateness, steps)
