"""The ``foreachBatch`` function: a picklable run description that builds its executor where the batches run.

In a classic session Spark calls ``foreachBatch``'s function in the driver
process, so :class:`BatchFunction` holds the executor the runner built. Under
Spark Connect the function is pickled and called in a Python process beside
the server: there it builds its executor from the :class:`RunSpec` on the
first batch, opening the state store itself (``memory://`` becomes a
:class:`~topologies.executor.remote.journaled_memory.JournaledMemoryBackend`
beside the checkpoint, so the client's flush and the next submit see it) and
writing outputs and figures for the client (:mod:`.run_files`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from state_backends import open_backend
from state_backends.urls import scheme_of
from topologies.executor.batch_executor import BatchExecutor
from topologies.executor.batch_log import BatchClock, OutputLog, OutputSink, wall_clock_ms
from topologies.executor.delivery.output_types import OutputTypes
from topologies.executor.delivery.sink_delivery import SinkDelivery
from topologies.executor.placements import PLACEMENTS
from topologies.executor.remote.journaled_memory import JournaledMemoryBackend
from topologies.executor.remote.run_files import RunWriter
from topologies.executor.storage import StorageDir, join, open_dir
from topologies.topology import Topology

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from state_backends import StateBackend
    from topologies.sinks.base import Sink


@dataclass(frozen=True)
class RunSpec:
    """Everything needed to build a topology's executor in any process (it pickles with cloudpickle).

    ``remote``: the batches run in another process than the client's (Spark
    Connect); the executor then writes outputs and figures for the client.
    """

    name: str
    topology: Topology
    mode: str
    state: str
    checkpoint_location: str | Path
    conf: Mapping[str, Any] = field(default_factory=dict)
    output_dir: str | Path | None = None
    outputs_in_memory: int | None = None
    on_output: OutputSink | None = None
    clock: Callable[[], int] | None = None
    remote: bool = False
    sinks: tuple[Sink, ...] = ()

    def squall_dir(self, *names: str) -> StorageDir:
        """``<checkpoint>/<name>/squall/<names...>``: where squall keeps its own files of this run."""
        return open_dir(join(self.checkpoint_location, self.name, "squall", *names))

    def spark_checkpoint(self) -> StorageDir:
        """Spark's checkpoint of this run, ``<checkpoint>/<name>/spark``."""
        return open_dir(join(self.checkpoint_location, self.name, "spark"))

    def open_state(self) -> StateBackend:
        """The state store: the URL's backend; ``memory://`` of a remote run journaled beside the checkpoint."""
        if self.remote and scheme_of(self.state) == "memory":
            return JournaledMemoryBackend(self.squall_dir("state"))
        return open_backend(self.state)


def build_executor(spec: RunSpec, backend: StateBackend | None = None,
                   spark: SparkSession | None = None) -> BatchExecutor:
    """The executor of ``spec`` over ``backend`` (default: opened from the spec), its placement chosen by name.

    ValueError when a sink takes a stream the topology does not end in, or gives it a schema of other fields.
    """
    backend = backend if backend is not None else spec.open_state()
    sinks = None
    if spec.sinks:
        sinks = SinkDelivery(spec.sinks, OutputTypes(spec.topology, spec.sinks, backend, spec.name), spark)
    output_dir = None if spec.output_dir is None else open_dir(join(spec.output_dir, spec.name))
    clock = BatchClock(spec.squall_dir("batch-times"), spec.clock or wall_clock_ms)
    writer = RunWriter(spec.squall_dir("run")) if spec.remote else None
    fields = {(c, s): list(f) for c, streams in spec.topology.streams.items() for s, f in streams.items()}
    outputs = OutputLog(output_dir, keep=spec.outputs_in_memory, on_output=spec.on_output,
                        mirror=None if writer is None else writer.write_outputs, fields=fields)
    placement = PLACEMENTS[spec.mode](topology=spec.topology, conf=spec.conf, backend=backend, name=spec.name,
                                      state_url=spec.state, spark=spark)
    return BatchExecutor(spec.topology, spec.conf, clock, outputs, placement, backend, spec.name, run_writer=writer,
                         sinks=sinks)


class BatchFunction:
    """What the runner hands ``foreachBatch``: calls the executor, building it from the spec where it runs."""

    def __init__(self, spec: RunSpec, executor: BatchExecutor | None = None) -> None:
        self.spec = spec
        self.executor = executor

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec, "executor": None}  # the executor (locks, connections) is built where it runs

    def __call__(self, df: DataFrame, batch_id: int) -> None:
        """Run one micro-batch."""
        if self.executor is None:
            self.executor = build_executor(self.spec)
        self.executor(df, batch_id)
