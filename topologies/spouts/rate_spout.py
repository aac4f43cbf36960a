"""Tuples from Spark's ``rate`` source: a counter at a fixed rate, for demos and load tests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bolts.tuples import DEFAULT_STREAM
from topologies.spouts.base import Spout

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


class RateSpout(Spout):
    """Emits ``rows_per_second`` tuples ``(ts, value)`` a second from Spark's rate source.

    ``ts`` is the row's generation time in epoch milliseconds (an int, ready for
    ``with_timestamp_field("ts")``) and ``value`` counts from 0. The rate source is
    unbounded: it cannot run with ``available_now``.
    """

    supports_available_now = False

    def __init__(self, rows_per_second: int = 1, *, num_partitions: int = 1, stream: str = DEFAULT_STREAM) -> None:
        super().__init__(("ts", "value"), stream)
        for name, value in (("rows_per_second", rows_per_second), ("num_partitions", num_partitions)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                msg = f"RateSpout: `{name}` must be a positive int; got {value!r} instead"
                raise ValueError(msg)
        self.rows_per_second = rows_per_second
        self.num_partitions = num_partitions

    def dataframe(self, spark: SparkSession) -> DataFrame:
        """The rate source with ``ts`` in milliseconds."""
        from pyspark.sql import functions as F

        df = (
            spark.readStream.format("rate")
            .option("rowsPerSecond", self.rows_per_second)
            .option("numPartitions", self.num_partitions)
            .load()
        )
        return df.select(F.unix_millis("timestamp").alias("ts"), F.col("value"))
