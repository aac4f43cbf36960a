"""Every trigger against the brute-force model of ``trigger_model.py``, pane by pane, on random runs.

One test per trigger kind (leaves, and each composite with random children from a strategy of
small trigger trees). A run is random micro-batches (``feed_batch``, or tuples ``feed`` one by one
into a batch left open) of out-of-order records for two keys, random processing-time advances (so
``AfterProcessingTime`` fires at its instants), random upstream watermarks, a random allowed
lateness, fixed, sliding, global, merging session or KIP-450 (``TimeDifferenceWindows``) windows, a
random accumulation mode, timestamp combiner, closing and on-time behaviour, then ``close()``. The
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

from tests.event_time.helpers import harness, replay, sum_bolt
from tests.event_time.trigger_model import expected_output
from windowing import Duration
from windowing.accumulation import AccumulationMode
from windowing.assigners import FixedWindows, GlobalWindows, Sessions, SlidingWindows, TimeDifferenceWindows
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


# Sessions (gap 10 or 25) merge often among timestamps 0..59; ("td", 10) is TimeDifferenceWindows(10 ms, lateness).
assigners = st.sampled_from(
    [
        ("fixed", 20),
        ("sliding", 30, 10),
        ("global",),
        ("sessions", 10),
        ("sessions", 25),
        ("td", 10),
    ]
)
scenarios = st.fixed_dictionaries(
    {
        "assigner": assigners,
        "mode": st.sampled_from(sorted(MODES)),
        "lateness": st.sampled_from([0, 7, 20, 60]),
        "combiner": st.sampled_from(["end_of_window", "earliest", "latest"]),
        "closing": st.sampled_from(["fire_if_non_empty", "fire_always"]),
        "on_time": st.sampled_from(["fire_always", "fire_if_non_empty"]),
        "steps": st.lists(step, min_size=1, max_size=24).map(_absolute_watermarks),
    }
)


def _assigner(spec, lateness):
    if spec[0] == "fixed":
        return FixedWindows(Duration(spec[1]))
    if spec[0] == "sliding":
        return SlidingWindows(Duration(spec[1]), Duration(spec[2]))
    if spec[0] == "sessions":
        return Sessions(Duration(spec[1]))
    if spec[0] == "td":
        return TimeDifferenceWindows(Duration(spec[1]), Duration(lateness))
    return GlobalWindows()


def run_bolt(trigger, scenario):
    windows = _assigner(scenario["assigner"], scenario["lateness"])
    bolt = (
        sum_bolt(windows, mode=MODES[scenario["mode"]])
        .with_trigger(trigger)
        .with_allowed_lateness(Duration(scenario["lateness"]))
        .with_lag(Duration(10_000))
        .with_timestamp_combiner(scenario.get("combiner", "end_of_window"))
        .with_closing_behavior(scenario.get("closing", "fire_if_non_empty"))
        .with_on_time_behavior(scenario.get("on_time", "fire_always"))
    )
    h = harness(bolt)
    replay(h, scenario["steps"])
    h.close()
    got = [(*values[:5], tuple(values[5]), values[6]) for stream, values in h.emitted if stream == "default"]
    return got, h.task.late_tuples, h.task.closed_window_drops


def model_of(trigger, scenario):
    return expected_output(
        trigger,
        scenario["assigner"],
        scenario["mode"],
        scenario["lateness"],
        scenario["steps"],
        combiner=scenario.get("combiner", "end_of_window"),
        closing=scenario.get("closing", "fire_if_non_empty"),
        on_time=scenario.get("on_time", "fire_always"),
    )


def check(trigger, scenario):
    got, late, closed_drops = run_bolt(trigger, scenario)
    model = model_of(trigger, scenario)
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
# timing is ON_TIME under the default OnTimeBehavior.FIRE_ALWAYS. The EARLY pane released the holds:
# collected when the watermark reaches the end (lateness 0), the output watermark is still at 0 and
# the empty pane is ON_TIME; collected later (lateness 10), the output watermark passed the window at
# 20, so the empty pane is LATE and not emitted.
@pytest.mark.parametrize(("lateness", "panes"), [(0, 2), (10, 1)])
def test_collection_emits_the_on_time_pane_as_beam(lateness, panes):
    scenario = {
        "assigner": ("fixed", 20),
        "mode": "accumulating",
        "lateness": lateness,
        "steps": [("batch", [("a", 5, 3)]), ("watermark", 20), ("watermark", 40)],
    }
    trigger = Repeatedly(AfterCount(1))
    got, _, _ = run_bolt(trigger, scenario)
    model = expected_output(trigger, scenario["assigner"], scenario["mode"], lateness, scenario["steps"])
    assert model.panes == [
        ("a", 0, 20, 3, 19, ("EARLY", 0, -1, False), False),
        ("a", 0, 20, 3, 19, ("ON_TIME", 1, 0, True), False),
    ][:panes]
    assert got == model.panes


# Sessions and KIP-450 windows: fixed cases ----------------------------------------------------------
def test_streaming_102_session_walkthrough():
    """Listing 11 (as test_seed_streaming102), replayed by the model: the late 9 joins [10, 70) and [105, 290).

    Since issue 14 a merged session starts its panes afresh, as Beam's Java runner does
    (``ReduceFnRunner.OnMergeCallback.onMerge`` clears the parts' ``PaneInfoTracker`` state): [105, 290)
    has index 0 (it was 1, after [180, 290)'s EARLY pane), and [10, 290), merged once the watermark passed
    its end, is LATE with index 0 (it was 2).
    """
    trigger = AfterWatermark(early=AfterProcessingTime(Duration(60)), late=AfterCount(1))
    scenario = {
        "assigner": ("sessions", 60),
        "mode": "retracting",
        "lateness": 600,
        "steps": [
            ("batch", [("a", 10, 5)]),
            ("batch", [("a", 105, 7)]),
            ("advance", 60),
            ("batch", [("a", 180, 3), ("a", 200, 4)]),
            ("batch", [("a", 230, 3)]),
            ("advance", 60),
            ("batch", [("a", 150, 8)]),
            ("watermark", 300),
            ("batch", [("a", 60, 9)]),
        ],
    }
    model = expected_output(trigger, scenario["assigner"], scenario["mode"], scenario["lateness"], scenario["steps"])
    assert model.panes[-3:] == [
        ("a", 10, 70, 5, 69, ("ON_TIME", 1, 0, False), True),
        ("a", 105, 290, 25, 289, ("ON_TIME", 0, 0, False), True),
        ("a", 10, 290, 39, 289, ("LATE", 0, 0, False), False),
    ]
    check(trigger, scenario)


def test_a_closed_session_does_not_merge():
    """Beam's Java rule (was squall's "reopen" rule before issue 14): a session whose trigger finished is not
    an active window, so it takes no part in merging (``ReduceFnRunner.mergeWindows`` merges the active window
    set only). The 2 at 0 has the closed session's bounds and is dropped; the 4 at 5 opens [5, 15) beside it.
    The point of ``ReduceFnRunnerTest.testMergingWithReusedWindow``, with AfterCount(1)."""
    scenario = {
        "assigner": ("sessions", 10),
        "mode": "accumulating",
        "lateness": 60,
        "steps": [
            ("batch", [("a", 0, 1)]),
            ("batch", [("a", 0, 2)]),
            ("batch", [("a", 5, 4)]),
        ],
    }
    model = model_of(AfterCount(1), scenario)
    assert [(p[1], p[2], p[3], p[5]) for p in model.panes] == [
        (0, 10, 1, ("EARLY", 0, -1, True)),
        (5, 15, 4, ("EARLY", 0, -1, True)),
    ]
    assert model.closed_window_drops == 1
    check(AfterCount(1), scenario)


# A KIP-450 record that no live window holds yet is not late when a window that can hold it is still
# within the grace: docs/event-time.md ("a tuple whose windows all end at or before watermark -
# lateness is dropped") and Kafka's KStreamSlidingWindowAggregate.process, which drops a record only when
# `timestamp + 1 + timeDifference <= streamTime - grace`. It is kept in the partial aggregates, so it is in
# the windows created later, and neither counted late nor sent to the late stream.
TD_LATE = {
    "assigner": ("td", 10),
    "mode": "accumulating",
    "lateness": 0,
    "steps": [
        ("watermark", 1),
        ("batch", [("a", 0, 1), ("a", 1, 1)]),
    ],
}


def test_kip450_record_before_its_windows_is_aggregated_later():
    model = expected_output(AfterWatermark(), TD_LATE["assigner"], "accumulating", 0, TD_LATE["steps"])
    assert [(p[1], p[2], p[3]) for p in model.panes] == [(-9, 2, 2), (1, 12, 1)]  # the 0 is in [-9, 1]
    got, _, _ = run_bolt(AfterWatermark(), TD_LATE)
    assert got == model.panes


def test_kip450_record_before_its_windows_is_not_late():
    model = expected_output(AfterWatermark(), TD_LATE["assigner"], "accumulating", 0, TD_LATE["steps"])
    assert model.late_tuples == 0
    _, late, _ = run_bolt(AfterWatermark(), TD_LATE)
    assert late == model.late_tuples


# A KIP-450 window created from records already there (here the right window [1, 11] of the record at 0,
# called for by the record at 5 that came first) changed in this batch, so its trigger is consulted at the
# end of the batch, as Kafka forwards such a new window at once
# (KStreamSlidingWindowAggregate.createPreviousRecordRightWindow -> updateWindowAndForward).
TD_SEEDED = {
    "assigner": ("td", 10),
    "mode": "accumulating",
    "lateness": 0,
    "steps": [
        ("batch", [("a", 5, 1)]),
        ("batch", [("a", 0, 2)]),
        ("watermark", 8),
    ],
}


def test_kip450_seeded_window_is_consulted_in_its_batch():
    trigger = Repeatedly(AfterCount(1))
    model = expected_output(trigger, TD_SEEDED["assigner"], "accumulating", 0, TD_SEEDED["steps"])
    assert ("a", 1, 12, 1, 11, ("EARLY", 0, -1, False), False) in model.panes
    got, _, _ = run_bolt(trigger, TD_SEEDED)
    assert got == model.panes


# The reviewed streams of issue 14 (their Java answers are asserted in test_beam_reduce_fn_runner.py) ----
_REVIEWED = {"mode": "accumulating", "lateness": 100, "combiner": "earliest"}


@pytest.mark.parametrize(
    ("trigger", "scenario"),
    [
        (  # AfterEach in merging windows runs every child
            AfterEach(AfterCount(1), AfterCount(2)),
            {**_REVIEWED, "assigner": ("sessions", 15),
             "steps": [("batch", [("a", 0, 0)]), ("batch", [("a", 20, 20), ("a", 10, 10)]),
                       ("batch", [("a", 30, 30)])]},
        ),
        (  # AfterProcessingTime comes back after a merge
            AfterEach(AfterProcessingTime(Duration(5)), AfterCount(2)),
            {**_REVIEWED, "assigner": ("sessions", 10),
             "steps": [("batch", [("a", 0, 0)]), ("advance", 6), ("batch", [("a", 12, 12)]), ("advance", 1),
                       ("batch", [("a", 8, 8)]), ("advance", 6)]},
        ),
        (  # a merge onto a closed session's bounds drops the open parts
            AfterCount(1),
            {**_REVIEWED, "mode": "discarding", "lateness": 50, "assigner": ("sessions", 10),
             "steps": [("batch", [("a", 1, 1), ("a", 8, 8)]), ("batch", [("a", 1, 1), ("a", 2, 2), ("a", 8, 8)]),
                       ("watermark", 100)]},
        ),
        (  # the batch's sessions merge first: the 8 is not dropped for meeting the closed [1, 18): all dropped
            AfterCount(1),
            {**_REVIEWED, "mode": "discarding", "lateness": 50, "assigner": ("sessions", 10),
             "steps": [("batch", [("a", 1, 1), ("a", 8, 8)]), ("batch", [("a", 8, 8), ("a", 1, 1), ("a", 2, 2)]),
                       ("watermark", 100)]},
        ),
        (  # AfterEach clears AfterWatermark's state in merging windows, not its phase
            AfterEach(AfterWatermark(late=AfterCount(2)), AfterCount(1)),
            {**_REVIEWED, "mode": "discarding", "lateness": 100, "assigner": ("sessions", 10),
             "steps": [("watermark", 0), ("batch", [("a", 1, 1)]), ("watermark", 20), ("batch", [("a", 1, 1)]),
                       ("batch", [("a", 1, 1)]), ("batch", [("a", 1, 1)])]},
        ),
        (  # a merge back to the early phase clears a count the on-time pane finished
            AfterWatermark(early=AfterCount(2), late=AfterCount(1)),
            {**_REVIEWED, "lateness": 100, "assigner": ("sessions", 10),
             "steps": [("watermark", 0), ("batch", [("a", 0, 1)]), ("watermark", 15), ("batch", [("a", 12, 1)]),
                       ("batch", [("a", 9, 1)]), ("watermark", 30)]},
        ),
        (  # the early delay runs in the late phase of merging windows
            AfterWatermark(early=AfterProcessingTime(Duration(5)), late=AfterCount(1)),
            {**_REVIEWED, "lateness": 100, "assigner": ("sessions", 10),
             "steps": [("watermark", 0), ("batch", [("a", 0, 1)]), ("watermark", 15), ("advance", 1),
                       ("batch", [("a", 0, 1)]), ("advance", 3), ("batch", [("a", 12, 1)]), ("advance", 1),
                       ("batch", [("a", 9, 1)]), ("advance", 1), ("watermark", 30)]},
        ),
        (  # the parts' holds keep a window merged after its end on time
            Repeatedly(AfterCount(2)),
            {**_REVIEWED, "assigner": ("sessions", 10),
             "steps": [("watermark", 0), ("batch", [("a", 0, 0)]), ("batch", [("a", 15, 15)]), ("watermark", 30),
                       ("batch", [("a", 8, 8)])]},
        ),
        (  # the window's own hold keeps the output watermark back
            AfterWatermark(),
            {**_REVIEWED, "lateness": 0, "combiner": "latest", "assigner": ("fixed", 100),
             "steps": [("watermark", 0), ("batch", [("a", 10, 10)]), ("watermark", 50), ("batch", [("a", 30, 30)]),
                       ("watermark", 100)]},
        ),
    ],
)
def test_reviewed_streams(trigger, scenario):
    check(trigger, scenario)
