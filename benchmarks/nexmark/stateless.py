"""q0 pass-through, q1 currency conversion, q2 selection: one Storm bolt over the bids, no state.

Nexmark's SQL (``q0.sql``-``q2.sql``)::

    q0: SELECT auction, bidder, price, dateTime, extra FROM bid
    q1: SELECT auction, bidder, 0.908 * price AS price, dateTime, extra FROM bid
    q2: SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0

squall: the bid view through the suite's spout (``NexmarkView``), then a columnar
``BaseBolt`` (``execute_table``) doing the query's work on each run of rows with
pyarrow.compute and emitting a table (``emit_table``), shuffled over the tasks.
q2's selection is the spout's ``where``, as a user filtering a spout writes it:
Spark evaluates it in the scan, and the bolt emits the rows that remain.
Spark: the same view, the same projection or filter, into a memory table. The
check compares the bags of rows. The euro price is a double in both (Spark
multiplies the price, cast to a double, by the double 0.908, as pyarrow does;
nexmark's SQL has a decimal).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from benchmarks.nexmark.query import Answer, NexmarkView, Query, ReadAnswer, copies, pane_rows, rows_of, run_to_end
from benchmarks.nexmark.views import Workload, events, millis, view
from squall import BaseBolt, Fields, TopologyBuilder

if TYPE_CHECKING:
    from squall import Output, Topology

BID_FIELDS = ("auction", "bidder", "price", "date_time", "extra")
DOLLARS_TO_EUROS = 0.908
SELECTED = "auction % 123 = 0"  # q2's predicate, Spark SQL in both engines


class PassThrough(BaseBolt):
    """q0: every bid as it is."""

    def execute_table(self, input):
        self.collector.emit_table(input.to_arrow())

    def declare_output_fields(self, declarer):
        declarer.declare(Fields(*BID_FIELDS))


class CurrencyConversion(BaseBolt):
    """q1: every bid with its price in euros."""

    def execute_table(self, input):
        bids = input.to_arrow()
        euros = pc.multiply(pc.cast(bids["price"], pa.float64()), DOLLARS_TO_EUROS)
        self.collector.emit_table(bids.set_column(bids.schema.get_field_index("price"), "price", euros))

    def declare_output_fields(self, declarer):
        declarer.declare(Fields(*BID_FIELDS))


class Selection(BaseBolt):
    """q2: the auction and price of the bids its spout selected (auctions whose id is a multiple of 123)."""

    def execute_table(self, input):
        self.collector.emit_table(input.to_arrow())

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("auction", "price"))


def _topology(bolt: type[BaseBolt], fields: Sequence[str], where: str | None = None):
    def build(workload: Workload) -> Topology:
        builder = TopologyBuilder()
        builder.set_spout("bids", NexmarkView(workload, "bid", fields, where=where))
        builder.set_bolt("query", bolt(), workload.tasks).shuffle_grouping("bids")
        return builder.create_topology()

    return build


def _bid_rows(outputs: Sequence[Output]) -> Answer:
    return copies((a, b, p, millis(t), e) for a, b, p, t, e in pane_rows(outputs, "query"))


def _spark_bids(price: str):
    def run(spark, workload: Workload) -> ReadAnswer:
        from pyspark.sql import functions as F

        bids = view(events(spark, workload), "bid", BID_FIELDS)
        table = run_to_end(bids.withColumn("price", F.expr(price)))
        return lambda: copies(rows_of(spark, table, ["auction", "bidder", "price", "unix_millis(date_time)", "extra"]))

    return run


def _spark_selection(spark, workload: Workload) -> ReadAnswer:
    bids = view(events(spark, workload), "bid", ("auction", "price"))
    table = run_to_end(bids.where(SELECTED))
    return lambda: copies(rows_of(spark, table, ["auction", "price"]))


Q0 = Query("q0", "pass-through", _topology(PassThrough, BID_FIELDS), _spark_bids("price"), _bid_rows,
           compared="every row")
Q1 = Query("q1", "currency conversion", _topology(CurrencyConversion, BID_FIELDS),
           _spark_bids(f"price * CAST({DOLLARS_TO_EUROS} AS DOUBLE)"), _bid_rows, compared="every row")
Q2 = Query("q2", "selection", _topology(Selection, ("auction", "price"), SELECTED), _spark_selection,
           lambda outputs: copies(tuple(v) for v in pane_rows(outputs, "query")), compared="every row")
