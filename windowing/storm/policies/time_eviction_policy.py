"""Processing-time duration windows: keep the tuples of the last L milliseconds."""

from __future__ import annotations

from typing import Any

from windowing.storm.block_buffer import BlockBuffer
from windowing.storm.blocks import Block
from windowing.storm.event import Event, seq_key, ts_key, ts_seq_key
from windowing.storm.event_buffer import BufferFactory, EventBuffer
from windowing.storm.membership import TimeRange
from windowing.storm.policies.eviction_context import EvictionContext
from windowing.storm.policies.eviction_policy import (
    BufferedEvictionPolicy,
    WindowScan,
    sliding_count_timestamps,
)

# Storm widens the very first processing-time window to hold every tuple so far.
_FIRST_WINDOW_DELTA = 2**31 - 1


class TimeEvictionPolicy(BufferedEvictionPolicy):
    """The window at reference time R holds the tuples with ``R - L < ts <= R``.

    A tuple with ``ts <= R - L`` expires; one with ``ts > R`` waits for a later
    window. When the trigger passes its sliding interval (processing-time
    triggers), the window length is corrected by the drift between consecutive
    evaluations, and the first window holds every tuple received so far, as in
    Storm's ``TimeEvictionPolicy``. squall's timers fire exactly on time, so the
    drift is always zero after the first window.
    """

    def __init__(self, window_length_ms: int, buffer_factory: BufferFactory = EventBuffer) -> None:
        super().__init__()
        self.window_length = window_length_ms
        self._delta = 0
        self._buffer = buffer_factory(ts_seq_key)
        self._next_seq = 0

    def add(self, event: Event[Any]) -> None:
        """Hold ``event`` in timestamp order."""
        self._buffer.insert(event)
        self._next_seq = max(self._next_seq, event.seq + 1)

    def add_all(self, events: list[Event[Any]]) -> None:
        """Hold ``events`` (in arrival order) in timestamp order, merged into the buffer at once."""
        if events:
            # Arrival numbers only grow: a stable sort by timestamp is the (ts, seq) order.
            self._buffer.insert_all(events, by=ts_key)
            self._next_seq = max(self._next_seq, events[-1].seq + 1)

    def add_block(self, block: Block, ts: Any) -> bool:
        """Hold a columnar block's rows as arrays (when the buffer is a ``BlockBuffer``)."""
        if not self._hold_block(block, ts):
            return False
        self._next_seq = max(self._next_seq, block.last_seq + 1)
        return True

    def set_context(self, context: EvictionContext) -> None:
        """Set the reference time, updating the drift correction like Storm."""
        previous = self.context
        self.context = context
        if context.sliding_interval is not None:
            if previous is None:
                self._delta = _FIRST_WINDOW_DELTA
            else:
                self._delta = context.reference_time - previous.reference_time - context.sliding_interval

    def scan(self) -> WindowScan:
        """Expire tuples older than the window; the window is ``(R - L - drift, R]``."""
        ref = self._require_context().reference_time
        lower = ref - (self.window_length + self._delta)  # exclusive
        buf = self._buffer
        buf.pop_front_while_ts_at_most(lower, self.expired)
        hi = buf.index_after_ts(ref)
        mark = self._next_seq
        return WindowScan(buf.events, buf.head, hi, False, TimeRange(mark, lower, ref))

    def __len__(self) -> int:
        return len(self._buffer)

    def count_up_to(self, ts: int) -> int:
        """Number of held events at or before ``ts``."""
        return self._buffer.index_after_ts(ts) - self._buffer.head

    def earliest_ts(self, after: int, up_to: int) -> int | None:
        """Smallest held timestamp in ``(after, up_to]``."""
        buf = self._buffer
        i = buf.index_after_ts(after)
        if isinstance(buf, BlockBuffer):
            return buf.ts_at(i) if i < buf.end and buf.ts_at(i) <= up_to else None
        if i < len(buf.events) and buf.events[i].ts <= up_to:
            return buf.events[i].ts
        return None

    def sliding_count_timestamps(self, after: int, up_to: int, count: int) -> list[int]:
        """See :meth:`EvictionPolicy.sliding_count_timestamps`; only events after ``after`` are read."""
        buf = self._buffer
        candidates = buf.events[buf.index_after_ts(after) : buf.index_after_ts(up_to)]
        candidates.sort(key=seq_key)
        return sliding_count_timestamps(candidates, after, up_to, count)

    def held_events(self) -> list[Event[Any]]:
        """Held events in arrival order."""
        return sorted(self._buffer, key=seq_key)

    @property
    def buffer(self) -> Any:
        """The buffer holding the window's events."""
        return self._buffer

    def _own_state(self) -> dict[str, Any]:
        return {"next_seq": self._next_seq, "delta": self._delta}

    def _restore_own_state(self, state: dict[str, Any]) -> None:
        self._next_seq = state["next_seq"]
        self._delta = state["delta"]

    def _hold(self, event: Event[Any]) -> None:
        self._buffer.insert(event)
