"""q11 user sessions and q12 processing-time windows: bids counted per bidder.

Nexmark's SQL (``q11.sql``, ``q12.sql``)::

    q11: SELECT bidder, count(*), SESSION_START(dateTime, 10 s), SESSION_END(dateTime, 10 s)
         FROM bid GROUP BY bidder, SESSION(dateTime, INTERVAL '10' SECOND)
    q12: SELECT bidder, count(*), window_start, window_end
         FROM TUMBLE(bid + PROCTIME() AS p_time, p_time, 10 s) GROUP BY bidder, window_start, window_end

q11 in squall: ``WindowedAggregateBolt(count())`` per bidder with
``Sessions(10 s)`` and ``with_spark_semantics()`` (sessions that touch merge,
as Spark's do); in Spark: ``groupBy(session_window(date_time, "10 seconds"),
bidder).count()`` in append mode. The check compares every session of every
bidder.

q12 in squall: ``WindowedAggregateBolt(count())`` per bidder with
``FixedWindows(10 s)`` and no timestamp field, so a tuple's time is when its
batch arrived (ingress time); in Spark: ``window(current_timestamp(), "10
seconds")`` in update mode (Spark has no append mode without a watermark), the
last update of each window being its count. Processing time differs from run
to run and between the engines, so the windows cannot be compared one by one:
the check compares each bidder's total over all windows, and so that every bid
was counted once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchmarks.nexmark.query import Answer, NexmarkView, Query, ReadAnswer, pane_rows, rows_of, run_to_end
from benchmarks.nexmark.views import Workload, events, view
from squall import Duration, Fields, FixedWindows, Sessions, TopologyBuilder, WindowedAggregateBolt, aggregators

if TYPE_CHECKING:
    from squall import Output, Topology

GAP = WINDOW = Duration.seconds(10)


def _per_bidder(workload: Workload, counts: WindowedAggregateBolt, fields: tuple[str, ...]) -> Topology:
    """The bids (``fields`` of them) into ``counts``, fields-grouped on the bidder."""
    builder = TopologyBuilder()
    builder.set_spout("bids", NexmarkView(workload, "bid", fields))
    builder.set_bolt("query", counts, workload.tasks).fields_grouping("bids", Fields("bidder"))
    return builder.create_topology()


def _q11_topology(workload: Workload) -> Topology:
    counts = (WindowedAggregateBolt(aggregators.count(), key_fields=("bidder",)).with_windows(Sessions(GAP))
              .with_timestamp_field("date_time").with_lag(Duration(workload.lag_ms)).with_spark_semantics())
    return _per_bidder(workload, counts, ("bidder", "date_time"))


def _q11_spark(spark, workload: Workload) -> ReadAnswer:
    from pyspark.sql import functions as F

    bids = view(events(spark, workload), "bid", ("bidder", "date_time")).withWatermark("date_time", workload.lag)
    table = run_to_end(bids.groupBy(F.session_window("date_time", "10 seconds").alias("session"), "bidder")
                       .agg(F.count("*").alias("bids")))
    columns = ["bidder", "unix_millis(session.start)", "unix_millis(session.end)", "bids"]
    return lambda: {(bidder, start, end): n for bidder, start, end, n in rows_of(spark, table, columns)}


def _q11_answer(outputs: Sequence[Output]) -> Answer:
    return {(bidder, start, end): n for bidder, start, end, n, *_ in pane_rows(outputs, "query")}


def _q12_topology(workload: Workload) -> Topology:
    counts = WindowedAggregateBolt(aggregators.count(), key_fields=("bidder",)).with_windows(FixedWindows(WINDOW))
    return _per_bidder(workload, counts, ("bidder",))


def _q12_spark(spark, workload: Workload) -> ReadAnswer:
    from pyspark.sql import functions as F

    bids = view(events(spark, workload), "bid", ("bidder",)).withColumn("p_time", F.current_timestamp())
    table = run_to_end(bids.groupBy(F.window("p_time", "10 seconds"), "bidder").agg(F.count("*").alias("bids")),
                       output_mode="update")
    last_counts = f"SELECT bidder, window, max(bids) AS bids FROM {table} GROUP BY bidder, window"
    totals = f"SELECT bidder, sum(bids) FROM ({last_counts}) GROUP BY bidder"
    return lambda: dict(tuple(row) for row in spark.sql(totals).collect())


def _q12_answer(outputs: Sequence[Output]) -> Answer:
    totals: Counter[int] = Counter()
    for bidder, _, _, n, *_ in pane_rows(outputs, "query"):
        totals[bidder] += n
    return totals


Q11 = Query("q11", "user sessions", _q11_topology, _q11_spark, _q11_answer, compared="every session of every bidder")
Q12 = Query("q12", "processing-time windows", _q12_topology, _q12_spark, _q12_answer,
            spark_form="streaming (update mode)", compared="bids per bidder over all windows (processing time)")
