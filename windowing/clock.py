"""Injected processing time: a manual clock and the periodic timers that run on it.

Nothing in ``windowing/`` or ``bolts/`` reads the wall clock. The local harness moves
the clock by hand; the Spark executor moves it to each batch's recorded time. Timers
fire at their exact scheduled instants, in time order, so a run is repeatable.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field


class ManualClock:
    """Processing time in milliseconds, moved only by :meth:`advance_to`."""

    __slots__ = ("_now",)

    def __init__(self, start_ms: int = 0) -> None:
        self._now = start_ms

    def now(self) -> int:
        """Return the current processing time in milliseconds."""
        return self._now

    def reset_to(self, ms: int) -> None:
        """Set the time to ``ms`` in either direction: only for resuming a task at a saved time."""
        self._now = ms

    def advance_to(self, ms: int) -> None:
        """Move time forward to ``ms``; moving backwards is an error."""
        if ms < self._now:
            msg = f"ManualClock.advance_to: time cannot go back from {self._now} to {ms}"
            raise ValueError(msg)
        self._now = ms


@dataclass(order=True)
class _Timer:
    due: int
    order: int
    period: int = field(compare=False)
    callback: Callable[[int], None] = field(compare=False)


class PeriodicTimers:
    """Fixed-rate timers on a :class:`ManualClock`, like ``scheduleAtFixedRate``.

    A timer registered at time ``t0`` with period ``p`` fires at ``t0 + p``,
    ``t0 + 2p``, ... When time jumps over several due instants, each one fires, in
    order, with the clock set to that instant (a late timer catches up exactly).
    Timers due at the same instant fire in registration order.
    """

    def __init__(self, clock: ManualClock) -> None:
        self._clock = clock
        self._heap: list[_Timer] = []
        self._registered = 0

    @property
    def clock(self) -> ManualClock:
        """The clock these timers run on."""
        return self._clock

    def every(self, period_ms: int, callback: Callable[[int], None]) -> None:
        """Call ``callback(now)`` every ``period_ms`` from now on."""
        if period_ms <= 0:
            msg = f"PeriodicTimers.every: `period_ms` must be positive; got {period_ms} instead"
            raise ValueError(msg)
        timer = _Timer(self._clock.now() + period_ms, self._registered, period_ms, callback)
        self._registered += 1
        heapq.heappush(self._heap, timer)

    def state(self) -> list[int]:
        """When each timer fires next, in registration order."""
        return [t.due for t in sorted(self._heap, key=lambda t: t.order)]

    def restore(self, dues: list[int]) -> None:
        """Set when each timer fires next (timers registered in the same order as when saved)."""
        if len(dues) != len(self._heap):
            msg = f"PeriodicTimers.restore: {len(dues)} saved timers for {len(self._heap)} registered"
            raise ValueError(msg)
        for timer in self._heap:
            timer.due = dues[timer.order]
        heapq.heapify(self._heap)

    def next_due(self) -> int | None:
        """The instant the next timer fires, or None when no timer is registered."""
        return self._heap[0].due if self._heap else None

    def advance_to(self, ms: int) -> None:
        """Move the clock to ``ms``, firing every timer due at or before it."""
        while self._heap and self._heap[0].due <= ms:
            timer = heapq.heappop(self._heap)
            self._clock.advance_to(timer.due)
            timer.callback(timer.due)
            timer.due += timer.period
            heapq.heappush(self._heap, timer)
        self._clock.advance_to(ms)
