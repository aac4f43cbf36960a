"""Where a topology's terminal streams go: sinks behind one protocol (:mod:`topologies.sinks.base`).

:class:`TableSink` writes a stream with Spark's ``DataFrameWriter`` (a path or
a catalog table, any format: each batch exactly once for file formats and
Delta, at least once for the others), :class:`KafkaSink` to a Kafka topic
(exactly once for ``read_committed`` readers). Give them as ``SparkRunner(sinks=[...])``.
"""

from topologies.sinks.base import OutputBatch, Sink
from topologies.sinks.kafka_sink import KafkaSink
from topologies.sinks.records import Output, record_line
from topologies.sinks.table_sink import TableSink

__all__ = ["KafkaSink", "Output", "OutputBatch", "Sink", "TableSink", "record_line"]
