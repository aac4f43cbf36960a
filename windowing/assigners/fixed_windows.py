"""Tumbling event-time windows of one size."""

from __future__ import annotations

from dataclasses import dataclass, field

from windowing.assigners.base import NO_OFFSET, Window, WindowAssigner, duration_field, offset_field
from windowing.duration import Duration


@dataclass(frozen=True)
class FixedWindows(WindowAssigner):
    """Windows ``[k*size + offset, (k+1)*size + offset)``: each timestamp is in exactly one.

    ``offset`` (0 unless given, less than ``size``) shifts the windows from the
    epoch, as Spark's ``window(..., startTime)`` and Beam's ``withOffset`` do:
    hourly windows from a quarter past are ``FixedWindows(hours(1), minutes(15))``.
    Negative timestamps use floor division, so ``-1`` falls in ``[-size, 0)``.
    """

    size: Duration
    offset: Duration = NO_OFFSET
    size_ms: int = field(init=False, repr=False)
    offset_ms: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size_ms", duration_field(self, "FixedWindows", "size"))
        object.__setattr__(self, "offset_ms", offset_field(self, "FixedWindows", self.size_ms, "size"))

    def assign(self, ts: int) -> list[Window]:
        """The one window holding ``ts``."""
        start = ts - (ts - self.offset_ms) % self.size_ms
        return [Window(start, start + self.size_ms)]
