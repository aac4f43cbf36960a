"""Every trigger against the brute-force model of ``trigger_model.py``, pane by pane, on random runs.

One test per trigger kind (leaves, and each composite with random children from a strategy of
small trigger trees). A run is random micro-batches (``feed_batch``, or tuples ``feed`` one by one
into a batch left open) of out-of-order records for two keys, random processing-time advances (so
``AfterProcessingTime`` fires at its instants), random upstream watermarks, a random allowed
lateness, fixed, sliding or global windows, a random accumulation mode, then ``close()``. The
bolt's panes (values, timestamps, ``PaneInfo``, retractions, in emission order) and its
late/closed-window drop counters must equal the model's.

``SQUALL_TRIGGER_MODEL_EXAMPLES`` sets the number of examples per test (default 100), for long
runs hunting disagreements.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.event_time.helpers import harness, sum_bolt
from tests.event_time.trigger_model import expected_output
from windowing import Duration
from windowing.accumulation import AccumulationMode
from windowing.assigners import FixedWindows, GlobalWindows, SlidingWindows
from windowing.triggers import (
    AfterAll,
    AfterAny,
    AfterCount,
    AfterEach,
    AfterProcessingTime,
    AfterWatermark,
    DefaultTrigger,
    Never,
    OrFinally,
    Repeatedly,
)

EXAMPLES = int(os.environ.get("SQUALL_TRIGGER_MODEL_EXAMPLES", "100"))
MODES = {
    "discarding": AccumulationMode.DISCARDING,
    "accumulating": AccumulationMode.ACCUMULATING,
    "retracting": AccumulationMode.ACCUMULATING_AND_RETRACTING,
}

# Triggers -----------------------------------------------------------------------------------------
counts = st.builds(AfterCount, st.integers(1, 3))
delays = st.builds(lambda ms: AfterProcessingTime(Duration(ms)), st.integers(0, 30))
leaves = st.one_of(counts, delays, st.just(AfterWatermark()), st.just(Never()), st.just(DefaultTrigger()))


def _composites(kids: st.SearchStrategy) -> st.SearchStrategy:
    several = st.lists(kids, min_size=1, max_size=3)
    return st.one_of(
        st.builds(Repeatedly, kids),
        st.builds(lambda ts: AfterEach(*ts), several),
        st.builds(lambda ts: AfterAny(*ts), several),
        st.builds(lambda ts: AfterAll(*ts), several),
        st.builds(OrFinally, kids, kids),
        st.builds(lambda t, until: t.or_finally(until), kids, kids),
        st.builds(lambda e, late: AfterWatermark(early=e, late=late), st.none() | kids, st.none() | kids),
    )


# Repeated leaves are common children: they keep firing without finishing, which is where composites differ most.
children = st.recursive(leaves | st.builds(Repeatedly, leaves), _composites, max_leaves=4)

# Runs ---------------------------------------------------------------------------------------------
rows = st.lists(st.tuples(st.sampled_from("aab"), st.integers(0, 59), st.integers(1, 5)), min_size=1, max_size=4)
step = st.one_of(
    st.tuples(st.just("batch"), rows),
    st.tuples(st.just("feed"), rows),
    st.tuples(st.just("advance"), st.integers(1, 30)),
    st.tuples(st.just("watermark"), st.integers(0, 30)),  # a rise (0: the same watermark again)
)


def _absolute_watermarks(steps):
    """Watermark steps are drawn as rises, so the watermark crosses windows one by one; the harness wants values."""
    out, mark = [], 0
    for kind, arg in steps:
        if kind == "watermark":
            mark += arg
            arg = mark
        out.append((kind, arg))
    return out


assigners = st.sampled_from([("fixed", 20), ("sliding", 30, 10), ("global",)])
scenarios = st.fixed_dictionaries({
    "assigner": assigners,
    "mode": st.sampled_from(sorted(MODES)),
    "lateness": st.sampled_from([0, 7, 20, 60]),
    "steps": st.lists(step, min_size=1, max_size=24).map(_absolute_watermarks),
})


def _assigner(spec):
    if spec[0] == "fixed":
        return FixedWindows(Duration(spec[1]))
    if spec[0] == "sliding":
        return SlidingWindows(Duration(spec[1]), Duration(spec[2]))
    return GlobalWindows()


def run_bolt(trigger, scenario):
    bolt = (sum_bolt(_assigner(scenario["assigner"]), mode=MODES[scenario["mode"]]).with_trigger(trigger)
            .with_allowed_lateness(Duration(scenario["lateness"])).with_lag(Duration(10_000)))
    h = harness(bolt)
    for kind, arg in scenario["steps"]:
        if kind == "batch":
            h.feed_batch(arg)
        elif kind == "feed":
            for row in arg:
                h.feed(row)
        elif kind == "advance":
            h.advance(arg)
        else:
            h.advance_watermark(arg)
    h.close()
    got = [(*values[:5], tuple(values[5]), values[6]) for stream, values in h.emitted if stream == "default"]
    return got, h.task.late_tuples, h.task.closed_window_drops


def check(trigger, scenario):
    got, late, closed_drops = run_bolt(trigger, scenario)
    model = expected_output(trigger, scenario["assigner"], scenario["mode"], scenario["lateness"], scenario["steps"])
    assert got == model.panes
    assert (late, closed_drops) == (model.late_tuples, model.closed_window_drops)


def example_settings(f):
    return settings(max_examples=EXAMPLES, deadline=None)(f)


# Leaves -------------------------------------------------------------------------------------------
@example_settings
@given(scenarios)
def test_after_watermark(scenario):
    check(AfterWatermark(), scenario)


@example_settings
@given(counts, scenarios)
def test_after_count(trigger, scenario):
    check(trigger, scenario)


@example_settings
@given(delays, scenarios)
def test_after_processing_time(trigger, scenario):
    check(trigger, scenario)


@example_settings
@given(scenarios)
def test_never(scenario):
    check(Never(), scenario)


@example_settings
@given(scenarios)
def test_default_trigger(scenario):
    check(DefaultTrigger(), scenario)


# Composites ---------------------------------------------------------------------------------------
@example_settings
@given(st.none() | children, st.none() | children, scenarios)
def test_after_watermark_early_and_late(early, late, scenario):
    check(AfterWatermark(early=early, late=late), scenario)


@example_settings
@given(children, scenarios)
def test_repeatedly(child, scenario):
    check(Repeatedly(child), scenario)


@example_settings
@given(st.lists(children, min_size=1, max_size=3), scenarios)
def test_after_each(kids, scenario):
    check(AfterEach(*kids), scenario)


@example_settings
@given(st.lists(children, min_size=1, max_size=3), scenarios)
def test_after_any(kids, scenario):
    check(AfterAny(*kids), scenario)


@example_settings
@given(st.lists(children, min_size=1, max_size=3), scenarios)
def test_after_all(kids, scenario):
    check(AfterAll(*kids), scenario)


@example_settings
@given(children, children, scenarios)
def test_or_finally(main, until, scenario):
    check(OrFinally(main, until), scenario)


@example_settings
@given(children, children, scenarios)
def test_or_finally_method(main, until, scenario):
    check(main.or_finally(until), scenario)


# Beam's Java runner at garbage collection -----------------------------------------------------------
# ReduceFnRunner.onTimers calls onTrigger(isFinished=true); needToEmit keeps an empty pane whose
# timing is ON_TIME under the default OnTimeBehavior.FIRE_ALWAYS.
@pytest.mark.parametrize("lateness", [0, 10])
def test_collection_emits_the_on_time_pane_as_beam(lateness):
    scenario = {
        "assigner": ("fixed", 20), "mode": "accumulating", "lateness": lateness,
        "steps": [("batch", [("a", 5, 3)]), ("watermark", 20), ("watermark", 40)],
    }
    trigger = Repeatedly(AfterCount(1))
    got, _, _ = run_bolt(trigger, scenario)
    model = expected_output(trigger, scenario["assigner"], scenario["mode"], lateness, scenario["steps"])
    assert model.panes == [
        ("a", 0, 20, 3, 19, ("EARLY", 0, -1, False), False),
        ("a", 0, 20, 3, 19, ("ON_TIME", 1, 0, True), False),
    ]
    assert got == model.panes
