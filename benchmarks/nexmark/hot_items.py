"""q5 hot items: the auctions with the most bids in each sliding window (10 s, every 2 s).

Nexmark's SQL (``q5.sql``) counts the bids per auction and HOP window, takes
the largest count per window, and joins back: every auction whose count is that
largest one.

squall: ``WindowedAggregateBolt(count())`` per auction with ``SlidingWindows``,
then a second, unkeyed ``WindowedAggregateBolt`` re-aggregating its panes in
their own windows (no ``with_windows``) with a user aggregator keeping the
largest count and the auctions that have it (squall has no max-by aggregator
keeping ties). Both run ``with_spark_semantics()``; the second needs the
panes' ``timestamp`` as its event time.

Spark: the same two aggregations chained in one streaming query (the second
groups the first's rows by ``window(window_time(window), "2 seconds")``, which
holds exactly one of the first's windows, since they end on a multiple of 2 s),
collecting ``(auction, count)`` and keeping those with the largest count. The
check compares, per window, the largest count and its auctions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from benchmarks.nexmark.query import Answer, NexmarkView, Query, ReadAnswer, pane_rows, rows_of, run_to_end
from benchmarks.nexmark.views import Workload, events, view
from squall import Duration, Fields, SlidingWindows, TopologyBuilder, WindowedAggregateBolt, aggregators

if TYPE_CHECKING:
    from squall import Output, Topology

SIZE, PERIOD = Duration.seconds(10), Duration.seconds(2)


class MostBids:
    """A user's aggregator over q5's count panes: the largest count and the auctions with it.

    The accumulator is ``[largest count, [auctions with it]]``; it reads each
    pane's ``key`` (the auction) and ``value`` (its count). Written tuple by
    tuple (``create/add/merge/extract``), as docs/event-time.md describes
    aggregators; squall's ready ones have no max-by keeping ties.
    """

    def create(self) -> list[Any]:
        """No count yet."""
        return [0, []]

    def add(self, acc: list[Any], tup: Any) -> list[Any]:
        """Keep the pane's auction if its count is the largest so far (alone if larger)."""
        count, auction = tup["value"], tup["key"]
        if count > acc[0]:
            return [count, [auction]]
        if count == acc[0]:
            acc[1].append(auction)
        return acc

    def merge(self, accs: list[list[Any]]) -> list[Any]:
        """The largest count of all and every auction that has it."""
        top = max(acc[0] for acc in accs)
        return [top, [a for acc in accs if acc[0] == top for a in acc[1]]]

    def extract(self, acc: list[Any]) -> list[Any]:
        """``[largest count, sorted auctions]``."""
        return [acc[0], sorted(acc[1])]


def _topology(workload: Workload) -> Topology:
    counts = (WindowedAggregateBolt(aggregators.count(), key_fields=("auction",))
              .with_windows(SlidingWindows(SIZE, PERIOD)).with_timestamp_field("date_time")
              .with_lag(Duration(workload.lag_ms)).with_spark_semantics())
    hottest = WindowedAggregateBolt(MostBids()).with_timestamp_field("timestamp").with_spark_semantics()
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
    return {(start, end): value for _, start, end, value, *_ in pane_rows(outputs, "query")}


Q5 = Query("q5", "hot items", _topology, _spark, _answer, spark_form="streaming (two chained aggregations)",
           compared="every window", gaps=("no max-by aggregator keeping ties: a user aggregator, tuple by tuple",))
