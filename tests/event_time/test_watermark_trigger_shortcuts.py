"""The runtime's shortcuts around triggers give exactly what consulting the trigger gives.

Three shortcuts (issue 22): a window whose trigger is ``silent_before_end`` is
not consulted when its batch closes while the watermark is before its end; the
default trigger is decided without a trigger context (it fires exactly when the
watermark is at or past the end); and an expiring window's last pane is emitted
without consulting its trigger and without updating the window it deletes
(``PaneEmitter.collect``, and ``collect_all`` when every window due expires, its
panes handed to the sink in one call). The oracle is the same trigger behind a subclass that
opts out of the first two, run by a task with the third turned off. Panes, late
tuples and the whole task state must be equal after every batch, with tuples
placed one by one and on columns.
"""

from __future__ import annotations

import copy
import os

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import Fields, TaskOptions, Tuple, WindowedAggregateBolt, make_task
from bolts.task_input import TaskInput
from windowing import AccumulationMode, Duration, FixedWindows, Sessions, SlidingWindows, aggregators
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

FIELDS = Fields("key", "ts", "v")
SCHEMA = pa.schema([("key", pa.string()), ("ts", pa.int64()), ("v", pa.int64())])


class ConsultedDefault(DefaultTrigger):
    """The default trigger, consulted as any trigger is: neither shortcut applies."""

    def silent_before_end(self) -> bool:
        return False


class ConsultedWatermark(AfterWatermark):
    """``AfterWatermark`` consulted at every batch close."""

    def silent_before_end(self) -> bool:
        return False


class ConsultedNever(Never):
    """``Never`` consulted at every batch close."""

    def silent_before_end(self) -> bool:
        return False


PAIRS = [  # (trigger the runtime may shortcut, the same trigger consulted every time)
    (DefaultTrigger(), ConsultedDefault()),
    (AfterWatermark(), ConsultedWatermark()),
    (AfterWatermark(late=AfterCount(2)), ConsultedWatermark(late=AfterCount(2))),
    (Never(), ConsultedNever()),
    (Repeatedly(DefaultTrigger()), Repeatedly(ConsultedDefault())),
    (OrFinally(DefaultTrigger(), Never()), OrFinally(ConsultedDefault(), Never())),
    # Not silent: only the collection shortcut differs.
    (Repeatedly(AfterCount(2)), Repeatedly(AfterCount(2))),
    (AfterCount(3), AfterCount(3)),
    (AfterProcessingTime(Duration(700)), AfterProcessingTime(Duration(700))),
    (
        AfterWatermark(early=AfterCount(2), late=AfterProcessingTime(Duration(600))),
        ConsultedWatermark(early=AfterCount(2), late=AfterProcessingTime(Duration(600))),
    ),
]


@pytest.mark.parametrize(
    ("trigger", "silent"),
    [
        (DefaultTrigger(), True),
        (Never(), True),
        (AfterWatermark(), True),
        (AfterWatermark(late=AfterProcessingTime(Duration(10))), True),
        (AfterWatermark(early=AfterCount(1)), False),
        (AfterCount(2), False),
        (AfterProcessingTime(Duration(10)), False),
        (Repeatedly(DefaultTrigger()), True),
        (Repeatedly(AfterCount(1)), False),
        (AfterEach(AfterWatermark(), Never()), True),
        (AfterEach(AfterWatermark(), AfterCount(1)), False),
        (AfterAny(DefaultTrigger(), Never()), True),
        (AfterAll(DefaultTrigger(), AfterCount(1)), False),
        (OrFinally(DefaultTrigger(), Never()), True),
        (DefaultTrigger().or_finally(AfterCount(3)), False),
    ],
    ids=repr,
)
def test_only_triggers_that_cannot_fire_before_the_end_are_silent_before_it(trigger, silent):
    assert trigger.silent_before_end() is silent


