"""Held rows as numpy arrays beside the blocks they came in: no Python object per held row.

A :class:`Block` is one add's rows: a columnar block (a ``RowSource``: an Arrow
table whose rows are built as values only when asked for) or a list of
:class:`~windowing.storm.event.Event` objects (tuples a bolt emitted, restored
ones, tuples added one by one). A block's rows have increasing arrival numbers,
and the arrival numbers of two blocks never interleave, so an arrival number
names its block (by bisection over the blocks' first numbers) and its row in it.

:class:`Rows` is a selection of held rows: their timestamps and arrival numbers
as two ``int64`` arrays, and the :class:`BlockIndex` that resolves them. A
window's rows, its new and its expired ones are all ``Rows``; values (a bolt's
tuples) are built from the blocks only when read, in bulk per run of one block.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterator
from copy import copy
from itertools import pairwise
from typing import Any

import numpy as np

from windowing.storm.event import Event, RowEvent

_EMPTY = np.empty(0, np.int64)


class Block:
    """The rows of one add, as a columnar ``source`` (``rows`` of it) or as ``events``.

    ``seqs`` are the rows' arrival numbers when they are not ``first_seq``,
    ``first_seq + 1``, ... (a block restored from a store without its expired
    rows); ``rows`` the source rows they are when not ``0, 1, ...`` (a spout's
    block without its late rows). ``live`` counts the rows still held.
    """

    __slots__ = ("events", "first_seq", "live", "rows", "seqs", "size", "source")

    def __init__(self, first_seq: int, size: int, *, source: Any = None, events: list[Event[Any]] | None = None,
                 seqs: np.ndarray | None = None, rows: np.ndarray | None = None) -> None:
        self.first_seq = first_seq
        self.size = size
        self.source = source
        self.events = events
        self.seqs = seqs
        self.rows = rows
        self.live = size

    @classmethod
    def of_events(cls, events: list[Event[Any]]) -> Block:
        """A block of events given in arrival order (their numbers need not be consecutive)."""
        seqs = np.fromiter((e.seq for e in events), np.int64, len(events))
        contiguous = int(seqs[-1]) - int(seqs[0]) + 1 == len(events)
        return cls(int(seqs[0]), len(events), events=events, seqs=None if contiguous else seqs)

    @property
    def is_columnar(self) -> bool:
        """Whether the rows are a columnar source's (not built events)."""
        return self.events is None

    @property
    def last_seq(self) -> int:
        """The arrival number of the block's last row."""
        return self.first_seq + self.size - 1 if self.seqs is None else int(self.seqs[-1])

    def index_of(self, seqs: np.ndarray) -> np.ndarray:
        """Positions in the block (0 to ``size - 1``) of rows with arrival numbers ``seqs``."""
        return seqs - self.first_seq if self.seqs is None else np.searchsorted(self.seqs, seqs)

    def source_rows(self, index: np.ndarray) -> np.ndarray:
        """The source's row numbers of block positions ``index``."""
        return index if self.rows is None else self.rows[index]

    def values(self, index: np.ndarray) -> list[Any]:
        """The values of the rows at positions ``index`` (built from the source, in bulk, when columnar)."""
        if self.events is not None:
            events = self.events
            return [events[i].value for i in index.tolist()]
        rows = self.source_rows(index)
        bulk = getattr(self.source, "values_of", None)
        if bulk is not None:
            return bulk(rows)  # type: ignore[no-any-return]
        return [self.source.row(r) for r in rows.tolist()]

    def events_at(self, index: np.ndarray, ts: np.ndarray, seqs: np.ndarray) -> list[Event[Any]]:
        """The rows at ``index`` as events (the held ones themselves for an event block)."""
        if self.events is not None:
            events = self.events
            return [events[i] for i in index.tolist()]
        source = self.source
        return [RowEvent(source, r, t, s) for r, t, s in
                zip(self.source_rows(index).tolist(), ts.tolist(), seqs.tolist(), strict=True)]

    def table_of(self, index: np.ndarray) -> Any:
        """The rows at ``index`` (increasing) as a ``pyarrow.Table``: a zero-copy slice when they are contiguous."""
        table = self.source.table
        rows = self.source_rows(index)
        first, count = int(rows[0]), len(rows)
        if int(rows[-1]) - first + 1 == count:
            return table.slice(first, count)
        return table.take(rows)

    def compacted(self, seqs: np.ndarray) -> Block:
        """A new columnar block of this one's rows ``seqs`` (increasing) only, their table a copy (``take``).

        The block itself is left as it is: rows read through it (expired ones a
        window still reports) stay readable, and its table goes with the last
        reference to it. The new block's source is a copy of the source that
        holds the smaller table, its rows numbered ``0, 1, ...`` again.
        """
        rows = self.source_rows(self.index_of(seqs))
        source = copy(self.source)
        source.table = self.source.table.take(rows)
        contiguous = int(seqs[-1]) - int(seqs[0]) + 1 == len(seqs)
        return Block(int(seqs[0]), len(seqs), source=source, seqs=None if contiguous else seqs)


