"""One streaming DataFrame for all spouts, and the way back from an Arrow batch to rows per spout.

Each spout's fields (then its side columns, such as a file spout's corrupt
records) become columns ``__s<i>_<j>`` next to a column ``__squall_spout``
holding the spout's number; the spouts are unioned by name (missing columns are
null). An optional heartbeat source (Spark's ``rate-micro-batch``, one row per
trigger, spout number -1) keeps batches coming while the input is idle, so
processing time moves; its rows never reach a bolt.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from topologies.topology import Topology

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

SPOUT_COLUMN = "__squall_spout"
PARTITION_COLUMN = "__squall_partition"  # the Spark partition a row was read in (``spark_partition_id()``)
HEARTBEAT = -1


SpoutRows = dict[str, dict[str, "pa.Table"]]  # each spout's rows of a batch, by stream (its tuples, its malformed)


def partition_runs(table: pa.Table) -> list[tuple[int, pa.Table]]:
    """``table``'s runs of rows with one :data:`PARTITION_COLUMN` value, in order: ``(partition, rows)``."""
    import numpy as np

    numbers = table.column(PARTITION_COLUMN).to_numpy(zero_copy_only=False)
    bounds = [0, *(np.flatnonzero(numbers[1:] != numbers[:-1]) + 1).tolist(), len(numbers)]
    return [(int(numbers[a]), table.slice(a, b - a)) for a, b in itertools.pairwise(bounds) if b > a]


@dataclass(frozen=True)
class SpoutBatch:
    """A batch's spout rows per Spark partition: ``(partition, rows per spout and stream)`` in Spark's order."""

    parts: Sequence[tuple[int, SpoutRows]]


class BatchLayout:
    """The column layout of a topology's unioned spouts."""

    def __init__(self, topology: Topology) -> None:
        self.spouts = list(topology.spouts)
        self.topology = topology
        self.fields = {sid: topology.spouts[sid].spout.fields for sid in self.spouts}
        self.columns = {
            sid: [*self.fields[sid], *topology.spouts[sid].spout.side_columns()] for sid in self.spouts
        }

    def column(self, spout_index: int, field_index: int) -> str:
        """The column name of a spout's field."""
        return f"__s{spout_index}_{field_index}"

    def dataframe(self, spark: SparkSession, topology: Topology, heartbeat: bool) -> DataFrame:
        """All spouts unioned (plus the heartbeat when asked) into one streaming DataFrame."""
        from pyspark.sql import functions as F

        frames = []
        for i, sid in enumerate(self.spouts):
            df = topology.spouts[sid].spout.dataframe(spark)
            cols = [F.col(f"`{f}`").alias(self.column(i, j)) for j, f in enumerate(self.columns[sid])]
            frames.append(df.select(F.lit(i).alias(SPOUT_COLUMN), *cols))
        if heartbeat:
            beat = spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 1).load()
            frames.append(beat.select(F.lit(HEARTBEAT).alias(SPOUT_COLUMN)))
        combined = frames[0]
        for df in frames[1:]:
            combined = combined.unionByName(df, allowMissingColumns=True)
        return combined

    def with_partition(self, df: DataFrame) -> DataFrame:
        """``df`` with :data:`PARTITION_COLUMN`: each row's Spark partition, which shuffle groupings start from."""
        from pyspark.sql import functions as F

        return df.withColumn(PARTITION_COLUMN, F.spark_partition_id())

    def decode_partitions(self, table: pa.Table) -> SpoutBatch:
        """:meth:`decode` of each Spark partition's rows of ``table`` (in the order ``toArrow()`` gives them).

        ``table`` has :data:`PARTITION_COLUMN` (see :meth:`with_partition`); a
        table without it is one partition, number 0.
        """
        if PARTITION_COLUMN not in table.column_names:
            return SpoutBatch([(0, self.decode(table))])
        parts = []
        for partition, rows in partition_runs(table):
            decoded = self.decode(rows.drop_columns([PARTITION_COLUMN]))
            if decoded:
                parts.append((partition, decoded))
        return SpoutBatch(parts)

    def encode(self, spout_rows: Mapping[str, Sequence[Sequence[Any]] | pa.Table], partition: int = 0) -> pa.Table:
        """The layout's table of ``spout_rows`` (each spout's rows as value lists, or a table), read in ``partition``.

        The inverse of :meth:`decode` for spouts on one stream (side columns
        null: no malformed records); what a batch looks like when it did not
        come from Spark (tests, benchmarks). A spout's table has a column per field.
        """
        import pyarrow as pa

        tables = []
        for sid, rows in spout_rows.items():
            i = self.spouts.index(sid)
            names = list(self.fields[sid])
            if isinstance(rows, pa.Table):
                columns = {self.column(i, j): rows.column(name) for j, name in enumerate(names)}
            else:
                columns = {self.column(i, j): [row[j] for row in rows] for j in range(len(names))}
            for j in range(len(names), len(self.columns[sid])):  # side columns: nothing malformed
                columns[self.column(i, j)] = pa.nulls(len(rows))
            table = pa.table({SPOUT_COLUMN: pa.array([i] * len(rows), pa.int32()), **columns})
            tables.append(table)
        if not tables:
            return pa.table({SPOUT_COLUMN: pa.array([], pa.int32()), PARTITION_COLUMN: pa.array([], pa.int32())})
        combined = pa.concat_tables(tables, promote_options="default")
        return combined.append_column(PARTITION_COLUMN, pa.array([partition] * combined.num_rows, pa.int32()))

    def decode(self, table: pa.Table) -> SpoutRows:
        """Each spout's rows in ``table``, by stream: a table per stream, one column per field, named as the field.

        Rows keep their order; heartbeat rows are dropped, and a spout with no
        rows is left out. A spout's :meth:`Spout.split` cuts its rows by stream:
        its tuples on its own stream, malformed records on its error stream.
        Bad input the spout refuses (``FileSpout(mode="FAILFAST")``) raises
        here, failing the batch.
        """
        import pyarrow.compute as pc

        tables: SpoutRows = {}
        if table.num_rows == 0:
            return tables
        spout_col = table.column(SPOUT_COLUMN)
        for i, sid in enumerate(self.spouts):
            part = table.filter(pc.equal(spout_col, i))
            if part.num_rows:
                names = self.columns[sid]
                columns = [self.column(i, j) for j in range(len(names))]
                spout = self.topology.spouts[sid].spout
                tables[sid] = dict(spout.split(part.select(columns).rename_columns(list(names)), sid))
        return tables
