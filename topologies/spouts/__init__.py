"""Spouts over Spark sources: files, Kafka topics, the rate source, a supplier function, any streaming DataFrame."""

from topologies.spouts.base import Spout
from topologies.spouts.dataframe_spout import DataFrameSpout
from topologies.spouts.file_spout import FileSpout
from topologies.spouts.kafka_connector import connector_jars
from topologies.spouts.kafka_spout import KafkaSpout
from topologies.spouts.lambda_spout import LambdaSpout
from topologies.spouts.malformed import MalformedRecordError
from topologies.spouts.rate_spout import RateSpout

__all__ = [
    "DataFrameSpout",
    "FileSpout",
    "KafkaSpout",
    "LambdaSpout",
    "MalformedRecordError",
    "RateSpout",
    "Spout",
    "connector_jars",
]
