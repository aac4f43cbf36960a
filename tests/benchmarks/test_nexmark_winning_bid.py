"""q4's user aggregator: ``add_groups`` on columns gives what ``add`` of each auction and bid in order gives."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.nexmark.winning_bids import WinningBid
from bolts import Fields, TaskOptions, Tuple, make_task
from bolts.task_input import TaskInput
from squall import GlobalWindows, WindowedAggregateBolt

AUCTION_FIELDS = Fields("auction", "category", "date_time", "expires")
BID_FIELDS = Fields("auction", "price", "date_time")
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
TS = pa.timestamp("us", tz="UTC")


def at(ms: int) -> datetime:
    return EPOCH + timedelta(milliseconds=ms)


# Few instants, so bids fall on an auction's start and expiry often (both are in its interval).
auction = st.tuples(st.just("auctions"), st.integers(0, 4), st.integers(10, 12), st.integers(0, 8),
                    st.integers(0, 4))
bid = st.tuples(st.just("bids"), st.integers(0, 4), st.integers(1, 100), st.integers(0, 12))
# Segments of one stream each, as spouts deliver them.
segment = st.one_of(st.lists(auction, min_size=1, max_size=4, unique_by=lambda a: a[1]),
                    st.lists(bid, min_size=1, max_size=12))


def task_of(bolt):
    out: list = []
    task = make_task(copy.deepcopy(bolt), TaskOptions("winning", (("auctions", "auctions"), ("bids", "bids"))))
    task.prepare({}, lambda stream, values: out.append(values))
    return task, out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(segment, max_size=3), min_size=1, max_size=4))
def test_bids_on_columns_give_the_winning_price_of_one_by_one(batches):
    bolt = (WindowedAggregateBolt(WinningBid(), key_fields=("auction",)).with_windows(GlobalWindows())
            .with_timestamp_field("date_time"))
    columnar, columnar_out = task_of(bolt)
    per_tuple, per_tuple_out = task_of(bolt)
    assert columnar._columnar
    seen: set[int] = set()
    for b, segments in enumerate(batches):
        as_columns, tuples = TaskInput(), []
        for rows in segments:
            if rows[0][0] == "auctions":
                rows = [r for r in rows if r[1] not in seen]  # an auction comes once
                seen.update(r[1] for r in rows)
                if not rows:
                    continue
                values = [[r[1], r[2], at(r[3]), at(r[3] + r[4])] for r in rows]
                fields, stream = AUCTION_FIELDS, "auctions"
                table = pa.table({"auction": [v[0] for v in values], "category": [v[1] for v in values],
                                  "date_time": pa.array([v[2] for v in values], TS),
                                  "expires": pa.array([v[3] for v in values], TS)})
            else:
                values = [[r[1], r[2], at(r[3])] for r in rows]
                fields, stream = BID_FIELDS, "bids"
                table = pa.table({"auction": [v[0] for v in values], "price": [v[1] for v in values],
                                  "date_time": pa.array([v[2] for v in values], TS)})
            as_columns.append_table(stream, 0, stream, fields, table)
            tuples += [Tuple(v, fields, stream, stream, 0) for v in values]
        for task, given_input in ((columnar, as_columns), (per_tuple, None)):
            task.advance_to(1_000 * (b + 1))
            if given_input is not None:
                task.execute_batch(given_input)
            else:
                for tup in tuples:
                    task.execute(tup)
            task.end_batch()
        assert columnar.snapshot() == per_tuple.snapshot(), f"batch {b}"
    columnar.close()
    per_tuple.close()
    assert columnar_out == per_tuple_out


def test_a_null_time_changes_no_accumulator_and_is_refused():
    accs = [[None, 0, 10, None, []]]
    rows = pa.table({"auction": [1], "price": [5], "date_time": pa.array([None], TS)})
    before = copy.deepcopy(accs)
    try:
        WinningBid().add_groups(accs, rows, np.zeros(1, np.int64))
    except ValueError:
        pass
    else:
        raise AssertionError("a null time was taken")
    assert accs == before
