"""The window handed to a bolt's ``execute``: a view over the window manager's events."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from itertools import pairwise
from operator import attrgetter
from typing import Any, Generic, TypeVar

import numpy as np

from windowing.storm.block_buffer import BlockView
from windowing.storm.blocks import Rows
from windowing.storm.event import Event
from windowing.storm.expired import Expired
from windowing.storm.membership import Membership, SeqRange
from windowing.storm.policies.eviction_policy import WindowScan

T = TypeVar("T")


class TupleWindow(Generic[T]):
    """The tuples of one window activation, Storm's ``TupleWindow``.

    - ``get()``: the tuples in the window, in arrival order.
    - ``get_new()``: those that were not in the previous activation's window.
    - ``get_expired()``: those that left the window since the previous evaluation.
      Windows bounded by ``with_max_events_in_memory`` do not track new and
      expired tuples: both methods raise ``TypeError``, as Storm's persistent
      windows throw ``UnsupportedOperationException``.
    - ``iter()``: iterate the window without building a list.
    - ``start_timestamp`` / ``end_timestamp``: the window covers
      ``(start, end]`` in milliseconds; ``end`` is the evaluation's reference time
      (processing time for processing-time windows) and ``start`` is ``end`` minus
      the window length for duration windows, None for count windows.

    Nothing is copied until asked for, so a bolt that reads little pays little.
    Rows a spout delivered as columnar blocks are held as arrays beside their
    blocks: their tuples are built (in bulk, per run of one block) when a
    method returns them, and kept only until ``execute`` returns; ``to_arrow()``
    slices the blocks without building any.
    The view is only readable inside ``execute``: afterwards the window manager
    moves on and any access raises ``RuntimeError`` (keep ``list(window.get())``
    if you need the tuples later).
    """

    __slots__ = ("_cache", "_expired", "_open", "_prev", "_scan", "_schemas", "end_timestamp", "read_values",
                 "start_timestamp", "tracks_changes")

    def __init__(
        self,
        scan: WindowScan,
        previous: Membership | None,
        expired: Expired | list[Event[T]],
        start_timestamp: int | None,
        end_timestamp: int | None,
        tracks_changes: bool = True,
        arrow_schemas: dict[tuple[str, ...], Any] | None = None,
    ) -> None:
        self._scan = scan
        self._prev = previous
        self._expired = expired
        self._cache: dict[str, list[T]] = {}
        self._open = True
        self.start_timestamp = start_timestamp
        self.end_timestamp = end_timestamp
        self.tracks_changes = tracks_changes
        self.read_values = False  # whether the bolt asked for the tuples themselves (not only to_arrow)
        self._schemas = arrow_schemas or {}

    def _check_open(self, method: str, values: bool = True) -> None:
        self.read_values = self.read_values or values
        if not self._open:
            msg = (
                f"TupleWindow.{method}: the window is only readable inside execute(); "
                "copy list(window.get()) there if you need the tuples later"
            )
            raise RuntimeError(msg)

    def _events(self) -> list[Event[T]]:
        return self._scan.events()

    def _rows(self) -> Rows | None:
        """The window's rows (in the buffer's order), when the buffer holds them as arrays (else None)."""
        scan = self._scan
        return scan.source.rows(scan.lo, scan.hi) if isinstance(scan.source, BlockView) else None

    def get(self) -> list[T]:
        """The tuples in the window, in arrival order."""
        self._check_open("get")
        if "get" not in self._cache:
            rows = self._rows()
            self._cache["get"] = rows.values_by_arrival() if rows is not None else [e.value for e in self._events()]
        return self._cache["get"]

    def _check_changes(self, method: str) -> None:
        if not self.tracks_changes:
            msg = (
                f"TupleWindow.{method}: not available for a window bounded by with_max_events_in_memory "
                "(as in Storm's persistent windows); iterate the window with iter() instead"
            )
            raise TypeError(msg)

    def get_new(self) -> list[T]:
        """The tuples in this window that were not in the previous activation's window."""
        self._check_open("get_new")
        self._check_changes("get_new")
        if "new" not in self._cache:
            rows = self._rows()
            if rows is None:
                self._cache["new"] = [e.value for e in self._new_events()]
            elif self._prev is None:  # every tuple is new: get()'s tuples, in a list of its own
                self._cache["new"] = list(self.get())
            else:
                new = rows.where(~self._prev.mask(rows.ts, rows.seq))
                got = self._cache.get("get")
                if got is None:
                    self._cache["new"] = new.values_by_arrival()
                else:  # the tuples get() built, not built again
                    at = np.searchsorted(np.sort(rows.seq), np.sort(new.seq))
                    self._cache["new"] = [got[i] for i in at.tolist()]
        return self._cache["new"]

    def _new_events(self) -> list[Event[T]]:
        prev, scan = self._prev, self._scan
        if prev is None:
            return self._events()
        if scan.arrival_ordered and isinstance(scan.source, list) and isinstance(prev, SeqRange):
            # Processing-time count windows only move forward: every held event that arrived before the previous
            # evaluation was in its window, so the new ones are the suffix from its end_seq, found by bisection.
            # (Storm-exact event-time windows are arrival-ordered too, but a kept event can join a later window.)
            start = bisect_left(scan.source, prev.end_seq, scan.lo, scan.hi, key=_seq)
            return scan.source[start : scan.hi]  # type: ignore[no-any-return]
        return [e for e in self._events() if not prev(e)]

    def get_expired(self) -> list[T]:
        """The tuples that expired since the previous evaluation, in arrival order."""
        self._check_open("get_expired")
        self._check_changes("get_expired")
        if "expired" not in self._cache:
            expired = self._expired
            self._cache["expired"] = (expired.values_by_arrival() if isinstance(expired, Expired)
                                      else [e.value for e in sorted(expired, key=_seq)])
        return self._cache["expired"]

    def iter(self) -> Iterator[T]:
        """Iterate the window's tuples in arrival order."""
        self._check_open("iter")
        rows = self._rows()
        if rows is not None:  # built a block's run at a time, none kept
            return (value for block, index, _ in rows.arrival_runs() for value in block.values(index))
        scan = self._scan
        # A window paged to a store is streamed in timestamp order rather than gathered to be sorted.
        if scan.arrival_ordered or not isinstance(scan.source, list):
            return (e.value for e in scan.iter_events())
        return (e.value for e in scan.events())

    def __iter__(self) -> Iterator[T]:
        return self.iter()

    def __len__(self) -> int:
        self._check_open("__len__", values=False)
        return self._scan.size

    def to_arrow(self) -> Any:
        """The window's tuples as a ``pyarrow.Table`` in arrival order, one column per field.

        Tuples a spout delivered stay in the columnar blocks they came in: the
        table is made of slices of those blocks (no copy when the window's rows of
        a block are contiguous, a ``take`` otherwise) and keeps their Arrow types.
        Otherwise (tuples emitted by a bolt or restored from a store) the columns
        are built from the tuples' values, named after the first tuple's fields,
        with the types of the spout blocks of those fields seen last (inferred by
        pyarrow when there were none, or when the values do not fit them).
        """
        import pyarrow as pa  # imported here: only columnar users pay for it

        self._check_open("to_arrow", values=False)
        scan = self._scan
        if scan.size == 0:
            return pa.table({})
        rows = self._rows()
        if rows is not None:
            table = rows.table_by_arrival()
            if table is not None:
                return table
            tuples = rows.values_by_arrival()  # not get(): the bolt asked for columns, not tuples
        else:
            events = scan.source[scan.lo : scan.hi] if isinstance(scan.source, list) else scan.events()
            table = _block_slices(events)
            if table is not None:
                return table
            tuples = [e.value for e in sorted(events, key=_seq)]
        fields = tuples[0].fields  # type: ignore[attr-defined]
        try:  # every row as long as the first (the first tuple's fields name the columns)
            columns = list(zip(*(t.values for t in tuples), strict=True))  # type: ignore[attr-defined]
        except ValueError:
            msg = (f"to_arrow: the window holds tuples of different fields (the first has {fields.to_list()}); "
                   "use get() for a window over streams of different fields")
            raise ValueError(msg) from None
        schema = self._schemas.get(tuple(fields))
        if schema is not None:
            try:  # typed as the spout's blocks are, so every window of a bolt gives one schema
                arrays = [pa.array(c, type=t) for c, t in zip(columns, schema.types, strict=True)]
                return pa.table(arrays, schema=schema)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
                pass  # values the blocks' types cannot hold (tuples from a bolt): inferred types instead
        return pa.table([pa.array(column) for column in columns], names=list(fields))

    def close(self) -> None:
        """End the view; called by the window manager once ``execute`` returns."""
        self._open = False
        self._scan = WindowScan([], 0, 0, True, SeqRange(0, 0))
        self._cache.clear()

    def __repr__(self) -> str:
        size = self._scan.size if self._open else "closed"
        return f"TupleWindow(size={size}, start={self.start_timestamp}, end={self.end_timestamp})"


