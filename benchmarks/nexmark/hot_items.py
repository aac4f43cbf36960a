"""q5 hot items: the auctions with the most bids in each sliding window (10 s, every 2 s).

Nexmark's SQL (``q5.sql``) counts the bids per auction and HOP window, takes
the largest count per window, and joins back: every auction whose count is that
largest one.

squall: ``WindowedAggregateBolt(count())`` per auction with ``SlidingWindows``,
then a second, unkeyed ``WindowedAggregateBolt`` re-aggregating its panes in
their own windows (no ``with_windows``) with
``aggregators.top_k("value", 1, ties="all")``: the panes with the largest count,
ties kept. Both run ``with_spark_semantics()``; the second needs the panes'
``timestamp`` as its event time.

Spark: the same two aggregations chained in one streaming query (the second
groups the first's rows by ``window(window_time(window), "2 seconds")``, which
holds exactly one of the first's windows, since they end on a multiple of 2 s),
collecting ``(auction, count)`` and keeping those with the largest count. The
check compares, per window, the largest count and its auctions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchmarks.nexmark.query import Answer, NexmarkView, Query, ReadAnswer, pane_rows, rows_of, run_to_end
from benchmarks.nexmark.views import Workload, events, view
from squall import Duration, Fields, SlidingWindows, TopologyBuilder, WindowedAggregateBolt, aggregators

if TYPE_CHECKING:
    from squall import Output, Topology

SIZE, PERIOD = Duration.seconds(10), Duration.seconds(2)


def _topology(workload: Workload) -> Topology:
    counts = (WindowedAggregateBolt(aggregators.count(), key_fields=("auction",))
              .with_windows(SlidingWindows(SIZE, PERIOD)).with_timestamp_field("date_time")
              .with_lag(Duration(workload.lag_ms)).with_spark_semantics())
    most = aggregators.top_k("value", 1, ties="all", value=["key", "value"])  # a count pane's auction and count
    hottest = WindowedAggregateBolt(most).with_timestamp_field("timestamp").with_spark_semantics()
    builder = TopologyBuilder()
    builder.set_spout("bids", NexmarkView(workload, "bid", ("auction", "date_time")))
    builder.set_bolt("counts", counts, workload.tasks).fields_grouping("bids", Fields("auction"))
    builder.set_bolt("query", hottest).global_grouping("counts")
    return builder.create_topology()


def _spark(spark, workload: Workload) -> ReadAnswer:
    from pyspark.sql import functions as F

    bids = view(events(spark, workload), "bid", ("auction", "date_time")).withWatermark("date_time", workload.lag)
    counts = bids.groupBy(F.window("date_time", "10 seconds", "2 seconds"), "auction").agg(F.count("*").alias("num"))
    per_window = (counts.groupBy(F.window(F.window_time("window"), "2 seconds").alias("slot"))
                  .agg(F.max("num").alias("maxn"), F.collect_list(F.struct("auction", "num")).alias("all")))
    hot = per_window.select(
        "slot", "maxn", F.filter("all", lambda b: b["num"] == F.col("maxn"))["auction"].alias("auctions"))
    table = run_to_end(hot)
    columns = ["unix_millis(slot.end) - 10000", "unix_millis(slot.end)", "maxn", "array_sort(auctions)"]
    return lambda: {(start, end): [maxn, list(auctions)]
                    for start, end, maxn, auctions in rows_of(spark, table, columns)}


def _answer(outputs: Sequence[Output]) -> Answer:
    return {(start, end): [panes[0]["value"], sorted(pane["key"] for pane in panes)]
            for _, start, end, panes, *_ in pane_rows(outputs, "query")}


Q5 = Query("q5", "hot items", _topology, _spark, _answer, spark_form="streaming (two chained aggregations)",
           compared="every window")
