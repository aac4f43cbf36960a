"""``BlockBuffer`` holds what ``EventBuffer`` holds, as arrays: the same order, fronts, expiries and windows.

Both buffers get the same operations (blocks of rows, events one by one or in
lists, expiring by count or by timestamp, restores out of arrival order); after
each, their live rows (arrival number, timestamp, value), what expired and the
positions a window reads must agree, also after blocks mostly expired were
compacted. ``Rows`` of a block buffer give values, events and Arrow tables in
arrival order whatever the blocks; what a buffer keeps alive follows its live rows.
"""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from windowing import Event
from windowing.storm import block_buffer
from windowing.storm.block_buffer import BlockBuffer
from windowing.storm.blocks import Block
from windowing.storm.event import seq_key, ts_seq_key
from windowing.storm.event_buffer import EventBuffer
from windowing.storm.expired import Expired


class Source:
    """A columnar block whose row ``i`` has the value ``values[i]``."""

    def __init__(self, values: list[int]) -> None:
        self.table = pa.table({"v": pa.array(values, pa.int64())})

    def row(self, index: int) -> int:
        return self.table.column("v")[index].as_py()

    def values_of(self, rows: np.ndarray) -> list[int]:
        return self.table.column("v").take(rows).to_pylist()


def _live(buffer) -> list[tuple[int, int, int]]:
    return [(e.seq, e.ts, e.value) for e in buffer]


ops = st.lists(st.one_of(
    st.tuples(st.just("rows"), st.lists(st.integers(0, 40), min_size=1, max_size=12), st.booleans()),
    st.tuples(st.just("events"), st.lists(st.integers(0, 40), min_size=1, max_size=6), st.booleans()),
    st.tuples(st.just("one"), st.integers(0, 40), st.booleans()),
    st.tuples(st.just("expire_ts"), st.integers(-1, 45), st.booleans()),
    st.tuples(st.just("expire_n"), st.integers(0, 8), st.booleans()),
    st.tuples(st.just("compact"), st.just(0), st.booleans()),
), max_size=25)


@settings(max_examples=100, deadline=None)
@given(ops=ops, by_ts=st.booleans())
def test_a_block_buffer_holds_and_expires_what_an_event_buffer_does(ops, by_ts):
    key = ts_seq_key if by_ts else seq_key
    blocks, events = BlockBuffer(key), EventBuffer(key)
    gone_blocks, gone_events = Expired(), []
    seq = 0
    for kind, arg, skip in ops:
        if kind in ("rows", "events"):
            stamps = arg
            values = [seq * 10 + i for i in range(len(stamps))]
            new = [Event(v, ts, seq + i) for i, (v, ts) in enumerate(zip(values, stamps, strict=True))]
            if kind == "rows":
                keep = np.array([i for i in range(len(stamps)) if not (skip and i % 3 == 1)] or [0], np.int64)
                block = Block(seq, len(keep), source=Source(values), rows=None if len(keep) == len(stamps) else keep)
                blocks.insert_rows(block, np.array(stamps, np.int64)[keep])
                new = [Event(values[i], stamps[i], seq + j) for j, i in enumerate(keep.tolist())]
                events.insert_all(new, by=None)
                seq += len(keep)
            else:
                blocks.insert_all(new)
                events.insert_all(new)
                seq += len(new)
        elif kind == "one":
            event = Event(seq * 10, arg, seq)
            blocks.insert(event)
            events.insert(event)
            seq += 1
            if skip:
                continue  # no read: the next operation finds it pending
        elif kind == "expire_ts" and by_ts:
            blocks.pop_front_while_ts_at_most(arg, gone_blocks)
            events.pop_front_while_ts_at_most(arg, gone_events)
        elif kind == "expire_n":
            n = min(arg, len(events))
            blocks.pop_front(n, gone_blocks)
            events.pop_front(n, gone_events)
        elif kind == "compact":  # every block under half live becomes a copy of its live rows, whatever its size
            with patch.object(block_buffer, "COMPACT_BYTES", 0):
                blocks.compact_blocks()
        assert _live(blocks) == _live(events)
        assert [(e.seq, e.value) for e in gone_blocks] == [(e.seq, e.value) for e in gone_events]
        assert blocks.first_key() == events.first_key()
        if by_ts:
            for ts in (0, 20, 40):
                assert blocks.index_after_ts(ts) - blocks.head == events.index_after_ts(ts) - events.head
    rows = blocks.rows(blocks.head, blocks.end).by_arrival()
    assert rows.values() == [e.value for e in sorted(events, key=seq_key)]
    assert gone_blocks.values_by_arrival() == [e.value for e in sorted(gone_events, key=seq_key)]


