"""What every window assigner shares: the window value, time bounds and argument checks.

A window is the half-open interval ``[start, end)`` of event time in
milliseconds: ``start`` is inclusive and ``end`` exclusive, as in Beam. An
assigner is an immutable configuration value checked when it is built; the
bolt's runtime asks it where a timestamp belongs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import NamedTuple

from windowing.duration import Duration, as_duration

# The event-time bounds squall uses for "forever" (they fit a signed 64-bit integer).
MIN_TIMESTAMP = -(2**63)
END_OF_TIME = 2**63 - 1


class Window(NamedTuple):
    """The event-time interval ``[start, end)``: ``start`` inclusive, ``end`` exclusive."""

    start: int
    end: int

    @property
    def max_timestamp(self) -> int:
        """The largest timestamp inside the window (``end - 1``)."""
        return self.end - 1

    def contains(self, ts: int) -> bool:
        """Whether ``ts`` lies in the window."""
        return self.start <= ts < self.end

    def intersects(self, other: Window) -> bool:
        """Whether the two windows share a timestamp (touching windows do not)."""
        return self.start < other.end and other.start < self.end

    def span(self, other: Window) -> Window:
        """The smallest window covering both."""
        return Window(min(self.start, other.start), max(self.end, other.end))


class WindowAssigner(ABC):
    """Places a timestamp in windows. Subclasses are frozen dataclasses.

    ``merging`` assigners (sessions) give a proto-window per tuple that the runtime
    merges with the key's overlapping windows; ``data_driven`` ones
    (time-difference windows) need the key's other records and are planned by the
    runtime with the assigner's helpers.
    """

    merging = False
    data_driven = False

    @abstractmethod
    def assign(self, ts: int) -> list[Window]:
        """The windows a tuple with timestamp ``ts`` belongs to (the proto-window for merging assigners)."""


def duration_field(assigner: object, cls_name: str, name: str, *, allow_zero: bool = False) -> int:
    """The milliseconds of the assigner's Duration field ``name`` (a ``timedelta`` is stored as a Duration first)."""
    value = as_duration(cls_name, name, getattr(assigner, name))
    object.__setattr__(assigner, name, value)  # the assigners are frozen dataclasses
    return require_duration(cls_name, name, value, allow_zero=allow_zero)


NO_OFFSET = Duration(0)  # windows aligned on the epoch


def offset_field(assigner: object, cls_name: str, step_ms: int, step_name: str) -> int:
    """The milliseconds of the assigner's ``offset``: 0 or more and below ``step_ms``, else the error names both."""
    offset_ms = duration_field(assigner, cls_name, "offset", allow_zero=True)
    if offset_ms >= step_ms:
        msg = (
            f"{cls_name}: `offset` must be less than `{step_name}` ({step_ms} ms); got {assigner.offset!r} "  # type: ignore[attr-defined]
            f"instead (an offset of a whole {step_name} or more gives the same windows as offset % {step_name})"
        )
        raise ValueError(msg)
    return offset_ms


def require_duration(cls_name: str, name: str, value: object, *, allow_zero: bool = False) -> int:
    """Return the milliseconds of a Duration argument, or raise naming the assigner and the value."""
    if not isinstance(value, Duration):
        msg = f"{cls_name}: `{name}` must be a Duration; got {value!r} ({type(value).__name__}) instead"
        raise TypeError(msg)
    if value.value < 0 or (value.value == 0 and not allow_zero):
        rule = "must not be negative" if allow_zero else "must be positive"
        msg = f"{cls_name}: `{name}` {rule}; got {value!r} instead"
        raise ValueError(msg)
    return value.value