class _Sink:
    """A sink that takes many panes at once (``extend``), as the batch loop's does: panes are emitted in bulk."""

    def __init__(self, emitted):
        self.emitted = emitted

    def __call__(self, stream, values):
        self.emitted.append((stream, values))

    def extend(self, stream, rows):
        self.emitted.extend((stream, values) for values in rows)


def _task(bolt, bulk=False):
    emitted: list = []
    task = make_task(copy.deepcopy(bolt), TaskOptions(component="agg", input_streams=[("spout", "default")],
                                                      watermark_at_batch_end=True))
    task.prepare({}, _Sink(emitted) if bulk else lambda stream, values: emitted.append((stream, values)))
    return task, emitted


rows = st.lists(
    st.tuples(st.sampled_from(["a", "b", None]), st.integers(-1_000, 6_000), st.none() | st.integers(-9, 9)),
    max_size=20,
)


@settings(max_examples=int(os.environ.get("SQUALL_EXAMPLES", "150")), deadline=None)
@given(
    batches=st.lists(rows, min_size=1, max_size=6),
    pair=st.sampled_from(PAIRS),
    assigner=st.sampled_from([FixedWindows(Duration(1_000)), SlidingWindows(Duration(1_000), Duration(400))]),
    mode=st.sampled_from(list(AccumulationMode)),
    lateness=st.sampled_from([0, 900]),
    combiner=st.sampled_from(["end_of_window", "earliest", "latest"]),
    closing=st.sampled_from(["fire_if_non_empty", "fire_always"]),
    on_time=st.sampled_from(["fire_always", "fire_if_non_empty"]),
    on_columns=st.booleans(),
)
def test_shortcuts_give_the_panes_and_state_of_consulting_the_trigger(
    batches, pair, assigner, mode, lateness, combiner, closing, on_time, on_columns
):
    def bolt(trigger):
        return (
            WindowedAggregateBolt(aggregators.sum("v"), key_fields=("key",))
            .with_windows(assigner)
            .with_timestamp_field("ts")
            .with_trigger(trigger)
            .with_accumulation_mode(mode)
            .with_allowed_lateness(Duration(lateness))
            .with_timestamp_combiner(combiner)
            .with_closing_behavior(closing)
            .with_on_time_behavior(on_time)
            .with_lag(Duration(300))
            .with_watermark_interval(Duration(500))
            .with_late_tuple_stream("late")
        )

    fast, fast_out = _task(bolt(pair[0]), bulk=True)  # expiring windows collected and emitted in bulk
    consulted, consulted_out = _task(bolt(pair[1]))
    consulted.collect_unconsulted = False
    for b, batch in enumerate(batches):
        for task in (fast, consulted):
            if on_columns:
                table = pa.table({f: [row[i] for row in batch] for i, f in enumerate(FIELDS)}, schema=SCHEMA)
                given_input = TaskInput()
                given_input.append_table("spout", 0, "default", FIELDS, table)
            else:
                given_input = TaskInput.of([Tuple(row, FIELDS, "default", "spout", 0) for row in batch])
            task.advance_to(1_000 * (b + 1))
            if len(given_input):
                task.execute_batch(given_input)
            task.end_batch()
        assert fast_out == consulted_out, f"batch {b}"
        assert fast.snapshot() == consulted.snapshot(), f"batch {b}"
    fast.close()
    consulted.close()
    assert fast_out == consulted_out
    assert (fast.late_tuples, fast.closed_window_drops) == (consulted.late_tuples, consulted.closed_window_drops)


def test_session_windows_consult_even_silent_triggers_at_every_batch_close():
    # A merge can take a window back before its end, so the silence rule is for windows that do not merge.
    bolt = (
        WindowedAggregateBolt(aggregators.sum("v"), key_fields=("key",))
        .with_windows(Sessions(Duration(100)))
        .with_timestamp_field("ts")
    )
    task, _ = _task(bolt)
    assert not task._quiet_before_end
    task, _ = _task(bolt.with_windows(FixedWindows(Duration(100))))
    assert task._quiet_before_end
