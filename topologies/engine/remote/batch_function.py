"""The ``foreachBatch`` function: a picklable run that builds its batch loop where the batches run.

In a classic session Spark calls ``foreachBatch``'s function in the driver
process, so :class:`BatchFunction` holds the loop the runner built. Under
Spark Connect the function is pickled and called in a Python process beside
the server: there it builds its loop from the :class:`RunSpec` on the first
batch, opening the state store itself (``memory://`` becomes a
:class:`~topologies.engine.remote.journaled_memory.JournaledMemoryBackend`
beside the checkpoint, so the client's flush and the next submit see it) and
writing outputs and figures for the client (:mod:`.run_files`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from topologies.engine.loop import BatchLoop
from topologies.engine.run import RunSpec, build_loop

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


class BatchFunction:
    """What the runner hands ``foreachBatch``: calls the batch loop, building it from the spec where it runs."""

    def __init__(self, spec: RunSpec, loop: BatchLoop | None = None) -> None:
        self.spec = spec
        self.loop = loop

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec, "loop": None}  # the loop (locks, connections) is built where it runs

    def __call__(self, df: DataFrame, batch_id: int) -> None:
        """Run one micro-batch."""
        if self.loop is None:
            self.loop = build_loop(self.spec)
        self.loop(df, batch_id)
