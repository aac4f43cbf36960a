"""q4 average price for a category: the mean winning price of the auctions of each category.

Nexmark's SQL (``q4.sql``)::

    SELECT Q.category, AVG(Q.final) FROM (
        SELECT MAX(B.price) AS final, A.category FROM auction A, bid B
        WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
        GROUP BY A.id, A.category) Q
    GROUP BY Q.category

Neither aggregation has a window, so the answer is the one at the end of input.
squall: a ``WindowedAggregateBolt`` per auction in ``GlobalWindows`` over both
the auctions and the bids, with a user aggregator keeping the auction's
category and interval and its highest bid within them (bids that come before
their auction wait in the accumulator), vectorised with ``add_groups`` as
docs/event-time.md shows a user's; a Storm bolt turning each auction's
pane into ``(category, final)``; ``WindowedAggregateBolt(mean("final"))`` per
category, in ``GlobalWindows`` too. Global windows fire at the end of a bounded
input. Spark cannot run this as a stream (an aggregation without windows in
append mode, then another), so its answer comes from the same SQL as a batch
query over the files; it is timed like the others. The check compares the mean
of each category (within a relative 1e-9).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from benchmarks.nexmark.query import Answer, NexmarkView, Query, ReadAnswer, pane_rows
from benchmarks.nexmark.views import Workload, batch_events, millis, view
from squall import BaseBolt, Fields, GlobalWindows, TopologyBuilder, WindowedAggregateBolt, aggregators

if TYPE_CHECKING:
    from squall import Output, Topology

CATEGORY, START, EXPIRES, FINAL, WAITING = range(5)


class WinningBid:
    """A user's aggregator over an auction and its bids: the highest price bid between its start and expiry.

    The accumulator is ``[category, start ms, expires ms, highest price, [[bid ms,
    price] of the bids that came before the auction]]``; both ends of the
    interval are in, as SQL's ``BETWEEN``. ``extract`` gives ``[category,
    highest price]``, or None for an auction that never came or had no bid in
    its interval.
    """

    def create(self) -> list[Any]:
        """No auction, no bid."""
        return [None, None, None, None, []]

    def add(self, acc: list[Any], tup: Any) -> list[Any]:
        """An auction sets the interval (and takes the bids that waited); a bid counts if it falls in it."""
        if tup.stream == "auctions":
            self._auction(acc, tup["category"], millis(tup["date_time"]), millis(tup["expires"]))
        elif acc[START] is None:
            acc[WAITING].append([millis(tup["date_time"]), tup["price"]])
        else:
            self._bid(acc, millis(tup["date_time"]), tup["price"])
        return acc

    def add_column(self, acc: list[Any], rows: pa.Table) -> list[Any]:
        """One auction's rows of a batch, as :meth:`add_groups` of one group."""
        return self.add_groups([acc], rows, np.zeros(rows.num_rows, np.int64))[0]

    def add_groups(self, accs: list[list[Any]], rows: pa.Table, groups: np.ndarray) -> list[list[Any]]:
        """Every auction's rows of a batch: what :meth:`add` of each row in order gives, bids on columns.

        A segment holds one stream's rows, told apart by their fields (an
        auction has ``expires``). Everything is read before an accumulator
        changes, so a row the columns cannot take (a null time) changes none.
        """
        if "expires" in rows.column_names:  # auctions: one row each, few
            auctions = zip(groups.tolist(), rows.column("category").to_pylist(),
                           _millis(rows.column("date_time")).tolist(), _millis(rows.column("expires")).tolist(),
                           strict=True)
            for group, category, start, expires in auctions:
                self._auction(accs[group], category, start, expires)
            return accs
        at, price = _millis(rows.column("date_time")), rows.column("price").to_numpy()
        known = np.array([acc[START] is not None for acc in accs], bool)
        start = np.array([acc[START] if acc[START] is not None else 0 for acc in accs], np.int64)[groups]
        expires = np.array([acc[EXPIRES] if acc[EXPIRES] is not None else -1 for acc in accs], np.int64)[groups]
        counted = known[groups] & (start <= at) & (at <= expires)
        lowest = np.iinfo(np.int64).min
        best = np.full(len(accs), lowest, np.int64)
        np.maximum.at(best, groups[counted], price[counted])
        for group, top in enumerate(best.tolist()):
            acc = accs[group]
            if top != lowest and (acc[FINAL] is None or top > acc[FINAL]):
                acc[FINAL] = top
        for row in np.flatnonzero(~known[groups]).tolist():  # bids before their auction wait, in order
            accs[groups[row]][WAITING].append([int(at[row]), int(price[row])])
        return accs

    def _auction(self, acc: list[Any], category: Any, start: int, expires: int) -> None:
        acc[CATEGORY], acc[START], acc[EXPIRES] = category, start, expires
        waiting, acc[WAITING] = acc[WAITING], []
        for at, price in waiting:
            self._bid(acc, at, price)

    @staticmethod
    def _bid(acc: list[Any], at: int, price: int) -> None:
        if acc[START] <= at <= acc[EXPIRES] and (acc[FINAL] is None or price > acc[FINAL]):
            acc[FINAL] = price

    def merge(self, accs: list[list[Any]]) -> list[Any]:
        """One accumulator with every part's auction and bids."""
        merged = self.create()
        for acc in accs:
            if acc[START] is not None:
                merged[CATEGORY], merged[START], merged[EXPIRES] = acc[CATEGORY], acc[START], acc[EXPIRES]
            merged[WAITING] += acc[WAITING]
            if acc[FINAL] is not None:
                merged[WAITING].append([acc[START], acc[FINAL]])  # in its interval by construction
        if merged[START] is not None:
            waiting, merged[WAITING] = merged[WAITING], []
            for at, price in waiting:
                self._bid(merged, at, price)
        return merged

    def extract(self, acc: list[Any]) -> list[Any] | None:
        """``[category, highest price]``, or None."""
        return None if acc[FINAL] is None else [acc[CATEGORY], acc[FINAL]]


