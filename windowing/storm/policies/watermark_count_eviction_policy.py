"""Event-time count windows: the last N tuples, in arrival order, at or before the window end."""

from __future__ import annotations

import heapq
from typing import Any

from windowing.storm.event import Event, seq_key, ts_seq_key
from windowing.storm.event_buffer import BufferFactory, EventBuffer
from windowing.storm.membership import KeyRange
from windowing.storm.policies.eviction_context import EvictionContext
from windowing.storm.policies.eviction_policy import EvictionPolicy, WindowScan, sliding_count_timestamps


class CountFromContext:
    """Storm's rule for the count an event-time count window works from, shared by both of its policies.

    A context sets the count ``C``: the context's own count, or for count
    triggers the number processed at the last scan plus the sliding count; the
    number processed restarts at zero.
    """

    context: EvictionContext | None
    _current_count: int
    _processed: int

    def set_context(self, context: EvictionContext) -> None:
        """Set the reference time and the count the next scan works from."""
        self.context = context
        if context.current_count is not None:
            self._current_count = context.current_count
        else:
            self._current_count = self._processed + (context.sliding_count or 0)
        self._processed = 0


class WatermarkCountEvictionPolicy(CountFromContext, EvictionPolicy):
    """Storm's ``WatermarkCountEvictionPolicy`` without its full-queue scans.

    Held events are split in two: *eligible* ones, whose timestamp is at or
    before a reference time already seen, and *pending* ones beyond it. At a
    trigger with reference time R, pending events at or before R become
    eligible. With ``C`` the context's current count (or, for count triggers, the
    number processed last time plus the sliding count), the first ``C - N``
    eligible events expire and the next ``min(C, N)`` form the window; any further
    eligible events wait for the next window.

    Deviation from Storm: eligible events are counted in timestamp order (ties in
    arrival order), where Storm counts them in arrival order. For a stream in
    timestamp order the two are the same. Out of order, Storm's count lets a
    tuple that becomes eligible late slot in before tuples already evaluated and
    expire without ever being in a window; in timestamp order newly eligible
    tuples always come after the ones already evaluated, so none is skipped.
    """

    def __init__(self, threshold: int, buffer_factory: BufferFactory = EventBuffer) -> None:
        super().__init__()
        self.threshold = threshold
        self._eligible = buffer_factory(ts_seq_key)
        self._pending: dict[int, Event[Any]] = {}
        self._pending_heap: list[tuple[int, int]] = []
        self._current_count = 0
        self._processed = 0
        # Every eligible event has a timestamp at or before this.
        self._released_up_to: int | None = None

    def add(self, event: Event[Any]) -> None:
        """Hold ``event`` until a reference time reaches its timestamp."""
        self._pending[event.seq] = event
        heapq.heappush(self._pending_heap, (event.ts, event.seq))

    def _release_pending(self, ref: int) -> None:
        heap = self._pending_heap
        while heap and heap[0][0] <= ref:
            _, seq = heapq.heappop(heap)
            self._eligible.insert(self._pending.pop(seq))
        if self._released_up_to is None or ref > self._released_up_to:
            self._released_up_to = ref

    def scan(self) -> WindowScan:
        """Expire the oldest eligible events beyond the count; the next ones form the window."""
        ctx = self._require_context()
        self._release_pending(ctx.reference_time)
        eligible = self._eligible
        available = len(eligible)
        n_expire = min(available, max(0, self._current_count - self.threshold))
        eligible.pop_front(n_expire, self.expired)
        self._current_count -= n_expire
        n_process = min(available - n_expire, self._current_count)
        self._processed = n_process
        lo = eligible.head
        hi = lo + n_process
        events = eligible.events
        # The window is a run of the (ts, seq) order; a tuple that arrives later on time sorts after it.
        if n_process:
            membership = KeyRange(events[lo].ts, events[lo].seq, events[hi - 1].ts, events[hi - 1].seq)
        else:
            membership = KeyRange(0, 0, -1, -1)
        return WindowScan(events, lo, hi, False, membership)

    def __len__(self) -> int:
        return len(self._eligible) + len(self._pending)

    def count_up_to(self, ts: int) -> int:
        """Number of held events at or before ``ts``."""
        if self._released_up_to is not None and ts >= self._released_up_to:
            eligible = len(self._eligible)
        else:
            eligible = sum(1 for e in self._eligible if e.ts <= ts)
        return eligible + sum(1 for e in self._pending.values() if e.ts <= ts)

    def earliest_ts(self, after: int, up_to: int) -> int | None:
        """Smallest held timestamp in ``(after, up_to]``."""
        heap = self._pending_heap
        if heap and heap[0][0] > after:
            found = [heap[0][0]] if heap[0][0] <= up_to else []
        else:
            found = [e.ts for e in self._pending.values() if after < e.ts <= up_to]
        if self._released_up_to is None or after < self._released_up_to:
            found.extend(e.ts for e in self._eligible if after < e.ts <= up_to)
        return min(found, default=None)

    def sliding_count_timestamps(self, after: int, up_to: int, count: int) -> list[int]:
        """See :meth:`EvictionPolicy.sliding_count_timestamps`."""
        if self._released_up_to is None or after >= self._released_up_to:
            candidates: Any = self._pending.values()  # eligible events are all at or before `after`
        else:
            candidates = self.held_events()
        return sliding_count_timestamps(candidates, after, up_to, count)

    def held_events(self) -> list[Event[Any]]:
        """Held events in arrival order."""
        return sorted([*self._eligible, *self._pending.values()], key=seq_key)

    def loose_events(self) -> list[Event[Any]]:
        """Pending events: beyond every reference time so far, held outside the buffer."""
        return list(self._pending.values())

    @property
    def buffer(self) -> Any:
        """The buffer holding the window's events."""
        return self._eligible

    def _own_state(self) -> dict[str, Any]:
        return {
            "current_count": self._current_count,
            "processed": self._processed,
            "released_up_to": self._released_up_to,
        }

    def _restore_own_state(self, state: dict[str, Any]) -> None:
        self._current_count = state["current_count"]
        self._processed = state["processed"]
        self._released_up_to = state["released_up_to"]

    def _hold(self, event: Event[Any]) -> None:
        # An event at or before the last reference time is eligible; any other waits, as before.
        if self._released_up_to is not None and event.ts <= self._released_up_to:
            self._eligible.insert(event)
        else:
            self.add(event)
