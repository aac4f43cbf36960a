"""Topologies: building them, running them on Spark, and testing bolts locally."""

from bolts.tuples import Fields
from topologies.builder import BoltDeclarer, TopologyBuilder
from topologies.executor import Output
from topologies.groupings import AllGrouping, FieldsGrouping, GlobalGrouping, Grouping, ShuffleGrouping
from topologies.runner import Progress, SparkRunner, TopologyHandle
from topologies.spouts import DataFrameSpout, FileSpout, KafkaSpout, RateSpout, Spout
from topologies.topology import Topology

__all__ = [
    "AllGrouping",
    "BoltDeclarer",
    "DataFrameSpout",
    "Fields",
    "FieldsGrouping",
    "FileSpout",
    "GlobalGrouping",
    "Grouping",
    "KafkaSpout",
    "Output",
    "Progress",
    "RateSpout",
    "ShuffleGrouping",
    "SparkRunner",
    "Spout",
    "Topology",
    "TopologyBuilder",
    "TopologyHandle",
]
