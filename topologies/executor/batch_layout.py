"""One streaming DataFrame for all spouts, and the way back from an Arrow batch to rows per spout.

Each spout's fields (then its side columns, such as a file spout's corrupt
records) become columns ``__s<i>_<j>`` next to a column ``__squall_spout``
holding the spout's number; the spouts are unioned by name (missing columns are
null). An optional heartbeat source (Spark's ``rate-micro-batch``, one row per
trigger, spout number -1) keeps batches coming while the input is idle, so
processing time moves; its rows never reach a bolt.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from topologies.topology import Topology

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

SPOUT_COLUMN = "__squall_spout"
HEARTBEAT = -1


@dataclass(frozen=True)
class SpoutStreams:
    """A spout's rows of one batch on more than one stream (its tuples and its malformed records), by stream."""

    tables: Mapping[str, pa.Table]

    def __len__(self) -> int:
        return sum(t.num_rows for t in self.tables.values())


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

    def decode(self, table: pa.Table) -> dict[str, pa.Table | SpoutStreams]:
        """Each spout's rows in ``table`` as a table of its own (one column per field, named as the field).

        Rows keep their order; heartbeat rows are dropped, and a spout with no rows is left out.
        A spout's :meth:`Spout.split` cuts its rows by stream: a spout whose rows
        all go to its own stream gets one table, one with rows on more streams
        (malformed records on its error stream) gets :class:`SpoutStreams`.
        Bad input the spout refuses (``FileSpout(mode="FAILFAST")``) raises here, failing the batch.
        """
        import pyarrow.compute as pc

        tables: dict[str, pa.Table | SpoutStreams] = {}
        if table.num_rows == 0:
            return tables
        spout_col = table.column(SPOUT_COLUMN)
        for i, sid in enumerate(self.spouts):
            part = table.filter(pc.equal(spout_col, i))
            if part.num_rows:
                names = self.columns[sid]
                columns = [self.column(i, j) for j in range(len(names))]
                spout = self.topology.spouts[sid].spout
                streams = spout.split(part.select(columns).rename_columns(list(names)), sid)
                only = streams.get(spout.stream) if len(streams) == 1 else None
                tables[sid] = only if only is not None else SpoutStreams(streams)
        return tables
