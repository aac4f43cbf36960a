"""Consulting a window's trigger and emitting its panes (with retractions first, when the mode retracts).

Panes are decided one window at a time but emitted in bulk: :class:`PaneEmitter`
keeps the rows of the panes it decides and :meth:`PaneEmitter.flush` hands them
to the task's sink in one call (its ``extend``, when it has one), in order. The
task flushes after every round of consultations, before anything else is
emitted, so the order of everything the task emits is the order the panes were
decided in. Expiring windows, the bulk of a watermark move, are collected by
:meth:`PaneEmitter.collect_all` with a few Python operations per pane.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bolts.aggregate.holds import release
from bolts.aggregate.spec import AggregateSpec
from bolts.aggregate.window_state import NO_PANES, WindowState
from windowing.panes import PaneInfo, Timing, describe_pane, next_pane
from windowing.triggers.base import evaluate
from windowing.triggers.context import TriggerContext, TriggerResult
from windowing.triggers.leaves import DefaultTrigger

Emit = Callable[[list[Any]], None]
EmitRows = Callable[[list[list[Any]]], None]


class PaneEmitter:
    """Decides and emits panes for windows; the task tells it the watermark, the time and whether GC is due."""

    def __init__(self, spec: AggregateSpec, emit: Emit) -> None:
        self.spec = spec
        self.emit = emit  # one pane's values
        self.emit_rows: EmitRows | None = None  # many panes' values at once (the sink's extend), when set
        self.rows: list[list[Any]] = []  # the panes decided since the last flush
        # The default trigger fires exactly when the watermark is at or past the window's end and never
        # finishes (no state: merges leave it unfinished), so it is decided without a trigger context.
        self._at_end = type(spec.trigger) is DefaultTrigger
        self._retracts, self._discards = spec.mode.retracts, spec.mode.discards
        self._filter = spec.pane_filter

    def consult(self, ws: WindowState, *, watermark: int, output_wm: int, now: int, expiring: bool) -> None:
        """Consult the trigger once; on garbage collection emit the window's final pane.

        At garbage collection an open window whose trigger does not fire still
        gets a last pane, as in Beam's Java runner (``ReduceFnRunner.onTimers``
        calls ``onTrigger`` with ``isFinished``); whether it is emitted is decided
        by :meth:`pane`. A pane fired by the trigger in the same step as garbage
        collection is the last one. A closed window (its trigger finished) emits
        nothing more. ``watermark`` is the input watermark, ``output_wm`` the
        key's held output watermark (:mod:`bolts.aggregate.holds`).
        """
        if ws.closed:
            return
        if self._at_end:
            if watermark >= ws.window.end:
                self.pane(ws, watermark=watermark, output_wm=output_wm, is_last=expiring)
            elif expiring:
                self.pane(ws, watermark=watermark, output_wm=output_wm, is_last=True)
            return
        spec = self.spec
        ctx = TriggerContext(
            ws.trigger, window_end=ws.window.end, watermark=watermark, now=now, timers=ws.timers, merging=spec.merging
        )
        result = evaluate(spec.trigger, ctx)
        if result.fires:
            finishing = result is TriggerResult.FIRE_AND_FINISH
            self.pane(ws, watermark=watermark, output_wm=output_wm, is_last=finishing or expiring)
            ws.closed = finishing
        elif expiring:
            self.pane(ws, watermark=watermark, output_wm=output_wm, is_last=True)

    def flush(self) -> None:
        """Emit the panes decided since the last flush, in order: one ``emit_rows`` call, or ``emit`` each."""
        rows, self.rows = self.rows, []
        if not rows:
            return
        if self.emit_rows is not None:
            self.emit_rows(rows)
            return
        for values in rows:
            self.emit(values)

    def collect_all(self, windows: list[WindowState], *, watermark: int, marks: dict[Any, int], base: int) -> None:
        """:meth:`collect` of each window of ``windows``, in order, for windows deleted right after.

        ``marks``/``base``: the keys' held output watermarks and the input
        watermark they default to. The same panes as :meth:`collect` of each,
        decided in one loop (the pane, its timestamp and key inline).
        """
        spec, rows = self.spec, self.rows
        extract, key_out, retracts = spec.aggregator.extract, spec.key_out, self._retracts
        on_time_always = spec.on_time_behavior == "fire_always"
        closing_always = spec.closing_behavior == "fire_always"
        at_end = spec.timestamp_combiner == "end_of_window"
        first_panes: dict[tuple[int, int], PaneInfo] = {}  # a window's first pane depends on its end and marks only
        for ws in windows:
            if ws.closed:
                continue
            window = ws.window
            output_wm = marks.get(ws.key, base)
            if ws.history is NO_PANES:
                pane = first_panes.get((window.end, output_wm))
                if pane is None:
                    pane = first_panes[window.end, output_wm] = next_pane(
                        NO_PANES, input_wm=watermark, output_wm=output_wm, window_end=window.end, is_last=True)
            else:
                pane = next_pane(ws.history, input_wm=watermark, output_wm=output_wm, window_end=window.end,
                                 is_last=True)
            if not (ws.has_new or closing_always or (on_time_always and pane.timing == Timing.ON_TIME)):
                continue  # an empty last pane no behaviour asks for
            key = key_out(ws.key)
            if retracts:
                self._retract(key, ws)
            if self._filter is not None and not self._filter(ws.acc):
                continue  # a pane the filter refuses: only the retractions of what stood for the window
            ts = window.end - 1 if at_end or ws.hold is None else self._timestamp(ws)  # _timestamp's common case
            rows.append([key, window.start, window.end, extract(ws.acc), ts, pane, False])

    def _retract(self, key: Any, ws: WindowState) -> None:
        """The retractions due before the window's next pane: merged windows' last panes, then its own."""
        rows = self.rows
        for start, end, old_value, old_ts, old_pane in ws.retractions:
            rows.append([key, start, end, old_value, old_ts, PaneInfo.from_data(old_pane), True])
        if ws.last is not None:
            old_value, old_ts, old_pane = ws.last
            rows.append([key, ws.window.start, ws.window.end, old_value, old_ts, PaneInfo.from_data(old_pane), True])

    def collect(self, ws: WindowState, *, watermark: int, output_wm: int) -> None:
        """What :meth:`consult` emits for an expiring window, for a window deleted right after: nothing kept.

        At garbage collection an open window gets exactly one pane, its last,
        whatever its trigger says (a pane the trigger fires is the last one;
        without one, the garbage-collection pane), so the trigger is not
        evaluated; and nothing of the window is updated, since it is deleted.
        A closed window emits nothing.
        """
        if not ws.closed:
            self.pane(ws, watermark=watermark, output_wm=output_wm, is_last=True, keep=False)

    def pane(self, ws: WindowState, *, watermark: int, output_wm: int, is_last: bool, keep: bool = True) -> None:
        """Emit the window's pane now, unless it is empty and no behaviour asks for an empty pane.

        As Beam's ``ReduceFnRunner.needToEmit``: a pane with tuples added since the
        last one is emitted; an empty one only when it is the ON_TIME pane under
        ``with_on_time_behavior("fire_always")`` (the default) or the last pane
        under ``with_closing_behavior("fire_always")``. Without ``keep`` the
        window's state is left as it was (holds, pane history, last pane,
        accumulator): for a window deleted right after.
        """
        spec = self.spec
        pane, history = describe_pane(
            ws.history, input_wm=watermark, output_wm=output_wm, window_end=ws.window.end, is_last=is_last
        )
        ts = self._timestamp(ws)
        # Every pane decided releases the holds, emitted or not (ReduceFnRunner.onTrigger): an empty ON_TIME
        # pane skipped under fire_if_non_empty lets the output watermark pass the window, so a later pane
        # is LATE (ReduceFnRunnerTest's testEmptyOnTimeWithOnTimeBehaviorFireIfNonEmpty*).
        if keep:
            release(ws, spec, finished=is_last, input_wm=watermark)
        if not ws.has_new:
            wanted_on_time = pane.timing == Timing.ON_TIME and spec.on_time_behavior == "fire_always"
            if not wanted_on_time and not (is_last and spec.closing_behavior == "fire_always"):
                return
        if self._filter is not None and not self._filter(ws.acc):
            self._withdraw(ws, keep)
            return
        value = spec.aggregator.extract(ws.acc)
        if spec.fire_only_updated and not is_last and ws.last is not None and ws.last[0] == value:
            return
        key = spec.key_out(ws.key)
        if self._retracts:
            self._retract(key, ws)
        self.rows.append([key, ws.window.start, ws.window.end, value, ts, pane, False])
        if not keep:
            return
        ws.history = history
        ws.retractions = []
        ws.last = [value, ts, list(pane)]
        ws.has_new = False
        if self._discards:
            ws.acc = spec.aggregator.create()

    def _withdraw(self, ws: WindowState, keep: bool) -> None:
        """A pane ``pane_filter`` refuses: not emitted, and the window keeps its data for its next pane.

        When the mode retracts, what stood for the window is retracted now (its
        last pane, and merged windows' last panes), since no pane replaces it;
        its pane history is left as it was, so pane indexes count emitted panes.
        """
        if not self._retracts or (ws.last is None and not ws.retractions):
            return
        self._retract(self.spec.key_out(ws.key), ws)
        if keep:
            ws.last, ws.retractions = None, []

    def _timestamp(self, ws: WindowState) -> int:
        """The pane's output timestamp: from the holds of its tuples, else the window's last timestamp.

        As Beam's ``WatermarkHold.extractAndRelease``: the timestamp combiner over
        the tuples that held the output timestamp since the last pane (in every
        accumulation mode: the holds are released at each pane), and the window's
        ``max_timestamp`` (``end - 1``, Beam's ``window.maxTimestamp()``) when none
        did (all were behind the watermark, or the pane is empty).
        """
        combiner = self.spec.timestamp_combiner
        if combiner == "end_of_window" or ws.hold is None:
            return ws.window.max_timestamp
        return ws.hold[0] if combiner == "earliest" else ws.hold[1]
