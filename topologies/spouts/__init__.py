"""Spouts over Spark sources: files, the rate source, and any streaming DataFrame."""

from topologies.spouts.base import Spout
from topologies.spouts.dataframe_spout import DataFrameSpout
from topologies.spouts.file_spout import FileSpout
from topologies.spouts.rate_spout import RateSpout

__all__ = ["DataFrameSpout", "FileSpout", "RateSpout", "Spout"]
