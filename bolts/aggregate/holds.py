"""Watermark holds and the output watermark, as Beam Java's ``WatermarkHold`` keeps them.

A window holds the output watermark with an *element hold* (the tuples added
since its last pane that were not behind the output watermark when they came,
combined by the timestamp combiner: the earliest, the latest, or the window's
``max_timestamp``) and an *extra hold* (Beam's garbage-collection hold at
``end - 1 + allowed lateness``: for a tuple too late to hold, and after a pane
under ``with_closing_behavior("fire_always")``). Every pane releases both.

The output watermark of a key is the input watermark held back by the holds of
that key's windows, recomputed each time the input watermark is moved, after
the windows it completes were consulted (as Beam's ``ReduceFnTester`` moves
it after the timers). squall holds it per key, not per task as Beam holds a
stage's: so answers do not depend on how keys are dealt to tasks. It decides
pane timing (``PaneInfoTracker.describePane``: LATE once it passed the window)
and which tuples hold. The watermark forwarded downstream is not held.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from windowing.assigners import END_OF_TIME

if TYPE_CHECKING:
    from bolts.aggregate.spec import AggregateSpec
    from bolts.aggregate.window_state import WindowState


def add_holds(
    ws: WindowState,
    spec: AggregateSpec,
    held: tuple[int, int] | None,
    behind: bool,
    *,
    input_wm: int,
    output_wm: int,
) -> None:
    """Hold for tuples just added to ``ws`` (``WatermarkHold.addHolds``).

    ``held``: the smallest and largest timestamps of those not behind
    ``output_wm``; ``behind``: whether some were behind it. A tuple holds at its
    timestamp (``max_timestamp`` with ``end_of_window``) when that is not behind
    the output watermark and the input watermark has not passed the window's
    last timestamp; otherwise it adds the garbage-collection hold.
    """
    window = ws.window
    open_for_input = input_wm < window.end
    if spec.timestamp_combiner == "end_of_window":
        ok = window.max_timestamp >= output_wm and open_for_input
        if ok:
            ws.hold_timestamps(window.max_timestamp, window.max_timestamp)
        else:
            add_gc_hold(ws, spec, input_wm=input_wm, pane_is_empty=False)
        return
    if held is not None and open_for_input:
        ws.hold_timestamps(*held)
    elif held is not None:
        behind = True
    if behind:
        add_gc_hold(ws, spec, input_wm=input_wm, pane_is_empty=False)


def add_gc_hold(ws: WindowState, spec: AggregateSpec, *, input_wm: int, pane_is_empty: bool) -> None:
    """``WatermarkHold.addGarbageCollectionHold``: at ``end - 1 + lateness`` unless the input watermark passed it.

    For an empty pane (after a pane was emitted) only with
    ``with_closing_behavior("fire_always")``.
    """
    gc = min(ws.window.max_timestamp + spec.allowed_lateness_ms, END_OF_TIME - 1)
    if gc < input_wm or (pane_is_empty and spec.closing_behavior == "fire_if_non_empty"):
        return
    ws.extra_hold = gc if ws.extra_hold is None else min(ws.extra_hold, gc)


def release(ws: WindowState, spec: AggregateSpec, *, finished: bool, input_wm: int) -> None:
    """A pane was decided (``WatermarkHold.extractAndRelease``): clear the holds; re-add the GC hold if not last."""
    ws.hold = None
    ws.extra_hold = None
    if not finished:
        add_gc_hold(ws, spec, input_wm=input_wm, pane_is_empty=True)


def merge_holds(
    merged: WindowState, sources: list[WindowState], spec: AggregateSpec, *, input_wm: int, output_wm: int
) -> None:
    """``WatermarkHold.onMerge``: the parts' element holds combine; the extra hold is the merged window's GC hold.

    With ``end_of_window`` the parts' holds are dropped and the merged window
    holds at its own ``max_timestamp`` when that may still hold.
    """
    if spec.timestamp_combiner == "end_of_window":
        window = merged.window
        if window.max_timestamp >= output_wm and input_wm < window.end:
            merged.hold_timestamps(window.max_timestamp, window.max_timestamp)
    else:
        for ws in sources:
            if ws.hold is not None:
                merged.hold_timestamps(ws.hold[0], ws.hold[1])
    merged.extra_hold = None
    add_gc_hold(merged, spec, input_wm=input_wm, pane_is_empty=False)


def holding(ws: WindowState, combiner: str) -> int | None:
    """Where ``ws`` holds the output watermark: its element hold (as combined) or its extra hold, the earlier."""
    element = None
    if ws.hold is not None:
        element = ws.hold[1] if combiner == "latest" else ws.hold[0]
    if element is None:
        return ws.extra_hold
    return element if ws.extra_hold is None else min(element, ws.extra_hold)
