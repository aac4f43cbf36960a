"""A persistent window's columnar blocks in its store: what a commit writes of them, and a resume's blocks.

A spout's block held by a window goes to the store as Arrow records
(:mod:`bolts.codecs.arrow_chunk`: one, or several for a large block) with the
commit after it arrived, less its rows that expired before that commit; a
resumed task holds each record's live rows as a block again, those awaiting
their expiry report as events.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from bolts.codecs.arrow_chunk import ARROW_CHUNK_PREFIX, decode_arrow_chunk
from bolts.codecs.window_state_codec import seq_of
from windowing import Event
from windowing.storm.blocks import Block

AddedBlocks = Sequence[tuple[Block, np.ndarray]]
"""Blocks added since the last commit, each with its rows' timestamps."""


def new_rows(added: AddedBlocks, unstored: np.ndarray) -> list[tuple[Any, np.ndarray, np.ndarray, np.ndarray]]:
    """What a commit stores of ``added``: ``(source, rows, seqs, ts)`` per block, less the ``unstored`` rows.

    ``unstored`` (sorted) are the arrival numbers that expired before this
    commit among those added since the last one.
    """
    out = []
    for block, ts in added:
        seqs = np.arange(block.first_seq, block.first_seq + block.size)
        rows = np.arange(block.size) if block.rows is None else block.rows
        lo, hi = np.searchsorted(unstored, [block.first_seq, block.first_seq + block.size])
        if hi > lo:  # some of its rows expired before they were stored (both sorted: no set lookups)
            keep = np.ones(block.size, bool)
            keep[unstored[lo:hi] - block.first_seq] = False
            seqs, rows, ts = seqs[keep], rows[keep], ts[keep]
        out.append((block.source, rows, seqs, ts))
    return out


def hold_stored(added: AddedBlocks, puts: dict[bytes, bytes]) -> None:
    """Hold each block a commit stored whole from its records' bytes (read zero-copy), not from its batch.

    The batch's table can then go, with whatever else of the batch it kept
    alive: the window holds exactly its rows, as a restarted task would. A
    block stored as several records holds their tables as one (each column
    one chunk per record, no copy). These bytes are the window's own: the
    namespace stores its own checksummed copy of every value (``memory://``
    too), so a stored row is in memory twice with ``memory://``.
    """
    records = sorted((seq_of(key), data) for key, data in puts.items() if key.startswith(ARROW_CHUNK_PREFIX))
    firsts = [first for first, _ in records]
    for block, _ in added:
        if block.live != block.size:  # some rows expired before the commit: not stored, the block kept
            continue
        parts = records[bisect_left(firsts, block.first_seq) : bisect_right(firsts, block.last_seq)]
        if not parts:
            continue
        stored = [decode_arrow_chunk(data) for _, data in parts]
        if sum(len(seqs) for _, seqs, _ in stored) != block.size:  # not every row of the block
            continue
        tables = [rows.table for rows, _, _ in stored]
        try:
            table = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
        except pa.ArrowInvalid:  # parts of different schemas (cannot happen for one block's rows): the batch's
            continue
        block.source.table = table
        block.rows = None


def resumed_blocks(
    loaded: Sequence[tuple[Any, np.ndarray | None, np.ndarray, np.ndarray]], expired_seqs: set[int],
    expired: list[Event[Any]],
) -> list[tuple[Block, np.ndarray]]:
    """The held blocks of the records ``Chunks.load`` read, each with its rows' timestamps.

    Rows in ``expired_seqs`` (held when committed, reported expired at the next
    evaluation) are appended to ``expired`` as events instead.
    """
    blocks = []
    expired_array = np.fromiter(expired_seqs, np.int64, len(expired_seqs))
    for source, positions, seqs, ts in loaded:
        rows = np.arange(len(seqs)) if positions is None else positions
        gone = np.isin(seqs, expired_array)
        if gone.any():
            block = _block(source, rows[gone], seqs[gone])
            expired += block.events_at(np.arange(block.size), ts[gone], seqs[gone])
            rows, seqs, ts = rows[~gone], seqs[~gone], ts[~gone]
        if len(seqs):
            blocks.append((_block(source, rows, seqs), ts))
    return blocks


def _block(source: Any, rows: np.ndarray, seqs: np.ndarray) -> Block:
    """A block of rows ``rows`` of a stored record's table, with arrival numbers ``seqs`` (both increasing)."""
    contiguous = int(seqs[-1]) - int(seqs[0]) + 1 == len(seqs)
    every_row = int(rows[-1]) - int(rows[0]) + 1 == len(rows) and int(rows[0]) == 0
    return Block(int(seqs[0]), len(seqs), source=source, seqs=None if contiguous else seqs,
                 rows=None if every_row else rows)
