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
their auction wait in the accumulator); a Storm bolt turning each auction's
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
            acc[CATEGORY], acc[START], acc[EXPIRES] = tup["category"], millis(tup["date_time"]), millis(tup["expires"])
            waiting, acc[WAITING] = acc[WAITING], []
            for at, price in waiting:
                self._bid(acc, at, price)
        elif acc[START] is None:
            acc[WAITING].append([millis(tup["date_time"]), tup["price"]])
        else:
            self._bid(acc, millis(tup["date_time"]), tup["price"])
        return acc

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
