"""A list of events kept sorted by a key, with O(1) removal from the front.

Windows only ever lose events from their old end, and tuples arrive nearly in
order, so new events are appended (or inserted a few places from the end) and
expired ones are dropped by moving a head index; the dead prefix is cut off once
it is at least half the list. Every operation but an out-of-order insert is O(1)
amortised or O(log n); a micro-batch's events are merged in at once.
"""

from __future__ import annotations

from bisect import bisect_right, insort_right
from collections.abc import Callable, Iterator
from typing import Any

from windowing.storm.event import Event, ts_key

_COMPACT_AT = 1024


class EventBuffer:
    """Events sorted by ``key``; ``head`` is the index of the first live event."""

    __slots__ = ("_events", "_head", "_key")

    def __init__(self, key: Callable[[Event[Any]], Any]) -> None:
        self._key = key
        self._events: list[Event[Any]] = []
        self._head = 0

    def __len__(self) -> int:
        return len(self._events) - self._head

    def __iter__(self) -> Iterator[Event[Any]]:
        events = self._events
        for i in range(self._head, len(events)):
            yield events[i]

    @property
    def events(self) -> list[Event[Any]]:
        """The backing list; live events are ``events[head:]``. Valid until the next change."""
        return self._events

    @property
    def head(self) -> int:
        """Index of the first live event in :attr:`events`."""
        return self._head

    def insert(self, event: Event[Any]) -> None:
        """Add ``event`` at its place in key order (after equal keys)."""
        events = self._events
        if len(events) == self._head or self._key(events[-1]) <= self._key(event):
            events.append(event)
        else:
            insort_right(events, event, lo=self._head, key=self._key)

    def insert_all(self, events: list[Event[Any]], by: Callable[[Event[Any]], Any] | None = None) -> None:
        """Add ``events`` (given in arrival order): the same list as inserting them one by one.

        The new events are sorted (stably, so equal keys keep their arrival order)
        and merged with the held events their keys overlap, which sort before any
        new event of an equal key; Timsort merges the two sorted runs in linear
        time, instead of one binary insertion per event. ``by``, when given, is a
        cheaper key that sorts these events so, held ones first on ties, as the
        buffer's key does: ``ts`` for a ``(ts, seq)`` buffer, whose new events
        have increasing arrival numbers above every held one.
        """
        if not events:
            return
        key = self._key if by is None else by
        new = sorted(events, key=key)
        held = self._events
        if len(held) == self._head or key(held[-1]) <= key(new[0]):
            held.extend(new)
            return
        lo = bisect_right(held, key(new[0]), lo=self._head, key=key)
        merged = held[lo:]
        del held[lo:]
        merged.extend(new)
        merged.sort(key=key)
        held.extend(merged)

    def first_key(self) -> Any:
        """The smallest key held, or None."""
        first = self.first()
        return None if first is None else self._key(first)

    def first(self) -> Event[Any] | None:
        """The live event with the smallest key, or None."""
        return self._events[self._head] if len(self._events) > self._head else None

    def pop_front(self, n: int, into: list[Event[Any]]) -> None:
        """Drop the first ``n`` live events, appending them to ``into`` in key order."""
        if n <= 0:
            return
        end = self._head + n
        into.extend(self._events[self._head : end])
        self._head = end
        self._compact()

    def pop_front_while_ts_at_most(self, bound: int, into: list[Event[Any]]) -> None:
        """Drop leading events whose ``ts`` is at most ``bound`` (the buffer must be ts-ordered)."""
        self.pop_front(self.index_after_ts(bound) - self._head, into)

    def index_after_ts(self, ts: int) -> int:
        """Index just past the last event with ``event.ts <= ts`` (the buffer must be ts-ordered)."""
        return bisect_right(self._events, ts, lo=self._head, key=ts_key)

    def _compact(self) -> None:
        if self._head >= _COMPACT_AT and self._head * 2 >= len(self._events):
            del self._events[: self._head]
            self._head = 0


BufferFactory = Callable[[Callable[[Event[Any]], Any]], Any]
"""Builds a policy's event buffer from its key (an ``EventBuffer`` or a ``PagedEventBuffer``)."""

