"""Events held by a window: a value, its timestamp and its arrival sequence number."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


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


class RowSource(Protocol[T_co]):
    """Rows held as one columnar block (a ``pyarrow.Table``), each built as a value only when asked for."""

    @property
    def table(self) -> Any:
        """The block's rows as a ``pyarrow.Table``."""

    def row(self, index: int) -> T_co:
        """The value of row ``index`` (built on first use, for the whole block at once)."""


class RowEvent(Event[T]):
    """An event whose value is row ``row`` of a columnar block, built only when ``value`` is read.

    A window of such events can hand its rows to a bolt as Arrow slices of the
    blocks (``TupleWindow.to_arrow``) without ever building the values. Copying or
    pickling one gives a plain :class:`Event` holding the built value.
    """

    __slots__ = ("row", "source")

    def __init__(self, source: RowSource[T], row: int, ts: int, seq: int) -> None:
        self.source = source
        self.row = row
        self.ts = ts
        self.seq = seq

    @property  # type: ignore[override]
    def value(self) -> T:
        """The row's value, built from the block (the whole block is built at the first read)."""
        return self.source.row(self.row)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Event, (self.value, self.ts, self.seq))


# The buffers' sort keys, as C-level getters: a window's buffer calls its key for every comparison.
ts_seq_key: Callable[[Event[Any]], tuple[int, int]] = attrgetter("ts", "seq")
"""Order events by timestamp, ties by arrival: ``(event.ts, event.seq)``."""

seq_key: Callable[[Event[Any]], int] = attrgetter("seq")
"""Order events by arrival: ``event.seq``."""

ts_key: Callable[[Event[Any]], int] = attrgetter("ts")
"""An event's timestamp."""
