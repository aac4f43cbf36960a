"""Session windows merging, as Beam's Java runner merges them: a batch's plan, the open sessions, merged windows.

:class:`SessionMerging` is the session part of
:class:`bolts.aggregate.windows.WindowTable`: which open sessions a
proto-session overlaps (by bisection), a batch's proto-sessions merged first
(``plan_sessions``), and a merged window built aside (``merged_window``) and
put in place of its parts (``install``). Open sessions of a key never overlap
(nor touch, under Spark's rules), so sorted by start they are sorted by end.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bolts.aggregate.holds import merge_holds
from bolts.aggregate.window_state import Key, WindowState
from windowing.assigners import Window
from windowing.triggers.context import TriggerContext

if TYPE_CHECKING:
    from bolts.aggregate.spec import AggregateSpec


class SessionMerging:
    """Merging session windows; mixed into ``WindowTable``, whose windows, index and changes it uses."""

    spec: AggregateSpec
    sessions: dict[Key, list[Window]]
    session_plan: dict[Key, list[Window]]
    _touching: int

    def expired(self, window: Window, watermark: int) -> bool: ...  # noqa: D102 - WindowTable's

    def output_watermark(self, key: Key) -> int: ...  # noqa: D102 - WindowTable's

    def delete(self, ws: WindowState) -> None: ...  # noqa: D102 - WindowTable's

    def touch(self, ws: WindowState) -> None: ...  # noqa: D102 - WindowTable's

    def _adopt(self, ws: WindowState) -> WindowState: ...

    @property
    def touching(self) -> int:
        """1 when sessions that only touch merge (Spark's rules), else 0: how far session bounds reach."""
        return self._touching

    def plan_sessions(self, items: list[tuple[Key, int]], watermark: int) -> None:
        """Merge a batch's proto-sessions, per key, with each other and the open sessions they overlap.

        As Beam's ``ReduceFnRunner.processElements`` merges the windows of a whole
        bundle (``mergeWindows``) before it looks at any element, and only then asks
        whether each element's merged window is closed: which tuples are dropped
        does not depend on their order in the batch. :meth:`place` then puts each
        tuple of ``items`` straight into its merged session; an empty ``items``
        clears the plan.
        """
        gap = self.spec.assigner.gap_ms  # type: ignore[union-attr]
        protos: dict[Key, set[Window]] = {}
        for key, ts in items:
            proto = Window(ts, ts + gap)
            if not self.expired(proto, watermark):
                found = protos.setdefault(key, set())
                found.add(proto)
                found.update(self.sessions_overlapping(key, proto))
        self.session_plan = {key: _merged_runs(found, self._touching) for key, found in protos.items()}

    def _planned(self, key: Key, proto: Window) -> Window:
        """The merged session of this batch's plan that holds ``proto`` (``proto`` itself without a plan)."""
        runs = self.session_plan.get(key)
        if not runs:
            return proto
        i = bisect_right(runs, proto.start, key=lambda w: w.start) - 1
        return runs[i] if i >= 0 and proto.end <= runs[i].end else proto

    def sessions_overlapping(self, key: Key, proto: Window) -> list[Window]:
        """The open sessions of ``key`` that ``proto`` overlaps, by bisection: O(log n + overlaps), not O(n)."""
        sessions = self.sessions.get(key, [])
        # Sessions never overlap, so sorted by start they are sorted by end too: the ones that
        # start before proto ends form a prefix, and those of them that end after proto starts
        # are its tail.
        reach = self._touching
        hi = bisect_left(sessions, proto.end + reach, key=lambda w: w.start)
        lo = hi
        while lo > 0 and sessions[lo - 1].end + reach > proto.start:
            lo -= 1
        return sessions[lo:hi]

    def _merge(self, key: Key, window: Window, sources: list[WindowState], watermark: int, now: int) -> WindowState:
        """Replace the open sessions ``sources`` by one new window over ``window`` (:meth:`merged_window`)."""
        return self.install(self.merged_window(key, window, sources, watermark, now), sources)

    def merged_window(
        self, key: Key, window: Window, sources: list[WindowState], watermark: int, now: int
    ) -> WindowState:
        """The window over ``window`` that replaces the open sessions ``sources``, as Beam's Java runner merges.

        ``ReduceFnRunner.OnMergeCallback.onMerge``: values and trigger state are
        merged (``TriggerStateMachineRunner.onMerge`` over the merged windows only,
        not the new proto-session, which has no state), the element holds combine
        (``WatermarkHold.onMerge``), and the pane history of the parts is dropped
        (``paneInfoTracker.clear``): the merged window's first pane has index 0. The
        parts' holds carried over keep the key's output watermark where it was, so
        that pane is ON_TIME or LATE by the output watermark like any other. When
        the merged trigger is finished at once the window is closed.

        The window is built aside: neither it nor ``sources`` (nor their
        accumulators or trigger states) change the table until :meth:`install`.
        """
        spec = self.spec
        merged = WindowState(key, window, spec.aggregator.merge([ws.acc for ws in sources]), -1)
        ctx = TriggerContext(
            merged.trigger, window_end=window.end, watermark=watermark, now=now, timers=merged.timers, merging=True
        )
        source_ctxs = [
            TriggerContext(ws.trigger, window_end=ws.window.end, watermark=watermark, now=now, merging=True)
            for ws in sources
        ]
        spec.trigger.on_merge(ctx, source_ctxs)
        merged.closed = ctx.finished
        merged.has_new = any(ws.has_new for ws in sources)
        merged.batch_tuples = sum(ws.batch_tuples for ws in sources)
        merge_holds(merged, sources, spec, input_wm=watermark, output_wm=self.output_watermark(key))
        if spec.mode.retracts:
            for ws in sources:
                merged.retractions.extend(ws.retractions)
                if ws.last is not None:
                    merged.retractions.append([ws.window.start, ws.window.end, *ws.last])
        return merged

    def install(self, merged: WindowState, sources: Sequence[WindowState]) -> WindowState:
        """Put ``merged`` (from :meth:`merged_window`) in the table in place of ``sources``."""
        for ws in sources:
            self.delete(ws)
        self._adopt(merged)
        self.touch(merged)
        return merged


def _merged_runs(windows: set[Window], reach: int = 0) -> list[Window]:
    """The spans of the overlapping runs of ``windows`` (touching overlaps only with ``reach`` 1), sorted by start."""
    runs: list[Window] = []
    for w in sorted(windows, key=lambda w: (w.start, w.end)):
        if runs and w.start < runs[-1].end + reach:
            runs[-1] = runs[-1].span(w)
        else:
            runs.append(w)
    return runs
