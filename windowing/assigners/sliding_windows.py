"""Hopping event-time windows: a window of ``size`` starts every ``period``."""

from __future__ import annotations

from dataclasses import dataclass, field

from windowing.assigners.base import NO_OFFSET, Window, WindowAssigner, duration_field, offset_field
from windowing.duration import Duration


@dataclass(frozen=True)
class SlidingWindows(WindowAssigner):
    """Windows ``[k*period + offset, k*period + offset + size)`` for every integer ``k``.

    ``offset`` (0 unless given, less than ``period``) shifts the windows from the
    epoch, as Spark's ``window(..., startTime)`` and Beam's ``withOffset`` do.

    A timestamp is in ``ceil(size / period)`` windows (fewer when ``period``
    does not divide ``size``; none when ``period > size`` and it falls in a gap).
    Windows are listed by ascending start. The cost per tuple grows with
    ``size / period``; :class:`TimeDifferenceWindows` avoids that.
    """

    size: Duration
    period: Duration
    offset: Duration = NO_OFFSET
    size_ms: int = field(init=False, repr=False)
    period_ms: int = field(init=False, repr=False)
    offset_ms: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size_ms", duration_field(self, "SlidingWindows", "size"))
        object.__setattr__(self, "period_ms", duration_field(self, "SlidingWindows", "period"))
        object.__setattr__(self, "offset_ms", offset_field(self, "SlidingWindows", self.period_ms, "period"))

    def assign(self, ts: int) -> list[Window]:
        """Every window holding ``ts``, oldest first."""
        offset = self.offset_ms
        last_start = ts - (ts - offset) % self.period_ms
        lowest = ts - self.size_ms + 1  # a window starting below this ends at or before ts
        first_start = -(-(lowest - offset) // self.period_ms) * self.period_ms + offset
        return [Window(start, start + self.size_ms) for start in range(first_start, last_start + 1, self.period_ms)]
