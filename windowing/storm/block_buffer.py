"""An event buffer whose rows are two numpy arrays (timestamps, arrival numbers) beside their blocks.

The drop-in for :class:`~windowing.storm.event_buffer.EventBuffer` of the
in-memory duration and count windows. Rows are kept sorted by ``(ts, seq)``
(or by ``seq``) in two ``int64`` arrays with room to grow at the end; the live
rows are ``[head, end)``. A spout's columnar block goes in as its rows' numbers
(:meth:`BlockBuffer.insert_rows`), with no Python object per row; events added
one by one or in a list are held as a block of events. Expiring is moving
``head``; the window is a range of positions, read as :class:`Rows`. What the
buffer keeps follows its live rows: the arrays shrink after a burst, and after
an evaluation a large block mostly expired is cut down to a copy of its live
rows (:meth:`BlockBuffer.compact_blocks`).

``events`` and iteration still give event objects (built for columnar rows),
for the slow paths: snapshots, tests, Storm's count queries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import pairwise
from typing import Any

import numpy as np

from windowing.storm.blocks import Block, BlockIndex, Rows
from windowing.storm.event import Event, seq_key

_MIN_ROOM = 1024
#: A columnar block whose table holds at least these many bytes is compacted once most of its rows left.
COMPACT_BYTES = 1 << 20


class BlockBuffer:
    """Rows sorted by ``(ts, seq)`` (the default) or by ``seq`` (``key`` is ``seq_key``)."""

    __slots__ = ("_end", "_head", "_key", "_pending", "_seq", "_top", "_ts", "by_ts", "index")

    def __init__(self, key: Callable[[Event[Any]], Any]) -> None:
        self._key = key
        self.by_ts = key is not seq_key
        self._ts = np.empty(0, np.int64)
        self._seq = np.empty(0, np.int64)
        self._head = 0
        self._end = 0
        self._top = -1  # the largest arrival number ever held
        self.index = BlockIndex()
        # Events added one at a time since the last read, merged in at once (as one block) by the next read.
        self._pending: list[Event[Any]] = []

    def __len__(self) -> int:
        return self._end - self._head + len(self._pending)

    def __iter__(self) -> Iterator[Event[Any]]:
        self._settle()
        return iter(self.rows(self._head, self._end).events())

    @property
    def events(self) -> BlockView:
        """The rows by position as events (built on read); live ones are ``events[head:]``. Valid until a change."""
        self._settle()
        return BlockView(self)

    @property
    def head(self) -> int:
        """Position of the first live row."""
        self._settle()
        return self._head

    @property
    def end(self) -> int:
        """Position just past the last live row."""
        self._settle()
        return self._end

    def ts_at(self, position: int) -> int:
        """The timestamp of the row at ``position``."""
        self._settle()
        return int(self._ts[position])

    def seq_at(self, position: int) -> int:
        """The arrival number of the row at ``position``."""
        self._settle()
        return int(self._seq[position])

    def rows(self, lo: int, hi: int) -> Rows:
        """The rows at positions ``[lo, hi)`` (views of the arrays: valid until the buffer changes)."""
        self._settle()
        return Rows(self._ts[lo:hi], self._seq[lo:hi], self.index)

    # Adding --------------------------------------------------------------------------------------
    def insert(self, event: Event[Any]) -> None:
        """Add ``event`` at its place in key order (after equal keys); merged in at the next read."""
        self._pending.append(event)

    def insert_all(self, events: list[Event[Any]], by: Callable[[Event[Any]], Any] | None = None) -> None:
        """Add ``events`` (in arrival order) as blocks of events, merged in key order.

        One block, unless held blocks' arrival numbers fall between the events'
        (restored events around restored columnar blocks): then one block per
        run between them, so that blocks never interleave. Events that continue
        the last block of events (added one at a time) join it.
        """
        self._pending.extend(events)
        self._settle()

    def _settle(self) -> None:
        """Merge the events added since the last read."""
        events = self._pending
        if not events:
            return
        self._pending = []
        seqs = np.fromiter((e.seq for e in events), np.int64, len(events))
        ts = np.fromiter((e.ts for e in events), np.int64, len(events))
        if not self.index.extend_last(events, seqs):
            gaps = self.index.gaps(seqs)
            cuts = [0, *(np.flatnonzero(gaps[1:] != gaps[:-1]) + 1).tolist(), len(events)]
            for a, b in pairwise(cuts):
                self.index.add(Block.of_events(events[a:b]))
        self._merge(ts, seqs)

    def insert_rows(self, block: Block, ts: np.ndarray) -> None:
        """Hold every row of a columnar ``block`` (``ts``: their timestamps, in the block's order)."""
        self._settle()  # blocks never interleave: the events added before it come first
        self.index.add(block)
        seqs = block.seqs if block.seqs is not None else np.arange(block.first_seq, block.first_seq + block.size)
        self._merge(np.asarray(ts, np.int64), seqs)

    def _merge(self, ts: np.ndarray, seqs: np.ndarray) -> None:
        """Merge new rows into the sorted live rows.

        New rows come in arrival order (increasing numbers) and, once a manager
        adds them, after every held row: then a stable sort by timestamp is the
        ``(ts, seq)`` order. Rows restored out of that order are sorted by both keys.
        """
        ascending = len(seqs) < 2 or bool(np.all(seqs[1:] > seqs[:-1]))
        after_held = ascending and int(seqs[0]) > self._top
        self._top = max(self._top, int(seqs.max()))
        if self.by_ts:
            order = np.argsort(ts, kind="stable") if ascending else np.lexsort((seqs, ts))
            keys_new = ts = ts[order]
            seqs = seqs[order]
            keys = self._ts
        else:
            if not ascending:
                order = np.argsort(seqs, kind="stable")
                ts, seqs = ts[order], seqs[order]
            keys_new, keys = seqs, self._seq
        n = len(ts)
        self._make_room(n)
        head, end = self._head, self._end
        lo = head + int(np.searchsorted(keys[head:end], keys_new[0], side="left"))
        if lo == end:  # the usual case: every new row sorts after the held ones
            self._ts[end : end + n] = ts
            self._seq[end : end + n] = seqs
        else:  # a few held rows sort after the first new one: merge that tail with the new rows
            tail_ts = np.concatenate((self._ts[lo:end], ts))
            tail_seq = np.concatenate((self._seq[lo:end], seqs))
            if not self.by_ts:
                order = np.argsort(tail_seq, kind="stable")
            elif after_held:  # held rows first on equal timestamps: they arrived before
                order = np.argsort(tail_ts, kind="stable")
            else:
                order = np.lexsort((tail_seq, tail_ts))
            self._ts[lo : end + n] = tail_ts[order]
            self._seq[lo : end + n] = tail_seq[order]
        self._end = end + n

    def _make_room(self, n: int) -> None:
        """Room for ``n`` more rows at the end: the dead prefix dropped, or the arrays grown by half."""
        live = self._end - self._head
        capacity = len(self._ts)
        if self._end + n <= capacity:
            return
        if live + n <= capacity * 3 // 4:  # shifting the live rows down leaves room to grow
            ts, seq = self._ts, self._seq
        else:
            capacity = max(_MIN_ROOM, (live + n) * 3 // 2)
            ts, seq = np.empty(capacity, np.int64), np.empty(capacity, np.int64)
        ts[:live] = self._ts[self._head : self._end]
        seq[:live] = self._seq[self._head : self._end]
        self._ts, self._seq, self._head, self._end = ts, seq, 0, live

    def _shrink(self) -> None:
        """Smaller arrays once the live rows fill under a quarter of them (after a burst), so they do not stay big."""
        live = self._end - self._head
        if len(self._ts) <= 4 * max(live, _MIN_ROOM):
            return
        capacity = max(_MIN_ROOM, live * 3 // 2)
        ts, seq = np.empty(capacity, np.int64), np.empty(capacity, np.int64)
        ts[:live] = self._ts[self._head : self._end]
        seq[:live] = self._seq[self._head : self._end]
        self._ts, self._seq, self._head, self._end = ts, seq, 0, live

    def compact_blocks(self) -> None:
        """Let go of the rows that left: a large block mostly expired becomes a copy of its live rows.

        A columnar block whose live rows are under half of its table's rows, when
        that table holds :data:`COMPACT_BYTES` or more, is replaced by a block of
        a copy (``take``) of its live rows, numbered again from 0. A window
        manager calls it after an evaluation, once the expired rows were reported
        (they keep the old block readable as long as they are held). A small
        window over large spout batches then holds about its own rows, not whole
        batches; a block is copied each time its live rows halve, so the copies
        cost at most as much as the block itself.
        """
        self._settle()
        sparse = []
        for block in self.index.blocks.values():
            table = getattr(block.source, "table", None) if block.is_columnar else None
            if table is not None and block.live * 2 < table.num_rows and table.get_total_buffer_size() >= COMPACT_BYTES:
                sparse.append(block)
        if not sparse:
            return
        live = self._seq[self._head : self._end]
        live = live if not self.by_ts else np.sort(live)  # ordered by arrival number already without timestamps
        for block in sparse:
            lo, hi = np.searchsorted(live, [block.first_seq, block.last_seq + 1]).tolist()
            if hi - lo != block.live:  # not every live row is in the arrays (cannot happen once settled)
                continue
            self.index.replace(block, block.compacted(live[lo:hi].copy()))

    # Reading and expiring ---------------------------------------------------------------------------
    def first_key(self) -> Any:
        """The smallest key held, or None."""
        self._settle()
        if self._end == self._head:
            return None
        h = self._head
        return (int(self._ts[h]), int(self._seq[h])) if self.by_ts else int(self._seq[h])

    def first(self) -> Event[Any] | None:
        """The live row with the smallest key as an event, or None."""
        self._settle()
        return None if self._end == self._head else self.rows(self._head, self._head + 1).events()[0]

    def pop_front(self, n: int, into: Any) -> None:
        """Drop the first ``n`` live rows, handing them to ``into`` (an ``Expired``, or a list of events)."""
        if n <= 0:
            return
        if self.by_ts or n > self._end - self._head:  # by arrival, events added since sort after the held ones
            self._settle()
        head = self._head
        end = head + n
        gone = Rows(self._ts[head:end].copy(), self._seq[head:end].copy(), self.index)
        gone.index = self.index.subset(self.index.release(gone.seq))
        self._head = end
        self._shrink()
        add_rows = getattr(into, "add_rows", None)
        if add_rows is not None:
            add_rows(gone)
        else:
            into.extend(gone.events())

    def pop_front_while_ts_at_most(self, bound: int, into: Any) -> None:
        """Drop leading rows whose ``ts`` is at most ``bound`` (the buffer must be ts-ordered)."""
        self.pop_front(self.index_after_ts(bound) - self._head, into)

    def index_after_ts(self, ts: int) -> int:
        """Position just past the last row with ``ts`` at most ``ts`` (the buffer must be ts-ordered)."""
        self._settle()
        return self._head + int(np.searchsorted(self._ts[self._head : self._end], ts, side="right"))


class BlockView:
    """A buffer's rows by position, as events built on read (``source`` of a ``WindowScan``)."""

    __slots__ = ("buffer",)

    def __init__(self, buffer: BlockBuffer) -> None:
        self.buffer = buffer

    def __len__(self) -> int:
        return self.buffer.end

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            lo, hi, _ = index.indices(self.buffer.end)
            return self.buffer.rows(lo, max(lo, hi)).events()
        if index < 0:
            index += self.buffer.end
        if not self.buffer.head <= index < self.buffer.end:
            msg = f"BlockView: position {index} is not a live row"
            raise IndexError(msg)
        return self.buffer.rows(index, index + 1).events()[0]

    def rows(self, lo: int, hi: int) -> Rows:
        """The rows at ``[lo, hi)``."""
        return self.buffer.rows(lo, hi)

    def iter_range(self, lo: int, hi: int) -> Iterator[Event[Any]]:
        """The rows at ``[lo, hi)`` as events, in the buffer's order."""
        return iter(self.buffer.rows(lo, hi).events())

