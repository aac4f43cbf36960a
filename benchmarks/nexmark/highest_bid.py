"""q7 highest bid: the bids with the highest price in each 10 s tumbling window.

Nexmark's SQL (``q7.sql``) takes the largest price per window and joins the
bids back on it: every bid of the window with that price (ties included).

squall: one unkeyed ``WindowedAggregateBolt`` with ``FixedWindows`` and a user
aggregator keeping the largest price and the bids that have it (squall has no
max-by aggregator keeping ties), ``with_spark_semantics()``. Spark: the
windowed ``max(price)`` joined, in the same streaming query, with the bids on
the price and the window's bounds. The check compares, per window, the bids
with the largest price (a bid as ``auction, bidder, price, date_time, extra``).
A bid exactly at a window's end belongs to the next window, as in Beam's
Query7 (nexmark's SQL also joins it with the window it ends).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from benchmarks.nexmark.query import Answer, NexmarkView, Query, ReadAnswer, pane_rows, rows_of, run_to_end
from benchmarks.nexmark.views import Workload, events, millis, view
from squall import Duration, FixedWindows, TopologyBuilder, WindowedAggregateBolt

if TYPE_CHECKING:
    from squall import Output, Topology

BID_FIELDS = ("auction", "bidder", "price", "date_time", "extra")
WINDOW = Duration.seconds(10)


class HighestBids:
    """A user's aggregator: the largest price of a window's bids and every bid with it.

    The accumulator is ``[largest price, [[auction, bidder, price, date_time, extra], ...]]``.
    Written tuple by tuple (``create/add/merge/extract``), as docs/event-time.md
    describes aggregators; squall's ready ones have no max-by keeping ties.
    """

    def create(self) -> list[Any]:
        """No bid yet."""
        return [None, []]

    def add(self, acc: list[Any], tup: Any) -> list[Any]:
        """Keep the bid if its price is the largest so far (alone if larger)."""
        price = tup["price"]
        if acc[0] is None or price > acc[0]:
            return [price, [list(tup.values)]]
        if price == acc[0]:
            acc[1].append(list(tup.values))
        return acc

    def merge(self, accs: list[list[Any]]) -> list[Any]:
        """The largest price of all and every bid that has it."""
        top = max((acc[0] for acc in accs if acc[0] is not None), default=None)
        return [top, [bid for acc in accs if acc[0] == top for bid in acc[1]]]

    def extract(self, acc: list[Any]) -> list[list[Any]]:
        """The bids with the largest price."""
        return [list(bid) for bid in acc[1]]


def _topology(workload: Workload) -> Topology:
    highest = (WindowedAggregateBolt(HighestBids()).with_windows(FixedWindows(WINDOW))
               .with_timestamp_field("date_time").with_lag(Duration(workload.lag_ms)).with_spark_semantics())
    builder = TopologyBuilder()
    builder.set_spout("bids", NexmarkView(workload, "bid", BID_FIELDS))
    builder.set_bolt("query", highest).global_grouping("bids")
    return builder.create_topology()


def _spark(spark, workload: Workload) -> ReadAnswer:
    from pyspark.sql import functions as F

    bids = view(events(spark, workload), "bid", BID_FIELDS).withWatermark("date_time", workload.lag)
    highest = (view(events(spark, workload), "bid", ("price AS top", "date_time AS top_time"))
               .withWatermark("top_time", workload.lag).groupBy(F.window("top_time", "10 seconds"))
               .agg(F.max("top").alias("top")).select("window.start", "window.end", "top"))
    joined = bids.join(highest, (bids.price == highest.top) & (bids.date_time >= highest.start)
                       & (bids.date_time < highest.end))
    table = run_to_end(joined)
    columns = ["unix_millis(start)", "unix_millis(end)", "auction", "bidder", "price", "unix_millis(date_time)",
               "extra"]

    def answer() -> Answer:
        windows: dict[tuple[int, int], list[list[Any]]] = {}
        for start, end, *bid in rows_of(spark, table, columns):
            windows.setdefault((start, end), []).append(bid)
        return {window: sorted(bids) for window, bids in windows.items()}

    return answer


def _answer(outputs: Sequence[Output]) -> Answer:
    return {(start, end): sorted([a, b, p, millis(t), e] for a, b, p, t, e in bids)
            for _, start, end, bids, *_ in pane_rows(outputs, "query")}


Q7 = Query("q7", "highest bid", _topology, _spark, _answer, spark_form="streaming (aggregation joined with the bids)",
           compared="every window", gaps=("no max-by aggregator keeping ties: a user aggregator, tuple by tuple",))
