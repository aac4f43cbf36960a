"""Where a topology's bolt tasks run: one class per placement behind :class:`Placement`, chosen by name.

``driver`` (the embedded default) runs every task where ``foreachBatch``
runs; ``distributed`` runs each bolt's tasks on Spark's executors. The runner
and the CLI take the names from :data:`PLACEMENTS`; adding a placement is a
module here and a line below.
"""

from __future__ import annotations

from topologies.executor.placements.base import BatchResult, Placement
from topologies.executor.placements.distributed import DistributedPlacement
from topologies.executor.placements.driver import DriverPlacement

PLACEMENTS: dict[str, type[Placement]] = {
    "driver": DriverPlacement,
    "distributed": DistributedPlacement,
}

__all__ = ["PLACEMENTS", "BatchResult", "DistributedPlacement", "DriverPlacement", "Placement"]
