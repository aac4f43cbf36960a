"""Which held events were in a given window evaluation, as a small value.

``TupleWindow.get_new()`` needs to know which of the current window's events
were in the previous evaluation's window. Each eviction policy describes its
windows by a few numbers, so the description is cheap to keep and to save with
the window's state.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass
from typing import Any

from windowing.storm.event import Event


@dataclass(frozen=True, slots=True)
class SeqRange:
    """Events that arrived in ``[first_seq, end_seq)`` (count windows in processing time)."""

    first_seq: int
    end_seq: int

    def __call__(self, event: Event[Any]) -> bool:
        """Whether ``event`` was in the window."""
        return self.first_seq <= event.seq < self.end_seq

    def mask(self, ts: Any, seq: Any) -> Any:
        """Whether each row (numpy arrays of timestamps and arrival numbers) was in the window."""
        return (seq >= self.first_seq) & (seq < self.end_seq)


@dataclass(frozen=True, slots=True)
class TimeRange:
    """Events that had arrived before ``end_seq`` with ``lower < ts <= upper`` (time windows)."""

    end_seq: int
    lower: int
    upper: int

    def __call__(self, event: Event[Any]) -> bool:
        """Whether ``event`` was in the window."""
        return event.seq < self.end_seq and self.lower < event.ts <= self.upper

    def mask(self, ts: Any, seq: Any) -> Any:
        """Whether each row (numpy arrays of timestamps and arrival numbers) was in the window."""
        return (seq < self.end_seq) & (ts > self.lower) & (ts <= self.upper)


@dataclass(frozen=True, slots=True)
class KeyRange:
    """Events whose ``(ts, seq)`` lies in ``[(first_ts, first_seq), (last_ts, last_seq)]`` (event-time counts)."""

    first_ts: int
    first_seq: int
    last_ts: int
    last_seq: int

    def __call__(self, event: Event[Any]) -> bool:
        """Whether ``event`` was in the window."""
        return (self.first_ts, self.first_seq) <= (event.ts, event.seq) <= (self.last_ts, self.last_seq)

    def mask(self, ts: Any, seq: Any) -> Any:
        """Whether each row (numpy arrays of timestamps and arrival numbers) was in the window."""
        after_first = (ts > self.first_ts) | ((ts == self.first_ts) & (seq >= self.first_seq))
        before_last = (ts < self.last_ts) | ((ts == self.last_ts) & (seq <= self.last_seq))
        return after_first & before_last


Membership = SeqRange | TimeRange | KeyRange

_KINDS: dict[str, type[Membership]] = {"seq": SeqRange, "time": TimeRange, "key": KeyRange}
_NAMES = {cls: name for name, cls in _KINDS.items()}


def membership_to_data(membership: Membership | None) -> list[Any] | None:
    """Encode as ``[kind, numbers...]`` (None stays None)."""
    if membership is None:
        return None
    return [_NAMES[type(membership)], *astuple(membership)]


def membership_from_data(data: list[Any] | None) -> Membership | None:
    """Decode what :func:`membership_to_data` produced."""
    if data is None:
        return None
    kind, *numbers = data
    return _KINDS[kind](*numbers)
