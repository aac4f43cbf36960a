"""Storm's window queue: events in arrival order, scanned one by one with EXPIRE/PROCESS/KEEP/STOP.

Only Storm-exact event-time windows (``with_storm_semantics()``) use it. It
reproduces ``WindowManager.scanEvents`` of Storm 2.x
(``storm-client/src/jvm/org/apache/storm/windowing/WindowManager.java``): every
evaluation walks the whole queue, so it costs O(held events), as in Storm.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from windowing.storm.event import Event
from windowing.storm.membership import Membership
from windowing.storm.policies.eviction_action import Action
from windowing.storm.policies.eviction_policy import EvictionPolicy, WindowScan, sliding_count_timestamps


class ArrivalQueueEvictionPolicy(EvictionPolicy):
    """Holds events in one queue in arrival order and asks :meth:`evict` about each in turn.

    A scan (:meth:`scan`) walks the queue from the front: ``EXPIRE`` removes the
    event and reports it expired, ``PROCESS`` puts it in the window, ``KEEP``
    leaves it queued, and ``STOP`` ends the walk, leaving that event and every
    later one queued and outside the window. A compaction (:meth:`compact`,
    Storm's ``scanEvents(false)``) walks the queue only while events expire.
    The window lists its events in arrival order. Queries the triggers make
    (counts, earliest timestamp, sliding-count ends) read the whole queue.
    """

    def __init__(self) -> None:
        super().__init__()
        self._queue: list[Event[Any]] = []

    @abstractmethod
    def evict(self, event: Event[Any]) -> Action:
        """The action for ``event`` under the current context (may update the policy's counters)."""

    @abstractmethod
    def _membership(self, window: list[Event[Any]], stopped_at: int | None) -> Membership:
        """Which held events were in ``window`` (``stopped_at``: the arrival number the scan stopped at)."""

    def add(self, event: Event[Any]) -> None:
        """Queue ``event`` after every held one."""
        self._queue.append(event)

    def scan(self) -> WindowScan:
        """Storm's full scan: expire, process, keep, or stop at each queued event in arrival order."""
        self._require_context()
        window: list[Event[Any]] = []
        kept: list[Event[Any]] = []
        stopped_at: int | None = None
        queue = self._queue
        for i, event in enumerate(queue):
            action = self.evict(event)
            if action is Action.EXPIRE:
                self.expired.append(event)
                continue
            if action is Action.STOP:
                stopped_at = event.seq
                kept.extend(queue[i:])
                break
            kept.append(event)
            if action is Action.PROCESS:
                window.append(event)
        self._queue = kept
        return WindowScan(window, 0, len(window), True, self._membership(window, stopped_at))

    def compact(self) -> None:
        """Storm's compaction scan: expire events from the front of the queue until one does not expire."""
        queue = self._queue
        n = 0
        for event in queue:
            if self.evict(event) is not Action.EXPIRE:
                break
            n += 1
        if n:
            self.expired.extend(queue[:n])
            del queue[:n]

    def __len__(self) -> int:
        return len(self._queue)

    def count_up_to(self, ts: int) -> int:
        """Number of queued events at or before ``ts`` (Storm's ``getEventCount``)."""
        return sum(1 for e in self._queue if e.ts <= ts)

    def earliest_ts(self, after: int, up_to: int) -> int | None:
        """Smallest queued timestamp in ``(after, up_to]`` (Storm's ``getEarliestEventTs``)."""
        return min((e.ts for e in self._queue if after < e.ts <= up_to), default=None)

    def sliding_count_timestamps(self, after: int, up_to: int, count: int) -> list[int]:
        """See :meth:`EvictionPolicy.sliding_count_timestamps`, over the whole queue."""
        return sliding_count_timestamps(self._queue, after, up_to, count)

    def held_events(self) -> list[Event[Any]]:
        """Queued events in arrival order."""
        return list(self._queue)

    @property
    def buffer(self) -> Any:
        """The queue (a list in arrival order)."""
        return self._queue

    def _hold(self, event: Event[Any]) -> None:
        self._queue.append(event)  # restore passes held events in arrival order
