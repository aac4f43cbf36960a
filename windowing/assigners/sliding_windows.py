"""Hopping event-time windows: a window of ``size`` starts every ``period``."""

from __future__ import annotations

from dataclasses import dataclass, field

from windowing.assigners.base import Window, WindowAssigner, duration_field
from windowing.duration import Duration


@dataclass(frozen=True)
class SlidingWindows(WindowAssigner):
    """Windows ``[k*period, k*period + size)`` for every integer ``k``.

    A timestamp is in ``ceil(size / period)`` windows (fewer when ``period``
    does not divide ``size``; none when ``period > size`` and it falls in a gap).
    Windows are listed by ascending start. The cost per tuple grows with
    ``size / period``; :class:`TimeDifferenceWindows` avoids that.
    """

    size: Duration
    period: Duration
    size_ms: int = field(init=False, repr=False)
    period_ms: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size_ms", duration_field(self, "SlidingWindows", "size"))
        object.__setattr__(self, "period_ms", duration_field(self, "SlidingWindows", "period"))

    def assign(self, ts: int) -> list[Window]:
        """Every window holding ``ts``, oldest first."""
        last_start = ts - ts % self.period_ms
        lowest = ts - self.size_ms + 1  # a window starting below this ends at or before ts
        first_start = -(-lowest // self.period_ms) * self.period_ms
        return [Window(start, start + self.size_ms) for start in range(first_start, last_start + 1, self.period_ms)]
