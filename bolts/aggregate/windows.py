"""Which windows a tuple goes to, per key: plain assigners, merging sessions, KIP-450 windows, inherited windows.

:class:`WindowTable` owns the windows of one task (per key and window) and,
for :class:`TimeDifferenceWindows`, the per-timestamp partial aggregates new
windows are built from. It never emits; the task consults triggers afterwards.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count
from numbers import Integral
from typing import Any, NamedTuple

from bolts.aggregate.holds import add_holds, holding
from bolts.aggregate.sessions.merging import SessionMerging
from bolts.aggregate.spec import AggregateSpec
from bolts.aggregate.window_schedule import WindowSchedule
from bolts.aggregate.window_state import Key, WindowState
from bolts.codecs.value_codec import pack_value
from windowing.assigners import Sessions, TimeDifferenceWindows, Window
from windowing.triggers.context import TriggerContext

WindowId = tuple[Key, int, int]
_EMPTY = object()  # no accumulator given: a new window starts with the aggregator's empty one
Adder = Callable[[Any, Any], Any]


class Assignment(NamedTuple):
    """The windows a tuple went to.

    ``windows``: the live windows it goes to. ``seeded``: time-difference windows its arrival
    created already holding earlier records (their triggers saw those records, so they are
    consulted this batch too). ``kept``: whether it is kept for time-difference windows created
    later; such a tuple is not late even when no live window takes it. ``dropped``: tuples
    placed earlier in this batch that are dropped with it (sessions merged into a closed one).
    """

    windows: list[WindowState]
    seeded: tuple[WindowState, ...] = ()
    kept: bool = False
    dropped: int = 0


class WindowTable(SessionMerging):
    """The live windows of one task, by key; ``place`` finds (and creates or merges) a tuple's windows."""

    def __init__(self, spec: AggregateSpec) -> None:
        self.spec = spec
        self.windows: dict[WindowId, WindowState] = {}
        self.by_key: dict[Key, dict[Window, WindowState]] = {}  # sessions and time-difference windows only
        self.starts: dict[Key, list[int]] = {}  # time-difference windows: sorted window starts per key
        # Open session windows, sorted per key: they never overlap. A closed session (its trigger
        # finished) leaves this index, as a closed window leaves Beam's active window set: it no
        # longer merges, and an open session may overlap it.
        self.sessions: dict[Key, list[Window]] = {}
        self.session_plan: dict[Key, list[Window]] = {}  # this batch's merged sessions (plan_sessions)
        self.times: dict[Key, list[int]] = {}  # time-difference windows: sorted distinct record times per key
        self.buckets: dict[Key, list[list[Any]]] = {}  # ... and their [accumulator, tuple count]
        # (oldest record time, tie-breaker, key) per key with buckets, so pruning visits only the
        # keys it cuts; entries whose time is no longer the key's oldest are skipped when popped.
        self._oldest: list[tuple[int, int, Key]] = []
        self._ties = count()
        self.seq = 0
        # Each key's output watermark where its windows' holds keep it behind the input watermark
        # (bolts.aggregate.holds); every other key's is the input watermark.
        self.output_marks: dict[Key, int] = {}
        self.output_base = -(2**63)  # ... the input watermark at the last move (set by the task)
        self.changes: TableChanges | None = None
        self.schedule = WindowSchedule(self.windows, spec.allowed_lateness_ms)
        self._sessions = isinstance(spec.assigner, Sessions)
        # Sessions that only touch merge under Spark's rules (session_window), not under Beam's: the comparisons
        # of session bounds reach one millisecond further.
        self._touching = 1 if spec.spark_semantics else 0
        self._ordered_starts = spec.time_difference is not None
        # Only sessions and time-difference windows look a key's windows up by Window (by_key); the others
        # find them by id in `windows`.
        self._by_key = self._sessions or self._ordered_starts

    def track_changes(self) -> None:
        """Record from now on which windows and buckets change, for incremental commits (:meth:`take_changes`)."""
        self.changes = TableChanges()

    def take_changes(self) -> TableChanges:
        """What changed since the last call (or since :meth:`track_changes`), and start afresh."""
        if self.changes is None:
            msg = "WindowTable.take_changes: call track_changes() first"
            raise RuntimeError(msg)
        changes, self.changes = self.changes, TableChanges()
        return changes

    def touch(self, ws: WindowState) -> None:
        """Note that ``ws`` changed: its trigger ran (timers are rescheduled) and, when tracking, it is committed."""
        if ws.timers:
            self.schedule.timers_changed(ws)
        if ws.closed and self._sessions:
            _discard(self.sessions, ws.key, ws.window)
        if self.changes is not None:
            self.changes.windows[ws.seq] = ws

    def touch_many(self, windows: list[WindowState]) -> None:
        """:meth:`touch` of each window of ``windows``, in order."""
        if self._sessions:
            for ws in windows:
                self.touch(ws)
            return
        timers_changed = self.schedule.timers_changed
        for ws in windows:
            if ws.timers:
                timers_changed(ws)
        if self.changes is not None:
            self.changes.windows.update({ws.seq: ws for ws in windows})

    def _touch_buckets(self, key: Key) -> None:
        if self.changes is not None:
            self.changes.bucket_keys[key] = None

    # Output watermarks -------------------------------------------------------------------------
    def output_watermark(self, key: Key) -> int:
        """The output watermark of ``key``: as the last watermark move left it."""
        return self.output_marks.get(key, self.output_base)

    def advance_output(self, input_wm: int) -> None:
        """Move every key's output watermark to ``input_wm``, held back by the holds of the key's windows.

        Costs one pass over the live windows per watermark move.
        """
        combiner = self.spec.timestamp_combiner
        marks: dict[Key, int] = {}
        for ws in self.windows.values():
            hold = ws.hold
            # A hold at or after input_wm holds nothing back: most windows are passed over without a call.
            if (hold is None or hold[0] >= input_wm) and (ws.extra_hold is None or ws.extra_hold >= input_wm):
                continue
            held = holding(ws, combiner)
            if held is not None and held < input_wm and held < marks.get(ws.key, input_wm):
                marks[ws.key] = held
        self.output_marks = marks
        self.output_base = input_wm

    def saved_output_marks(self) -> list[list[Any]]:
        """The held output watermarks as plain data, in the order of their encoded keys."""
        keys = sorted(self.output_marks, key=lambda k: pack_value(list(k)))
        return [[list(k), self.output_marks[k]] for k in keys]

    # Windows ------------------------------------------------------------------------------------
    def expired(self, window: Window, watermark: int) -> bool:
        """Whether ``window`` is past its allowed lateness at ``watermark``."""
        return window.end + self.spec.allowed_lateness_ms <= watermark

    def create(self, key: Key, window: Window, acc: Any = _EMPTY) -> WindowState:
        """A new window (it must not exist), empty or holding ``acc``."""
        return self._adopt(WindowState(key, window, self.spec.aggregator.create() if acc is _EMPTY else acc, 0))

    def _adopt(self, ws: WindowState) -> WindowState:
        """Put a window built aside into the table, as the next one created."""
        ws.seq = self.seq
        self.seq += 1
        self._index(ws)
        if self.changes is not None:
            self.changes.windows[ws.seq] = ws
            self.changes.created.add(ws.seq)
        return ws

    def create_many(self, wids: list[WindowId], accs: list[Any]) -> list[WindowState]:
        """New windows (none may exist) holding ``accs``, created in order: what :meth:`create` of each gives."""
        if self._by_key:
            return [self.create(k, Window(start, end), acc) for (k, start, end), acc in zip(wids, accs, strict=True)]
        first = self.seq
        created = [WindowState(wid[0], Window(wid[1], wid[2]), acc, seq)
                   for seq, wid, acc in zip(range(first, first + len(wids)), wids, accs, strict=True)]
        self.seq = first + len(created)
        self.windows.update(zip(wids, created, strict=True))
        self.schedule.add_many(created, wids)
        if self.changes is not None:
            self.changes.windows.update({ws.seq: ws for ws in created})
            self.changes.created.update(range(first, self.seq))
        return created

    def _index(self, ws: WindowState) -> None:
        wid = (ws.key, ws.window.start, ws.window.end)
        self.windows[wid] = ws
        self.schedule.add(ws, wid)
        if not self._by_key:
            return
        mine = self.by_key.get(ws.key)
        if mine is None:
            mine = self.by_key[ws.key] = {}
        mine[ws.window] = ws
        if self._ordered_starts:
            insort(self.starts.setdefault(ws.key, []), ws.window.start)
        elif self._sessions and not ws.closed:
            insort(self.sessions.setdefault(ws.key, []), ws.window)

    def delete(self, ws: WindowState) -> None:
        """Forget a window."""
        del self.windows[ws.wid]
        if self.changes is not None:
            self.changes.forget(ws.seq)
        if not self._by_key:
            return
        mine = self.by_key[ws.key]
        del mine[ws.window]
        if not mine:
            del self.by_key[ws.key]
        if self._ordered_starts:
            _discard(self.starts, ws.key, ws.window.start)
        elif self._sessions:
            _discard(self.sessions, ws.key, ws.window)

    def delete_many(self, windows: list[WindowState]) -> None:
        """Forget each window of ``windows`` (:meth:`delete` of each)."""
        if self._by_key:
            for ws in windows:
                self.delete(ws)
            return
        table = self.windows
        for ws in windows:
            window = ws.window
            del table[(ws.key, window.start, window.end)]
        if self.changes is not None:
            self.changes.forget_many([ws.seq for ws in windows])

    def restore(
        self, windows: list[WindowState], buckets: list[list[Any]], seq: int, output_marks: list[list[Any]]
    ) -> None:
        """Rebuild from saved windows, time-difference buckets ``[key, times, [[acc, n], ...]]`` and output marks."""
        self.output_marks = {tuple(k): wm for k, wm in output_marks}
        if self._by_key or any(ws.timers for ws in windows):
            for ws in windows:
                self._index(ws)
        else:  # what _index of each does for windows looked up by id alone, in bulk
            wids = [ws.wid for ws in windows]
            self.windows.update(zip(wids, windows, strict=True))
            self.schedule.add_many(windows, wids)
        for key, times, accs in buckets:
            self.times[tuple(key)] = list(times)
            self.buckets[tuple(key)] = [list(a) for a in accs]
            if times:
                self._note_oldest(tuple(key), times[0])
        self.seq = seq

    def saved_buckets(self) -> list[list[Any]]:
        """The time-difference buckets as plain data, in the order of their encoded keys (as a store scans them)."""
        keys = sorted(self.times, key=lambda k: pack_value(list(k)))
        return [[list(k), list(self.times[k]), self.buckets[k]] for k in keys]

    # Placing a tuple ----------------------------------------------------------------------------
    def place(self, key: Key, ts: int, tup: Any, watermark: int, now: int) -> Assignment:
        """Where ``tup`` (timestamp ``ts``) goes; no windows and not kept when it is too late for all of them."""
        spec = self.spec
        if spec.assigner is None:
            return Assignment(self._plain(key, [_inherited(tup)], watermark))
        if spec.time_difference is not None:
            return self._time_difference(key, ts, tup, watermark, now)
        if isinstance(spec.assigner, Sessions):
            return self._session(key, ts, watermark, now)
        return Assignment(self._plain(key, spec.assigner.assign(ts), watermark))

    def _plain(self, key: Key, windows: list[Window], watermark: int) -> list[WindowState]:
        out = []
        for w in windows:
            if not self.expired(w, watermark):
                out.append(self.windows.get((key, w.start, w.end)) or self.create(key, w))
        return out

    def _session(self, key: Key, ts: int, watermark: int, now: int) -> Assignment:
        proto = Window(ts, ts + self.spec.assigner.gap_ms)  # type: ignore[union-attr]
        if self.expired(proto, watermark):
            return Assignment([])
        proto = self._planned(key, proto)
        mine = self.by_key.get(key, {})
        merged, absorbed = Sessions.merge_with(proto, self.sessions_overlapping(key, proto), self._touching == 1)
        if absorbed == [merged]:
            return Assignment([mine[merged]])  # the proto-session fits in an open session
        closed = mine.get(merged)
        if closed is not None:
            # The batch's merge lands on a closed session's bounds: as in Beam's runner, the open parts merge
            # into that closed window and are lost, and the batch's tuples of it are dropped
            # (ReduceFnRunnerTest.testMergingWithClosedRepresentative).
            parts = [mine[w] for w in absorbed]
            for ws in parts:
                self.delete(ws)
            return Assignment([closed], dropped=sum(ws.batch_tuples for ws in parts))
        if not absorbed:
            return Assignment([self.create(key, proto)])
        sources = [mine[w] for w in absorbed]
        return Assignment([self._merge(key, merged, sources, watermark, now)])

    # KIP-450 windows ----------------------------------------------------------------------------
    def _time_difference(self, key: Key, ts: int, tup: Any, watermark: int, now: int) -> Assignment:
        assigner: TimeDifferenceWindows = self.spec.time_difference  # type: ignore[assignment]
        times = self.times.get(key, [])
        buckets = self.buckets.get(key, [])
        mine = self.by_key.get(key, {})
        seeded = []
        for w in assigner.windows_to_create(ts, times):
            if w not in mine and not self.expired(w, watermark):
                ws = self._seed(key, w, watermark, now)
                if ws.has_new:
                    seeded.append(ws)
                mine = self.by_key[key]
        # Kept while a window of it may still be created within the grace (KIP-450 drops a record
        # only when ts + 1 + d <= stream time - grace).
        kept = ts + assigner.difference_ms + 1 + self.spec.allowed_lateness_ms > watermark
        if kept:
            if key not in self.times:  # a key gets buckets only once one of its records is kept
                self.times[key], self.buckets[key] = times, buckets
            i = bisect_left(times, ts)
            if i == len(times) or times[i] != ts:
                times.insert(i, ts)
                buckets.insert(i, [self.spec.aggregator.create(), 0])
                if i == 0:
                    self._note_oldest(key, ts)
            buckets[i] = [self.spec.add(buckets[i][0], tup), buckets[i][1] + 1]
            self._touch_buckets(key)
        low, high = assigner.start_range(ts)
        starts = self.starts.get(key, [])
        chosen = starts[bisect_left(starts, low) : bisect_right(starts, high)]
        return Assignment([mine[assigner.window_at(s)] for s in chosen], tuple(seeded), kept)

    def _seed(self, key: Key, window: Window, watermark: int, now: int) -> WindowState:
        """Create a time-difference window from the partial aggregates of the records already in it."""
        times, buckets = self.times.get(key, []), self.buckets.get(key, [])
        lo, hi = bisect_left(times, window.start), bisect_left(times, window.end)
        ws = self.create(key, window)
        if lo == hi:
            return ws
        # A fresh accumulator first: the window must not share a bucket's, which `add` may change in place.
        aggregator = self.spec.aggregator
        ws.acc = aggregator.merge([aggregator.create(), *(b[0] for b in buckets[lo:hi])])
        ctx = TriggerContext(ws.trigger, window_end=window.end, watermark=watermark, now=now, timers=ws.timers)
        for _ in range(sum(b[1] for b in buckets[lo:hi])):
            self.spec.trigger.on_element(ctx)
        ws.has_new = True
        output_wm = self.output_watermark(key)
        held = bisect_left(times, output_wm, lo, hi)  # records behind the output watermark hold nothing
        span = (times[held], times[hi - 1]) if held < hi else None
        add_holds(ws, self.spec, span, held > lo, input_wm=watermark, output_wm=output_wm)
        self.touch(ws)
        return ws

    def prune(self, watermark: int) -> None:
        """Drop time-difference partial aggregates no live or future window can need.

        A record at ``t`` is in windows ending (exclusive) by ``t + d + 1`` and anchors the
        right window ``[t + 1, t + d + 1]`` of a later record, ending by ``t + d + 2``; it goes
        once that window, too, is past the allowed lateness. Costs O(log n) per key whose
        oldest record goes, not a scan of every key.
        """
        if self.spec.time_difference is None:
            return
        horizon = watermark - self.spec.time_difference.difference_ms - 2 - self.spec.allowed_lateness_ms
        oldest = self._oldest
        while oldest and oldest[0][0] <= horizon:
            ts, _, key = heapq.heappop(oldest)
            times = self.times.get(key)
            if not times or times[0] != ts:
                continue  # stale: the key's oldest record changed since this entry was pushed
            cut = bisect_right(times, horizon)
            del times[:cut], self.buckets[key][:cut]
            self._touch_buckets(key)
            if times:
                self._note_oldest(key, times[0])
            else:
                del self.times[key], self.buckets[key]

    def _note_oldest(self, key: Key, ts: int) -> None:
        heapq.heappush(self._oldest, (ts, next(self._ties), key))


