"""q7 highest bid: the bids with the highest price in each 10 s tumbling window.

Nexmark's SQL (``q7.sql``) takes the largest price per window and joins the
bids back on it: every bid of the window with that price (ties included).

squall: one unkeyed ``WindowedAggregateBolt`` with ``FixedWindows`` and
``aggregators.top_k("price", 1, ties="all")`` (the bids with the largest price,
ties kept), ``with_spark_semantics()``. Spark: the
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
from squall import Duration, FixedWindows, TopologyBuilder, WindowedAggregateBolt, aggregators

if TYPE_CHECKING:
    from squall import Output, Topology

BID_FIELDS = ("auction", "bidder", "price", "date_time", "extra")
WINDOW = Duration.seconds(10)


def _topology(workload: Workload) -> Topology:
    highest = (WindowedAggregateBolt(aggregators.top_k("price", 1, ties="all", value=list(BID_FIELDS)))
               .with_windows(FixedWindows(WINDOW)).with_timestamp_field("date_time")
               .with_lag(Duration(workload.lag_ms)).with_spark_semantics())
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
    return {(start, end): sorted([bid["auction"], bid["bidder"], bid["price"], millis(bid["date_time"]), bid["extra"]]
                                 for bid in bids)
            for _, start, end, bids, *_ in pane_rows(outputs, "query")}


Q7 = Query("q7", "highest bid", _topology, _spark, _answer, spark_form="streaming (aggregation joined with the bids)",
           compared="every window")
