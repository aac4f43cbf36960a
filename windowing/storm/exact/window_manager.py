"""Storm's window manager with its periodic queue compaction, for Storm-exact event-time windows."""

from __future__ import annotations

from typing import Any, TypeVar

from windowing.storm.event import Event
from windowing.storm.window_manager import WindowManager

T = TypeVar("T")

EXPIRE_EVENTS_THRESHOLD = 100
"""Storm compacts its queue once this many tuples and watermarks arrived since the last scan."""


class StormWindowManager(WindowManager[T]):
    """A :class:`WindowManager` that compacts the eviction policy's queue as Storm 2.x does.

    Every tuple and every watermark counts one, after the trigger saw it; every
    scan (an evaluation or a compaction) resets the count; at 100 the policy's
    :meth:`~windowing.EvictionPolicy.compact` runs. Tuples of a batch are added
    one at a time, so a compaction happens at the tuple where Storm's would.
    """

    def __init__(self, listener: Any, window_length_ms: int | None = None) -> None:
        super().__init__(listener, window_length_ms)
        self._since_scan = 0

    def add(self, value: T, ts: int) -> Event[T]:
        """Add a tuple, then count it towards the next compaction."""
        event = super().add(value, ts)
        self._count_towards_compaction()
        return event

    def _add_events(self, events: list[Event[T]]) -> list[Event[T]]:
        """Add a batch's events in arrival order one at a time, as Storm does (a compaction may fall mid-batch)."""
        for event in events:
            self.eviction.add(event)
            self.trigger.track(event)
            self._count_towards_compaction()
        return events

    def add_watermark(self, ts: int) -> None:
        """Pass a watermark to the trigger, then count it towards the next compaction."""
        super().add_watermark(ts)
        self._count_towards_compaction()

    def on_trigger(self) -> bool:
        """Evaluate the window (a full scan, which restarts the compaction count)."""
        self._since_scan = 0
        return super().on_trigger()

    def _count_towards_compaction(self) -> None:
        self._since_scan += 1
        if self._since_scan >= EXPIRE_EVENTS_THRESHOLD:
            self._since_scan = 0
            self.eviction.compact()

    def state(self) -> dict[str, Any]:
        """The manager's state plus the compaction count."""
        return {**super().state(), "since_scan": self._since_scan}

    def restore(
        self, state: dict[str, Any], held: list[Event[Any]], expired: list[Event[Any]], blocks: Any = (),
    ) -> None:
        """Rebuild from :meth:`state`."""
        super().restore(state, held, expired, blocks)
        self._since_scan = state.get("since_scan", 0)
