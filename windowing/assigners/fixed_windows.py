"""Tumbling event-time windows of one size."""

from __future__ import annotations

from dataclasses import dataclass, field

from windowing.assigners.base import Window, WindowAssigner, duration_field
from windowing.duration import Duration


@dataclass(frozen=True)
class FixedWindows(WindowAssigner):
    """Windows ``[k*size, (k+1)*size)``: each timestamp is in exactly one.

    Negative timestamps use floor division, so ``-1`` falls in ``[-size, 0)``.
    """

    size: Duration
    size_ms: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size_ms", duration_field(self, "FixedWindows", "size"))

    def assign(self, ts: int) -> list[Window]:
        """The one window holding ``ts``."""
        start = ts - ts % self.size_ms
        return [Window(start, start + self.size_ms)]
