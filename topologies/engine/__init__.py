"""The engine: a topology as one Structured Streaming query whose ``foreachBatch`` is a batch loop.

:class:`BatchLoop` runs every micro-batch: it walks the topology's layers and
hands each to a placement, a stage engine that runs the layer's tasks where it
places them (:data:`PLACEMENTS`: ``driver`` or ``distributed``), and delivers
every output to the run's sinks. :func:`batch_loop` builds one, as
``SparkRunner`` does and as a test runs a topology on rows of its own.
"""

from topologies.engine.batch_clock import BatchClock
from topologies.engine.batch_layout import BatchLayout
from topologies.engine.loop import BatchLoop
from topologies.engine.placements import PLACEMENTS, StageEngine
from topologies.engine.run import RunSpec, batch_loop, build_loop

__all__ = ["PLACEMENTS", "BatchClock", "BatchLayout", "BatchLoop", "RunSpec", "StageEngine", "batch_loop", "build_loop"]
