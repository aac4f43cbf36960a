"""Sinks for a topology's outputs, used as ``SparkRunner(on_output=...)``: Kafka topics."""

from topologies.sinks.kafka_sink import KafkaSink

__all__ = ["KafkaSink"]
