"""Events held by a window: a value, its timestamp and its arrival sequence number."""

from __future__ import annotations

from typing import Generic, TypeVar

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


def ts_seq_key(event: Event[object]) -> tuple[int, int]:
    """Order events by timestamp, ties by arrival."""
    return (event.ts, event.seq)


def seq_key(event: Event[object]) -> int:
    """Order events by arrival."""
    return event.seq