def test_rows_of_columnar_blocks_are_one_table_in_arrival_order():
    buffer = BlockBuffer(ts_seq_key)
    buffer.insert_rows(Block(0, 3, source=Source([1, 2, 3])), np.array([5, 1, 3]))
    buffer.insert_rows(Block(3, 2, source=Source([4, 5])), np.array([2, 4]))
    rows = buffer.rows(buffer.head, buffer.end)
    assert rows.ts.tolist() == [1, 2, 3, 4, 5]  # held by timestamp
    table = rows.by_arrival().to_arrow()
    assert table.column("v").to_pylist() == [1, 2, 3, 4, 5] and table.column("v").num_chunks == 2
    buffer.insert_all([Event(6, 6, 5)])
    assert buffer.rows(buffer.head, buffer.end).by_arrival().to_arrow() is None  # an event block: no table
    assert buffer.rows(buffer.head, buffer.end).by_arrival().values() == [1, 2, 3, 4, 5, 6]


def test_a_block_whose_rows_all_expired_is_let_go():
    buffer = BlockBuffer(ts_seq_key)
    buffer.insert_rows(Block(0, 2, source=Source([1, 2])), np.array([1, 2]))
    buffer.insert_rows(Block(2, 2, source=Source([3, 4])), np.array([1, 9]))
    gone = Expired()
    buffer.pop_front_while_ts_at_most(2, gone)
    assert sorted(buffer.index.blocks) == [2]  # the first block is gone, the second keeps one row
    assert gone.values_by_arrival() == [1, 2, 3]  # expired rows stay readable through their own index
    assert gone.seqs().tolist() == [0, 2, 1]


def test_events_added_one_at_a_time_make_one_block():
    buffer = BlockBuffer(ts_seq_key)
    for seq in range(5_000):
        buffer.insert(Event(seq, 5_000 - seq, seq))
        if seq % 100 == 0:
            assert len(buffer) == seq + 1 and buffer.first_key() == (5_000 - seq, seq)  # a read merges them
    assert len(buffer.index) == 1
    assert buffer.rows(buffer.head, buffer.end).by_arrival().values() == list(range(5_000))


def test_events_after_a_block_whose_front_expired_make_a_new_block():
    # A window fed tuples (a bolt's stream): each batch continues the last block of events; once that block's
    # front expired it takes no more, so it goes with its last row instead of growing for good.
    buffer, gone = BlockBuffer(ts_seq_key), Expired()
    seq = 0
    for ts in range(200):
        buffer.insert_all([Event(seq + i, ts, seq + i) for i in range(100)])
        seq += 100
        buffer.pop_front_while_ts_at_most(ts - 2, gone)
        held = sum(len(block.events) for block in buffer.index.blocks.values())
        assert len(buffer) == min(seq, 200) and held <= 500  # a block stops growing when its front goes
    assert buffer.rows(buffer.head, buffer.end).by_arrival().values() == list(range(seq - 200, seq))


def test_a_mostly_expired_large_block_keeps_a_copy_of_its_live_rows():
    n = 200_000
    buffer, gone = BlockBuffer(ts_seq_key), Expired()
    stamps = np.arange(n, dtype=np.int64) % 1000  # rows of one timestamp far apart: the live rows are not a run
    buffer.insert_rows(Block(0, n, source=Source(list(range(n)))), stamps)
    buffer.insert_rows(Block(n, 2, source=Source([-1, -2])), np.array([0, 5000]))
    buffer.pop_front_while_ts_at_most(989, gone)  # 990 of 1000 timestamps: 2,000 rows left of the first block
    first = buffer.index.blocks[0]
    buffer.compact_blocks()
    block = buffer.index.blocks[990]
    assert block is not first and block.size == block.live == 2_000 and block.source.table.num_rows == 2_000
    assert block.source.table.get_total_buffer_size() < 100_000  # a copy, not a slice of the whole table
    live = sorted(v for v in range(n) if v % 1000 >= 990)
    rows = buffer.rows(buffer.head, buffer.end)
    assert rows.values_by_arrival() == [*live, -2]
    assert rows.table_by_arrival().column("v").to_pylist() == [*live, -2]
    assert [e.value for e in buffer] == [e.value for e in sorted(buffer, key=lambda e: (e.ts, e.seq))]
    assert len(gone.values_by_arrival()) == n - 2_000 + 1  # expired rows read the old block, still whole
    buffer.compact_blocks()
    assert buffer.index.blocks[990] is block  # all live now: nothing to do
    small = BlockBuffer(seq_key)  # a small table is left as it is, however few of its rows are live
    small.insert_rows(Block(0, 10, source=Source(list(range(10)))), np.zeros(10, np.int64))
    small.pop_front(9, Expired())
    small.compact_blocks()
    assert small.index.blocks[0].size == 10


def test_the_arrays_shrink_after_a_burst():
    buffer, seq = BlockBuffer(ts_seq_key), 0
    n = 200_000
    buffer.insert_rows(Block(0, n, source=Source(list(range(n)))), np.zeros(n, np.int64))
    seq += n
    assert len(buffer._ts) >= n
    buffer.pop_front_while_ts_at_most(0, Expired())
    for ts in range(1, 50):
        buffer.insert_rows(Block(seq, 10, source=Source(list(range(10)))), np.full(10, ts, np.int64))
        seq += 10
        buffer.pop_front_while_ts_at_most(ts - 1, Expired())
        assert len(buffer._ts) == len(buffer._seq) <= 4 * 1024
    assert [e.seq for e in buffer] == list(range(seq - 10, seq))
