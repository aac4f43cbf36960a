"""When a task's windows are due: when the watermark passes their end or their lateness, or at a timer.

Window ends, and ends plus the allowed lateness (garbage collection), are kept
in :class:`DueBuckets`: a heap of the distinct instants, each with the
``(creation number, window id)`` of its windows. Fixed and sliding windows end
on a grid, so there are few instants and a window costs one append when it is
created and one look-up when it is due, never a heap push or pop of its own.
Each window's earliest processing-time timer is in a heap of ``(instant,
creation number, window id)``. Entries are never removed in place: one whose
window is gone (collected, or merged into another) or whose timer no longer
stands is skipped when it is reached. A schedule with more stale entries than
twice the live windows is rebuilt from them, so memory follows the live windows.
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush
from typing import Any

from bolts.aggregate.window_state import WindowState

Entry = tuple[int, int, Any]  # (instant, window seq, window id)
_SLACK = 64


class DueBuckets:
    """Windows by the instant they are due: ``(seq, window id)`` lists under a heap of distinct instants."""

    def __init__(self) -> None:
        self.instants: list[int] = []  # a heap
        self.at: dict[int, list[tuple[int, Any]]] = {}
        self.size = 0  # entries, stale ones included

    def push(self, instant: int, seq: int, wid: Any) -> None:
        """Add a window due at ``instant``."""
        bucket = self.at.get(instant)
        if bucket is None:
            bucket = self.at[instant] = []
            heappush(self.instants, instant)
        bucket.append((seq, wid))
        self.size += 1

    def pop_through(self, instant: int) -> list[tuple[int, list[tuple[int, Any]]]]:
        """Take every bucket due at or before ``instant``: ``(instant, entries by creation)``, earliest first."""
        taken = []
        instants, at = self.instants, self.at
        while instants and instants[0] <= instant:
            first = heappop(instants)
            bucket = at.pop(first)
            bucket.sort()  # by creation (already so unless restored out of order); seqs are unique
            self.size -= len(bucket)
            taken.append((first, bucket))
        return taken

    def push_many(self, instants: list[int], entries: list[tuple[int, Any]]) -> None:
        """:meth:`push` of each ``(seq, window id)`` of ``entries`` at its instant of ``instants``, in order."""
        at = self.at
        for instant, entry in zip(instants, entries, strict=True):
            bucket = at.get(instant)
            if bucket is None:
                bucket = at[instant] = []
                heappush(self.instants, instant)
            bucket.append(entry)
        self.size += len(entries)

    def rebuild(self, entries: list[Entry]) -> None:
        """Hold exactly ``entries`` (the live windows'), dropping every stale one."""
        self.instants, self.at, self.size = [], {}, 0
        for instant, seq, wid in entries:
            self.push(instant, seq, wid)


class WindowSchedule:
    """The due instants of the live windows in ``windows`` (the table's dict, shared, not copied)."""

    def __init__(self, windows: dict[Any, WindowState], lateness_ms: int) -> None:
        self.windows = windows
        self.lateness_ms = lateness_ms
        self._ends = DueBuckets()
        self._collections = DueBuckets()
        self._timers: list[Entry] = []
        self._timer_at: dict[int, int] = {}  # window seq -> the timer it has in the heap (skips repeat pushes)

    def add(self, ws: WindowState, wid: Any = None) -> None:
        """A window was created (or restored); ``wid`` is its id when the caller has it at hand."""
        wid = ws.wid if wid is None else wid
        end, ends, live = ws.window.end, self._ends, len(self.windows)
        ends.push(end, ws.seq, wid)
        if ends.size > 2 * live + _SLACK:
            ends.rebuild(self._all_ends())
        if self.lateness_ms:  # without lateness a window is collected when it ends: the ends say when
            collections = self._collections
            collections.push(end + self.lateness_ms, ws.seq, wid)
            if collections.size > 2 * live + _SLACK:
                collections.rebuild(self._all_collections())
        if ws.timers:
            self.timers_changed(ws)

    def add_many(self, created: list[WindowState], wids: list[Any]) -> None:
        """:meth:`add` of each window of ``created`` (none with timers), whose ids are ``wids``."""
        entries = [(ws.seq, wid) for ws, wid in zip(created, wids, strict=True)]
        ends = [wid[2] for wid in wids]
        live = len(self.windows)
        self._ends.push_many(ends, entries)
        if self._ends.size > 2 * live + _SLACK:
            self._ends.rebuild(self._all_ends())
        if self.lateness_ms:
            lateness = self.lateness_ms
            self._collections.push_many([end + lateness for end in ends], entries)
            if self._collections.size > 2 * live + _SLACK:
                self._collections.rebuild(self._all_collections())

    def timers_changed(self, ws: WindowState) -> None:
        """The window's trigger may have set timers: make sure its earliest one is scheduled."""
        if ws.timers:
            at = min(ws.timers)
            if self._timer_at.get(ws.seq) != at:
                self._timer_at[ws.seq] = at
                self._push(self._timers, (at, ws.seq, ws.wid), self._all_timers)

    # Due windows ------------------------------------------------------------------------------
    def due_at_watermark(self, old: int, new: int) -> list[WindowState]:
        """Windows whose end the watermark passes now (``old < end <= new``) or whose lateness it reaches.

        In order of end, then creation. A window created after the watermark had
        passed its end (late data within the lateness) is due only at its collection.
        Without lateness a window's collection is its end, found among the ends.
        """
        due: dict[int, WindowState] = {}
        windows, lateness = self.windows, self.lateness_ms
        taken = [b for end, b in self._ends.pop_through(new) if end > old or not lateness]
        taken += [b for _, b in self._collections.pop_through(new)]
        for bucket in taken:
            for seq, wid in bucket:
                ws = windows.get(wid)  # live unless collected, or replaced by a window of a later creation
                if ws is not None and ws.seq == seq:
                    due[seq] = ws
        if not lateness:
            return list(due.values())  # taken from the ends alone: already by end, then creation
        return sorted(due.values(), key=lambda ws: (ws.window.end, ws.seq))

    def next_timer(self) -> int | None:
        """The earliest processing-time timer of any live window (None when there is none)."""
        while self._timers:
            at, seq, wid = self._timers[0]
            ws = self._live(seq, wid)
            if ws is not None and ws.timers and min(ws.timers) == at:
                return at
            self._pop_timer()
        return None

    def due_timers(self, now: int) -> list[WindowState]:
        """Windows with a timer at or before ``now``, in creation order."""
        due: dict[int, WindowState] = {}
        while self._timers and self._timers[0][0] <= now:
            _, seq, wid = self._pop_timer()
            ws = self._live(seq, wid)
            if ws is not None and ws.timers and min(ws.timers) <= now:
                due[seq] = ws
        return [due[seq] for seq in sorted(due)]

    # Upkeep -----------------------------------------------------------------------------------
    def _live(self, seq: int, wid: Any) -> WindowState | None:
        ws = self.windows.get(wid)
        return ws if ws is not None and ws.seq == seq else None

    def _pop_timer(self) -> Entry:
        entry = heappop(self._timers)
        if self._timer_at.get(entry[1]) == entry[0]:
            del self._timer_at[entry[1]]
        return entry

    def _push(self, heap: list[Entry], entry: Entry, rebuild: Any) -> None:
        heappush(heap, entry)
        if len(heap) > 2 * len(self.windows) + _SLACK:
            heap[:] = rebuild()
            heapify(heap)

    def _all_ends(self) -> list[Entry]:
        return [(ws.window.end, ws.seq, ws.wid) for ws in self.windows.values()]

    def _all_collections(self) -> list[Entry]:
        return [(ws.window.end + self.lateness_ms, ws.seq, ws.wid) for ws in self.windows.values()]

    def _all_timers(self) -> list[Entry]:
        entries = [(min(ws.timers), ws.seq, ws.wid) for ws in self.windows.values() if ws.timers]
        self._timer_at = {seq: at for at, seq, _ in entries}
        return entries
