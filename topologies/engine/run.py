"""A run of a topology as a value, and the batch loop built from it wherever the batches run.

:class:`RunSpec` is everything ``SparkRunner.submit`` knows of a run; it pickles,
so under Spark Connect the server's ``foreachBatch`` process builds the same
loop (:func:`build_loop`) as a classic session's driver does. :func:`batch_loop`
assembles a loop from its parts: the placement by name, the state store, and
every sink (the runner's, then the run's own), which is also how tests and
benchmarks run a topology on rows of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from state_backends import open_backend
from state_backends.urls import scheme_of
from topologies.engine.batch_clock import BatchClock, wall_clock_ms
from topologies.engine.delivery.output_types import OutputTypes, output_streams
from topologies.engine.delivery.sink_delivery import SinkDelivery
from topologies.engine.loop import BatchLoop
from topologies.engine.placements import PLACEMENTS
from topologies.engine.remote.journaled_memory import JournaledMemoryBackend
from topologies.engine.remote.run_files import RunWriter
from topologies.sinks.output_log import OutputCallback, OutputFiles, OutputLog, OutputSink
from topologies.storage import StorageDir, join, open_dir
from topologies.topology import Topology

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from state_backends import StateBackend
    from topologies.sinks.base import Sink


@dataclass(frozen=True)
class RunSpec:
    """Everything needed to build a topology's batch loop in any process (it pickles with cloudpickle).

    ``remote``: the batches run in another process than the client's (Spark
    Connect); the loop then writes outputs and figures for the client.
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


def build_loop(spec: RunSpec, backend: StateBackend | None = None, spark: SparkSession | None = None) -> BatchLoop:
    """The batch loop of ``spec`` over ``backend`` (default: opened from the spec), its placement chosen by name.

    ValueError when a sink takes a stream the topology does not end in, or
    gives it a schema of other fields.
    """
    return batch_loop(
        spec.topology, BatchClock(spec.squall_dir("batch-times"), spec.clock or wall_clock_ms), mode=spec.mode,
        backend=backend if backend is not None else spec.open_state(), state_url=spec.state, name=spec.name,
        conf=spec.conf, sinks=spec.sinks, outputs_in_memory=spec.outputs_in_memory,
        output_dir=None if spec.output_dir is None else open_dir(join(spec.output_dir, spec.name)),
        on_output=spec.on_output, run_dir=spec.squall_dir("run") if spec.remote else None, spark=spark,
    )


def batch_loop(
    topology: Topology, clock: BatchClock, *, mode: str = "driver", backend: StateBackend | None = None,
    state_url: str = "memory://", name: str = "topology", conf: Mapping[str, Any] | None = None,
    sinks: Sequence[Sink] = (), outputs_in_memory: int | None = None, output_dir: StorageDir | Path | None = None,
    on_output: OutputSink | None = None, run_dir: StorageDir | None = None, spark: SparkSession | None = None,
    **placement: Any,
) -> BatchLoop:
    """A batch loop of ``topology`` on the placement ``mode``, over ``backend`` (default: opened from ``state_url``).

    Its sinks: ``sinks``, then the run's own: the outputs in memory (the last
    ``outputs_in_memory``, None: all), ``output_dir``'s files, ``on_output``,
    and with ``run_dir`` the files a client in another process reads (Spark
    Connect). ``placement``: more arguments for the placement's class (the
    distributed placement's ``frames``). What ``SparkRunner`` runs, and how a
    test or a benchmark runs a topology on rows of its own (:meth:`BatchLoop.run`).
    """
    conf = dict(conf or {})
    backend = backend if backend is not None else open_backend(state_url)
    types = OutputTypes(topology, sinks, backend, name)
    kept = frozenset(s for sink in sinks if sink.keeps_on_executors for s in (sink.streams or ()))
    placement_class = PLACEMENTS[mode]
    # What comes to this process: every output stream but those a sink keeps where the tasks run.
    here = output_streams(topology) - (kept if placement_class.keeps_on_executors else frozenset())
    log = OutputLog(outputs_in_memory, here)
    files = None
    if output_dir is not None:
        fields = {(c, s): list(f) for c, streams in topology.streams.items() for s, f in streams.items()}
        files = OutputFiles(output_dir, fields, here)
    writer = RunWriter(run_dir, here) if run_dir is not None else None
    callback = OutputCallback(on_output, here) if on_output is not None else None
    own = [sink for sink in (files, writer, log, callback) if sink is not None]
    engine = placement_class(topology=topology, conf=conf, backend=backend, name=name,  # type: ignore[call-arg]
                             state_url=state_url, spark=spark, **placement)
    return BatchLoop(topology, conf, clock, engine, backend, name=name, state_url=state_url,
                     sinks=SinkDelivery([*sinks, *own], types, spark), log=log, files=files, run_writer=writer)
