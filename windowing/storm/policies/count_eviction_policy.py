"""Processing-time count windows: keep the last N tuples that arrived."""

from __future__ import annotations

from typing import Any

from windowing.storm.blocks import Block
from windowing.storm.event import Event, seq_key
from windowing.storm.event_buffer import BufferFactory, EventBuffer
from windowing.storm.membership import SeqRange
from windowing.storm.policies.eviction_policy import (
    BufferedEvictionPolicy,
    WindowScan,
    sliding_count_timestamps,
)


class CountEvictionPolicy(BufferedEvictionPolicy):
    """The window is the last ``threshold`` tuples to arrive.

    Storm expires the surplus lazily (at a trigger, or every 100 tuples); expiring
    it as each tuple arrives gives the same windows and expired sets and keeps at
    most ``threshold`` tuples in memory.
    """

    def __init__(self, threshold: int, buffer_factory: BufferFactory = EventBuffer) -> None:
        super().__init__()
        self.threshold = threshold
        self._buffer = buffer_factory(seq_key)
        self._next_seq = 0

    def add(self, event: Event[Any]) -> None:
        """Hold ``event``; the oldest held event expires once more than N are held."""
        self._buffer.insert(event)
        self._next_seq = event.seq + 1
        surplus = len(self._buffer) - self.threshold
        if surplus > 0:
            self._buffer.pop_front(surplus, self.expired)

    def add_block(self, block: Block, ts: Any) -> bool:
        """Hold a columnar block's rows as arrays, then expire the surplus, as adding them one by one would."""
        if not self._hold_block(block, ts):
            return False
        self._next_seq = block.last_seq + 1
        surplus = len(self._buffer) - self.threshold
        if surplus > 0:
            self._buffer.pop_front(surplus, self.expired)
        return True

    def scan(self) -> WindowScan:
        """Every held event is in the window."""
        self._require_context()
        buf = self._buffer
        first = buf.first_key()  # the key is the arrival number
        lo_seq = first if first is not None else self._next_seq
        mark = self._next_seq
        return WindowScan(buf.events, buf.head, len(buf.events), True, SeqRange(lo_seq, mark))

    def __len__(self) -> int:
        return len(self._buffer)

    def count_up_to(self, ts: int) -> int:
        """Number of held events at or before ``ts``."""
        return sum(1 for e in self._buffer if e.ts <= ts)

    def earliest_ts(self, after: int, up_to: int) -> int | None:
        """Smallest held timestamp in ``(after, up_to]``."""
        return min((e.ts for e in self._buffer if after < e.ts <= up_to), default=None)

    def sliding_count_timestamps(self, after: int, up_to: int, count: int) -> list[int]:
        """See :meth:`EvictionPolicy.sliding_count_timestamps`."""
        return sliding_count_timestamps(self._buffer, after, up_to, count)

    def held_events(self) -> list[Event[Any]]:
        """Held events in arrival order."""
        return list(self._buffer)

    @property
    def buffer(self) -> Any:
        """The buffer holding the window's events."""
        return self._buffer

    def _own_state(self) -> dict[str, Any]:
        return {"next_seq": self._next_seq}

    def _restore_own_state(self, state: dict[str, Any]) -> None:
        self._next_seq = state["next_seq"]

    def _hold(self, event: Event[Any]) -> None:
        self._buffer.insert(event)

