"""The Spark executor: a topology as one Structured Streaming query whose ``foreachBatch`` runs the bolts."""

from topologies.executor.batch_executor import BatchExecutor, BatchStats, DistributedExecutor, DriverExecutor
from topologies.executor.batch_layout import BatchLayout
from topologies.executor.batch_log import BatchClock, OutputLog
from topologies.executor.placements import PLACEMENTS, Placement
from topologies.executor.runtime import Output, Router, TopologyRuntime, run_task

__all__ = [
    "PLACEMENTS",
    "BatchClock",
    "BatchExecutor",
    "BatchLayout",
    "BatchStats",
    "DistributedExecutor",
    "DriverExecutor",
    "Output",
    "OutputLog",
    "Placement",
    "Router",
    "TopologyRuntime",
    "run_task",
]