class BlockIndex:
    """The blocks that hold some rows, by first arrival number; finds the block of any held row."""

    __slots__ = ("_firsts", "_starts", "blocks")

    def __init__(self) -> None:
        self.blocks: dict[int, Block] = {}
        self._firsts: list[int] = []
        self._starts: np.ndarray | None = None  # _firsts as an array, rebuilt when blocks come or go

    def __len__(self) -> int:
        return len(self.blocks)

    def add(self, block: Block) -> None:
        """Index a new block (its arrival numbers overlap no indexed block's)."""
        self.blocks[block.first_seq] = block
        if not self._firsts or block.first_seq > self._firsts[-1]:
            self._firsts.append(block.first_seq)
        else:
            insort(self._firsts, block.first_seq)
        self._starts = None

    def gaps(self, seqs: np.ndarray) -> np.ndarray:
        """For arrival numbers held by no block: how many blocks come before each (the gap it falls in)."""
        return np.searchsorted(self._starts_array(), seqs)

    def extend_last(self, events: list[Event[Any]], seqs: np.ndarray) -> bool:
        """Add ``events`` (arrival numbers ``seqs``, following each other) to the last block, if they continue it.

        Only a block of events whose numbers follow each other takes more, so
        events added one at a time make one block, not one each; and only while
        none of its rows has left, so a block whose front expired is freed once
        its last row leaves, however long tuples keep arriving.
        """
        if not self._firsts:
            return False
        last = self.blocks[self._firsts[-1]]
        n = len(seqs)
        if (last.events is None or last.seqs is not None or last.live != last.size
                or int(seqs[0]) != last.first_seq + last.size or int(seqs[-1]) - int(seqs[0]) + 1 != n):
            return False
        last.events.extend(events)
        last.size += n
        last.live += n
        return True

    def _starts_array(self) -> np.ndarray:
        if self._starts is None:
            self._starts = np.array(self._firsts, np.int64)
        return self._starts

    def locate(self, seqs: np.ndarray) -> np.ndarray:
        """The first arrival number of the block of each of ``seqs``."""
        starts = self._starts_array()
        return starts[np.searchsorted(starts, seqs, side="right") - 1]

    def release(self, seqs: np.ndarray) -> dict[int, Block]:
        """Rows ``seqs`` are no longer held: forget blocks left with none; returns the blocks of ``seqs``."""
        if not len(seqs):
            return {}
        starts = self._starts_array()
        counts = np.bincount(np.searchsorted(starts, seqs, side="right") - 1, minlength=len(starts))
        out = {}
        for at in np.flatnonzero(counts).tolist():
            first = int(starts[at])
            block = out[first] = self.blocks[first]
            block.live -= int(counts[at])
            if block.live <= 0:
                del self.blocks[first]
                del self._firsts[bisect_left(self._firsts, first)]
                self._starts = None
        return out

    def replace(self, old: Block, new: Block) -> None:
        """Index ``new`` instead of ``old`` (its rows are some of ``old``'s: the order of the blocks is kept)."""
        del self.blocks[old.first_seq]
        del self._firsts[bisect_left(self._firsts, old.first_seq)]
        self.add(new)

    def subset(self, blocks: dict[int, Block]) -> BlockIndex:
        """A new index of ``blocks`` (rows that left the window keep their blocks readable through it)."""
        index = BlockIndex()
        index.blocks = blocks
        index._firsts = sorted(blocks)
        return index


