"""Topologies: building them, running them on Spark, and testing bolts locally."""

from bolts.tuples import Fields
from topologies.builder import BoltDeclarer, TopologyBuilder
from topologies.config import Config
from topologies.groupings import (
    AllGrouping,
    CustomStreamGrouping,
    DirectGrouping,
    FieldsGrouping,
    GlobalGrouping,
    Grouping,
    LocalOrShuffleGrouping,
    NoneGrouping,
    PartialKeyGrouping,
    ShuffleGrouping,
)
from topologies.runner import Progress, SparkRunner, TopologyHandle
from topologies.sinks.records import Output
from topologies.spouts import DataFrameSpout, FileSpout, KafkaSpout, LambdaSpout, RateSpout, Spout
from topologies.topology import Topology

__all__ = [
    "AllGrouping",
    "BoltDeclarer",
    "Config",
    "CustomStreamGrouping",
    "DataFrameSpout",
    "DirectGrouping",
    "Fields",
    "FieldsGrouping",
    "FileSpout",
    "GlobalGrouping",
    "Grouping",
    "KafkaSpout",
    "LambdaSpout",
    "LocalOrShuffleGrouping",
    "NoneGrouping",
    "Output",
    "PartialKeyGrouping",
    "Progress",
    "RateSpout",
    "ShuffleGrouping",
    "SparkRunner",
    "Spout",
    "Topology",
    "TopologyBuilder",
    "TopologyHandle",
]
