"""Events held by a window: a value, its timestamp and its arrival sequence number."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Event(Generic[T]):
    """One tuple as the window manager sees it.

    ``ts`` is the tuple's timestamp in milliseconds (processing time when it was
    added, or its event time). ``seq`` numbers events in arrival order within one
    window manager; windows hand tuples to the bolt in that order, as Storm does.
    """

    __slots__ = ("seq", "ts", "value")

    def __init__(self, value: T, ts: int, seq: int) -> None:
        self.value = value
        self.ts = ts
        self.seq = seq

    def __repr__(self) -> str:
        return f"Event(ts={self.ts}, seq={self.seq}, value={self.value!r})"


# The buffers' sort keys, as C-level getters: a window's buffer calls its key for every comparison.
ts_seq_key: Callable[[Event[Any]], tuple[int, int]] = attrgetter("ts", "seq")
"""Order events by timestamp, ties by arrival: ``(event.ts, event.seq)``."""

seq_key: Callable[[Event[Any]], int] = attrgetter("seq")
"""Order events by arrival: ``event.seq``."""

ts_key: Callable[[Event[Any]], int] = attrgetter("ts")
"""An event's timestamp."""
