"""Hands each batch's outputs to every sink: :class:`SinkDelivery` and the batch held in memory.

The batch loop calls :meth:`SinkDelivery.write` with the
:class:`~topologies.sinks.base.OutputBatch` its placement made, once per batch
(and per flush) before the batch goes back to Spark: the driver placement's
:class:`HeldOutputs` (the outputs are in this process), the distributed
placement's with the kept streams on the executors. The sinks are the
runner's (``SparkRunner(sinks=...)``) then the run's own (the outputs in
memory, ``output_dir``, ``on_output``, and under Spark Connect the files the
client reads). Before a sink sees a stream, its newly inferred types are
committed to the store (:class:`~topologies.engine.delivery.output_types.OutputTypes`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from topologies.sinks.base import FLUSH_PARTITION
from topologies.sinks.output_rows import OutputRows, as_output_rows
from topologies.sinks.records import FINAL, Output, OutputKey
from topologies.sinks.typed_outputs import schema_ddl

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from topologies.engine.delivery.output_types import OutputTypes
    from topologies.sinks.base import OutputBatch, Sink


def arrow_frame(spark: SparkSession, table: pa.Table) -> DataFrame:
    """``table`` as a DataFrame of ``spark`` with the column types the stages give (``timestamp_ntz`` stays so)."""
    ddl = schema_ddl((f.name, f.type) for f in table.schema)
    return spark.createDataFrame(table if table.num_rows else [], ddl)


def batch_column(key: OutputKey) -> int:
    """The ``batch_id`` value of batch ``key``'s rows: the id, or :data:`FLUSH_PARTITION` for the flush."""
    return key if isinstance(key, int) else FLUSH_PARTITION


class SinkDelivery:
    """Every sink of a run, written in order, with the typed streams' types; ``spark``: the session they write with.

    ``kept``: the streams a sink reads as DataFrames, which distributed mode
    keeps on the executors.
    """

    def __init__(self, sinks: Sequence[Sink], types: OutputTypes, spark: SparkSession | None = None) -> None:
        self.sinks = list(sinks)
        self.types = types
        self.spark = spark
        self.kept = frozenset(s for sink in self.sinks if sink.keeps_on_executors for s in (sink.streams or ()))

    def read(self, outputs: Collection[str]) -> frozenset[str]:
        """Which of the ``outputs`` streams (``"component:stream"``) some sink reads: the others go nowhere."""
        if any(sink.streams is None for sink in self.sinks):
            return frozenset(outputs)
        return frozenset(outputs).intersection(s for sink in self.sinks for s in sink.streams or ())

    def write(self, batch: OutputBatch) -> None:
        """Give ``batch`` to every sink, in the order the runner was given them."""
        for sink in self.sinks:
            sink.write(batch)

    def held(self, key: OutputKey, outputs: Sequence[Output]) -> HeldOutputs:
        """A batch whose outputs are all in this process."""
        return HeldOutputs(key, outputs, self)

    def session(self) -> SparkSession:
        """The session to write with (the active one when none was given)."""
        if self.spark is None:
            from pyspark.sql import SparkSession

            active = SparkSession.getActiveSession()
            if active is None:
                msg = "sinks: no Spark session to write with"
                raise RuntimeError(msg)
            self.spark = active
        return self.spark


class HeldOutputs:
    """An :class:`~topologies.sinks.base.OutputBatch` of outputs held in this process."""

    def __init__(self, key: OutputKey, outputs: Sequence[Output], delivery: SinkDelivery) -> None:
        self.key = key
        self.batch_id = batch_column(key)
        self.outputs = as_output_rows(outputs)
        self.delivery = delivery

    @property
    def spark(self) -> SparkSession:  # type: ignore[override]
        """The session the sinks write with."""
        return self.delivery.session()

    def records(self, streams: Collection[str] | None = None) -> OutputRows:
        """The outputs of ``streams`` (all when None), in emission order (a table's built when first read)."""
        return self.outputs if streams is None else self.outputs.of_streams(streams)

    def has_rows(self, stream: str) -> bool:
        """Whether ``stream`` has outputs in this batch."""
        return bool(len(self.outputs.of_streams((stream,))))

    def table(self, stream: str) -> pa.Table:
        """``stream``'s rows with typed columns; new inferred types are committed first.

        A batch without rows of the stream pins nothing: its (empty) table has
        the types known so far, unknown ones as ``string``.
        """
        types = self.delivery.types
        columns = types.of(stream)
        rows = [o.values for o in self.records((stream,))]
        if rows:
            columns.observe(rows)
            columns.settle()
            types.save([stream])
        return columns.table(rows)

    def dataframe(self, stream: str) -> DataFrame:
        """:meth:`table` as a DataFrame of this batch's session."""
        return arrow_frame(self.spark, self.table(stream))


__all__ = ["FINAL", "HeldOutputs", "SinkDelivery", "batch_column"]
