"""A persistent window's columnar blocks in its store: what a commit writes of them, and a resume's blocks.

A spout's block held by a window goes to the store as one Arrow record
(:mod:`bolts.codecs.arrow_chunk`) with the commit after it arrived, less its
rows that expired before that commit; a resumed task holds each record's live
rows as a block again, those awaiting their expiry report as events.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bolts.codecs.arrow_chunk import ARROW_CHUNK_PREFIX, decode_arrow_chunk
from bolts.codecs.window_state_codec import seq_key
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
    """Hold each block a commit stored whole from its record's bytes (read zero-copy), not from its batch.

    The batch's table can then go, with whatever else of the batch it kept
    alive: the window holds exactly its rows, as a restarted task would.
    (A namespace stores its own checksummed copy of the record.)
    """
    for block, _ in added:
        data = puts.get(seq_key(ARROW_CHUNK_PREFIX, block.first_seq))
        if data is None or block.live != block.size:
            continue
        stored, seqs, _ = decode_arrow_chunk(data)
        if len(seqs) == block.size:  # every row of the block (none expired before the commit)
            block.source.table = stored.table
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
