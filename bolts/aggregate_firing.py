"""Consulting a window's trigger and emitting its panes (with retractions first, when the mode retracts)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bolts.aggregate_spec import AggregateSpec
from bolts.aggregate_window_state import WindowState
from windowing.panes import PaneInfo, describe_pane, would_be_on_time
from windowing.trigger_base import evaluate
from windowing.trigger_context import TriggerContext, TriggerResult

Emit = Callable[[list[Any]], None]


class PaneEmitter:
    """Decides and emits panes for windows; the task tells it the watermark, the time and whether GC is due."""

    def __init__(self, spec: AggregateSpec, emit: Emit) -> None:
        self.spec = spec
        self.emit = emit

    def consult(self, ws: WindowState, *, watermark: int, now: int, expiring: bool) -> None:
        """Consult the trigger once; on garbage collection emit the window's final pane.

        At garbage collection an open window whose trigger does not fire still
        emits a last pane when it holds data not yet emitted, or when that pane
        would be its ON_TIME pane (a window that emitted only EARLY panes), as
        Beam's Java runner does under its default ``OnTimeBehavior.FIRE_ALWAYS``.
        A pane fired by the trigger in the same step as garbage collection is the
        last one. A closed window (its trigger finished) emits nothing more.
        """
        if ws.closed:
            return
        ctx = TriggerContext(ws.trigger, window_end=ws.window.end, watermark=watermark, now=now, timers=ws.timers)
        result = evaluate(self.spec.trigger, ctx)
        if result.fires:
            finishing = result is TriggerResult.FIRE_AND_FINISH
            self.pane(ws, watermark=watermark, is_last=finishing or expiring)
            ws.closed = finishing
        elif expiring:
            self.pane(ws, watermark=watermark, is_last=True)

    def pane(self, ws: WindowState, *, watermark: int, is_last: bool) -> None:
        """Emit the window's pane now, unless it holds nothing new (an ON_TIME pane is emitted anyway)."""
        spec = self.spec
        on_time = would_be_on_time(
            ws.history, watermark=watermark, window_end=ws.window.end, had_on_time_data=ws.on_time_data
        )
        if not ws.has_new and not on_time:
            return
        value = spec.aggregator.extract(ws.acc)
        if spec.fire_only_updated and not is_last and ws.last is not None and ws.last[0] == value:
            return
        pane, ws.history = describe_pane(
            ws.history, watermark=watermark, window_end=ws.window.end, had_on_time_data=ws.on_time_data,
            is_last=is_last,
        )
        ts = self._timestamp(ws)
        key = spec.key_out(ws.key)
        if spec.mode.retracts:
            for start, end, old_value, old_ts, old_pane in ws.retractions:
                self.emit([key, start, end, old_value, old_ts, PaneInfo.from_data(old_pane), True])
            if ws.last is not None:
                old_value, old_ts, old_pane = ws.last
                self.emit([key, ws.window.start, ws.window.end, old_value, old_ts, PaneInfo.from_data(old_pane), True])
            ws.retractions = []
        self.emit([key, ws.window.start, ws.window.end, value, ts, pane, False])
        ws.last = [value, ts, list(pane)]
        ws.has_new = False
        ws.pane_ts = None
        if spec.mode.discards:
            ws.acc = spec.aggregator.create()

    def _timestamp(self, ws: WindowState) -> int:
        combiner = self.spec.timestamp_combiner
        span = ws.pane_ts if self.spec.mode.discards else ws.all_ts
        if combiner == "end_of_window" or span is None:
            return ws.window.max_timestamp
        return span[0] if combiner == "earliest" else span[1]