_seq = attrgetter("seq")



def _block_slices(events: list[Event[Any]]) -> Any:
    """The events' rows in arrival order as one table of slices of their blocks.

    None unless every event is a block row and the blocks share one schema. A
    block's events have consecutive arrival numbers and rows that grow with them,
    so sorting by arrival number groups each block's rows in increasing order.
    """
    import numpy as np
    import pyarrow as pa

    n = len(events)
    try:
        rows = np.fromiter(map(_row, events), np.int64, n)
    except AttributeError:  # an event holding a built value (emitted by a bolt, or restored from a store)
        return None
    seqs = np.fromiter(map(_seq, events), np.int64, n)
    blocks = np.fromiter(map(id, map(_source, events)), np.uint64, n)
    order = np.argsort(seqs, kind="stable")
    rows, blocks = rows[order], blocks[order]
    starts = [0, *(np.flatnonzero(blocks[1:] != blocks[:-1]) + 1).tolist(), n]
    pieces = [_rows_of(events[order[a]].source.table, rows[a:b])  # type: ignore[attr-defined]
              for a, b in pairwise(starts)]
    schema = pieces[0].schema
    if any(not piece.schema.equals(schema) for piece in pieces):
        return None
    return pieces[0] if len(pieces) == 1 else pa.concat_tables(pieces)


def _rows_of(table: Any, rows: Any) -> Any:
    """Rows ``rows`` (an increasing int64 array) of ``table``: a zero-copy slice when they are contiguous."""
    first, count = int(rows[0]), len(rows)
    if int(rows[-1]) - first + 1 == count:
        return table.slice(first, count)
    return table.take(rows)


_row = attrgetter("row")
_source = attrgetter("source")