@dataclass
class TableChanges:
    """Windows changed (by creation number) and deleted, and keys whose time-difference buckets changed.

    A window created and deleted between two commits appears in neither set, so
    it is never written.
    """

    windows: dict[int, WindowState] = field(default_factory=dict)
    deleted: set[int] = field(default_factory=set)
    created: set[int] = field(default_factory=set)
    bucket_keys: dict[Key, None] = field(default_factory=dict)

    def forget(self, seq: int) -> None:
        """Window ``seq`` was deleted."""
        self.windows.pop(seq, None)
        if seq in self.created:
            self.created.discard(seq)
        else:
            self.deleted.add(seq)

    def forget_many(self, seqs: list[int]) -> None:
        """:meth:`forget` of each window of ``seqs``."""
        windows, created = self.windows, self.created
        for seq in seqs:
            windows.pop(seq, None)
        uncommitted = created.intersection(seqs)
        created.difference_update(uncommitted)
        self.deleted.update(seq for seq in seqs if seq not in uncommitted)


def _discard(index: dict[Key, list[Any]], key: Key, item: Any) -> None:
    """Remove ``item`` from the sorted list of ``key`` in ``index`` when it is there."""
    ordered = index.get(key)
    if ordered is None:
        return
    i = bisect_left(ordered, item)
    if i < len(ordered) and ordered[i] == item:
        del ordered[i]
        if not ordered:
            del index[key]


def _inherited(tup: Any) -> Window:
    """The window of a pane from an upstream windowed bolt (window propagation)."""
    from bolts.errors import TupleError

    for name in ("window_start", "window_end"):
        if name not in tup.fields:
            msg = (
                f"with_windows: no window assigner is set, so the tuple's window is taken from its fields "
                f"window_start/window_end, but {tup!r} has no field {name!r}; call with_windows(...) "
                "(for example with_windows(GlobalWindows()))"
            )
            raise TupleError(msg)
        value = tup[name]
        if isinstance(value, bool) or not isinstance(value, Integral):
            msg = f"with_windows: the window bounds of an incoming pane must be ints; got {name}={value!r} in {tup!r}"
            raise TupleError(msg)
    return Window(int(tup["window_start"]), int(tup["window_end"]))
