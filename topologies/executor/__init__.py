"""The Spark executor: a topology as one Structured Streaming query whose ``foreachBatch`` runs the bolts."""

from topologies.executor.batch_layout import BatchLayout
from topologies.executor.batch_log import BatchClock, OutputLog
from topologies.executor.distributed import DistributedExecutor
from topologies.executor.driver import BatchStats, DriverExecutor
from topologies.executor.runtime import Output, Router, TopologyRuntime, run_task

__all__ = [
    "BatchClock",
    "BatchLayout",
    "BatchStats",
    "DistributedExecutor",
    "DriverExecutor",
    "Output",
    "OutputLog",
    "Router",
    "TopologyRuntime",
    "run_task",
]