class Rows:
    """Held rows as arrays: ``ts`` and ``seq`` (``int64``), resolved to values through ``index``.

    The arrays are in the order of the selection (a buffer's key order, or
    arrival order after :meth:`by_arrival`). Values, events and tables are built
    on each call; callers cache what they read twice.
    """

    __slots__ = ("index", "seq", "ts")

    def __init__(self, ts: np.ndarray, seq: np.ndarray, index: BlockIndex) -> None:
        self.ts = ts
        self.seq = seq
        self.index = index

    @classmethod
    def empty(cls) -> Rows:
        """No rows."""
        return cls(_EMPTY, _EMPTY, BlockIndex())

    def __len__(self) -> int:
        return len(self.seq)

    def by_arrival(self) -> Rows:
        """The same rows in arrival order."""
        seq = self.seq
        if len(seq) < 2 or bool(np.all(seq[1:] > seq[:-1])):
            return self
        order = np.argsort(seq)  # arrival numbers are distinct: no need for a stable sort
        return Rows(self.ts[order], seq[order], self.index)

    def arrival_runs(self) -> Iterator[tuple[Block, np.ndarray, slice]]:
        """:meth:`runs` of the rows in arrival order (their numbers sorted alone: cheaper than :meth:`by_arrival`)."""
        return Rows(self.ts, np.sort(self.seq), self.index).runs()  # runs() reads no timestamp

    def values_by_arrival(self) -> list[Any]:
        """The rows' values in arrival order."""
        out: list[Any] = []
        for block, index, _ in self.arrival_runs():
            out += block.values(index)
        return out

    def table_by_arrival(self) -> Any:
        """:meth:`to_arrow` of the rows in arrival order."""
        return _table_of_runs(self.arrival_runs())

    def where(self, keep: np.ndarray) -> Rows:
        """The rows where the boolean array ``keep`` is true, in the same order."""
        return Rows(self.ts[keep], self.seq[keep], self.index)

    def runs(self) -> Iterator[tuple[Block, np.ndarray, slice]]:
        """``(block, positions in it, slice of these arrays)`` for each run of rows of one block, in order."""
        n = len(self.seq)
        if not n:
            return
        firsts = self.index.locate(self.seq)
        cuts = [0, *(np.flatnonzero(firsts[1:] != firsts[:-1]) + 1).tolist(), n]
        blocks = self.index.blocks
        for a, b in pairwise(cuts):
            block = blocks[int(firsts[a])]
            yield block, block.index_of(self.seq[a:b]), slice(a, b)

    def values(self) -> list[Any]:
        """The rows' values, in order (built in bulk per run of one columnar block)."""
        out: list[Any] = []
        for block, index, _ in self.runs():
            out += block.values(index)
        return out

    def events(self) -> list[Event[Any]]:
        """The rows as events, in order (row events for columnar rows, the held events themselves otherwise)."""
        out: list[Event[Any]] = []
        for block, index, part in self.runs():
            out += block.events_at(index, self.ts[part], self.seq[part])
        return out

    def to_arrow(self) -> Any:
        """The rows in order as one ``pyarrow.Table`` of slices of their blocks, or None.

        None unless every row is a columnar block's and the blocks share one
        schema (then the caller builds the table from the values).
        """
        return _table_of_runs(self.runs())


def _table_of_runs(runs: Iterator[tuple[Block, np.ndarray, slice]]) -> Any:
    """The runs' rows as one table of slices of their blocks; None unless all are columnar with one schema."""
    import pyarrow as pa  # imported here: only columnar users pay for it

    pieces = []
    for block, index, _ in runs:
        if not block.is_columnar:
            return None
        pieces.append(block.table_of(index))
    if not pieces:
        return None
    schema = pieces[0].schema
    if any(not piece.schema.equals(schema) for piece in pieces):
        return None
    return pieces[0] if len(pieces) == 1 else pa.concat_tables(pieces)