def _millis(column: pa.ChunkedArray) -> np.ndarray:
    """Epoch milliseconds of a timestamp column, as :func:`millis` of each value (``ValueError`` on a null)."""
    if column.null_count:
        msg = "a null time"
        raise ValueError(msg)
    raw = column.cast(pa.int64()).to_numpy()
    unit = column.type.unit
    return raw * 1_000 if unit == "s" else raw // {"ms": 1, "us": 1_000, "ns": 1_000_000}[unit]


class FinalPrice(BaseBolt):
    """An auction's pane to ``(category, final)``, for auctions that had a winning bid."""

    def execute(self, input):
        if input["value"] is not None:
            self.collector.emit(input["value"])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("category", "final"))


def _topology(workload: Workload) -> Topology:
    winning = (WindowedAggregateBolt(WinningBid(), key_fields=("auction",)).with_windows(GlobalWindows())
               .with_timestamp_field("date_time"))
    average = WindowedAggregateBolt(aggregators.mean("final"), key_fields=("category",)).with_windows(GlobalWindows())
    builder = TopologyBuilder()
    builder.set_spout("auctions", NexmarkView(workload, "auction",
                                        ("id AS auction", "category", "date_time", "expires"), "auctions"))
    builder.set_spout("bids", NexmarkView(workload, "bid", ("auction", "price", "date_time"), "bids"))
    builder.set_bolt("winning", winning, workload.tasks) \
        .fields_grouping("auctions", Fields("auction"), stream_id="auctions") \
        .fields_grouping("bids", Fields("auction"), stream_id="bids")
    builder.set_bolt("final", FinalPrice(), workload.tasks).shuffle_grouping("winning")
    builder.set_bolt("query", average, workload.tasks).fields_grouping("final", Fields("category"))
    return builder.create_topology()


def _spark(spark, workload: Workload) -> ReadAnswer:
    events = batch_events(spark, workload)
    view(events, "auction", ("id", "category", "date_time", "expires")).createOrReplaceTempView("nexmark_auction")
    view(events, "bid", ("auction", "price", "date_time")).createOrReplaceTempView("nexmark_bid")
    rows = spark.sql("""
        SELECT Q.category, AVG(Q.final) AS average FROM (
            SELECT MAX(B.price) AS final, A.category FROM nexmark_auction A, nexmark_bid B
            WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
            GROUP BY A.id, A.category) Q
        GROUP BY Q.category""").collect()
    return lambda: {row["category"]: row["average"] for row in rows}


def _answer(outputs: Sequence[Output]) -> Answer:
    return {category: value for category, _, _, value, *_ in pane_rows(outputs, "query")}


Q4 = Query("q4", "average price for a category", _topology, _spark, _answer, spark_form="batch",
           compared="every category")
