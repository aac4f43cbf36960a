"""Where a topology's tasks run: one stage engine per placement behind :class:`StageEngine`, chosen by name.

``driver`` (the embedded default) runs every task where ``foreachBatch`` runs;
``distributed`` runs each layer's tasks on Spark's executors. The runner and
the CLI take the names from :data:`PLACEMENTS`; adding a placement is a module
here and a line below.
"""

from __future__ import annotations

from topologies.engine.placements.base import LayerResult, StageEngine
from topologies.engine.placements.distributed import DistributedStages
from topologies.engine.placements.driver import DriverStages

PLACEMENTS: dict[str, type[StageEngine]] = {
    "driver": DriverStages,
    "distributed": DistributedStages,
}

__all__ = ["PLACEMENTS", "DistributedStages", "DriverStages", "LayerResult", "StageEngine"]
