"""The events that left a window since its last evaluation: built events and columnar rows, in one list.

An eviction policy collects them between two evaluations; the window manager
hands them to the listener's ``on_expiry`` and to the window's
``get_expired()``. Policies over a :class:`~windowing.storm.block_buffer.BlockBuffer`
add whole :class:`~windowing.storm.blocks.Rows` (no Python object per row);
the others append events as before. Iterating gives events (built for columnar
rows); :meth:`Expired.seqs` and :meth:`Expired.values_by_arrival` read the
arrays directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import pairwise
from typing import Any

import numpy as np

from windowing.storm.blocks import Block, Rows
from windowing.storm.event import Event


class Expired:
    """Expired events and rows, in the order they expired."""

    __slots__ = ("_parts", "_size")

    def __init__(self, events: Iterable[Event[Any]] = ()) -> None:
        self._parts: list[list[Event[Any]] | Rows] = []
        self._size = 0
        self.extend(events)

    def append(self, event: Event[Any]) -> None:
        """Add one built event."""
        last = self._parts[-1] if self._parts else None
        if isinstance(last, list):
            last.append(event)
        else:
            self._parts.append([event])
        self._size += 1

    def extend(self, events: Iterable[Event[Any]]) -> None:
        """Add built events."""
        for event in events:
            self.append(event)

    def add_rows(self, rows: Rows) -> None:
        """Add columnar rows (their blocks stay readable through ``rows.index``)."""
        if len(rows):
            self._parts.append(rows)
            self._size += len(rows)

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size > 0

    def __iter__(self) -> Iterator[Event[Any]]:
        for part in self._parts:
            yield from part if isinstance(part, list) else part.events()

    def seqs(self) -> np.ndarray:
        """Every arrival number, in the order they expired (``int64``)."""
        arrays = [part.seq if isinstance(part, Rows) else np.fromiter((e.seq for e in part), np.int64, len(part))
                  for part in self._parts]
        return np.concatenate(arrays) if arrays else np.empty(0, np.int64)

    def rows_only(self) -> list[Rows] | None:
        """The parts when every one is columnar rows, else None."""
        parts = self._parts
        return parts if all(isinstance(p, Rows) for p in parts) else None  # type: ignore[return-value]

    def values_by_arrival(self) -> list[Any]:
        """The values in arrival order."""
        rows = self.rows_only()
        if rows:
            blocks = _one_index(rows)
            if blocks is None:  # a block was compacted between two parts: each part read through its own blocks
                return _merged_by_arrival(rows)
            ts = np.concatenate([part.ts for part in rows])
            seq = np.concatenate([part.seq for part in rows])
            return Rows(ts, seq, rows[0].index.subset(blocks)).values_by_arrival()
        events = sorted(self, key=_seq)
        return [e.value for e in events]


def _one_index(parts: list[Rows]) -> dict[int, Block] | None:
    """The blocks of every part by first arrival number, or None when two of them overlap.

    They do when a block was compacted (``BlockBuffer.compact_blocks``) after
    some of its rows expired and before others did: the old block and the
    smaller new one cover some of the same arrival numbers.
    """
    blocks: dict[int, Block] = {}
    for part in parts:
        for first, block in part.index.blocks.items():
            if blocks.setdefault(first, block) is not block:
                return None
    firsts = sorted(blocks)
    if any(blocks[a].last_seq >= b for a, b in pairwise(firsts)):
        return None
    return blocks


def _merged_by_arrival(parts: list[Rows]) -> list[Any]:
    """The values of every part in arrival order, each part's read through its own blocks."""
    values: list[Any] = []
    for part in parts:
        values += part.values_by_arrival()
    seqs = np.concatenate([np.sort(part.seq) for part in parts])
    order = np.argsort(seqs, kind="stable")
    return [values[i] for i in order.tolist()]


def _seq(event: Event[Any]) -> int:
    return event.seq
