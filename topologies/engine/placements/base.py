"""The placement protocol: a stage engine, which runs a layer's tasks where it places them.

The batch loop (:class:`~topologies.engine.loop.BatchLoop`) owns everything
about a batch that does not depend on where the tasks run: its processing time,
the shuffle counters it starts and ends with, replay, the walk of the layers,
each bolt's upstream watermark, the figures, every output and the shutdown
flush. A *placement* is a stage engine: given a batch's spout rows
(:meth:`StageEngine.begin`), it runs each layer's tasks on the tuples routed to
them, routes what they emit on to the next layers' tasks, and answers with each
task's :class:`~topologies.engine.figures.TaskStatus`
(:meth:`StageEngine.run_layer`); at the end it hands the batch's outputs over as
an :class:`~topologies.sinks.base.OutputBatch` (:meth:`StageEngine.end`). Each
task runs through :func:`~topologies.engine.stage.run_stage_task`, so every
placement builds, runs, commits, routes and reports a task the same way.

A new placement is one module beside ``driver.py`` and ``distributed.py``
holding a class with these methods, and one line in the registry
(:data:`topologies.engine.placements.PLACEMENTS`); ``SparkRunner(mode=...)``
and ``squall run --mode`` take it by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from topologies.engine.figures import TaskStatus
from topologies.engine.routing import CounterKey
from topologies.engine.stage import StageSpec

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame

    from topologies.engine.delivery.sink_delivery import SinkDelivery
    from topologies.sinks.base import OutputBatch
    from topologies.sinks.records import OutputKey

SpoutCounts = list[tuple[str, str, int]]  # (spout, stream, rows) routed


@dataclass
class LayerResult:
    """What a layer's tasks reported: each bolt's statuses (any order), and spout row counts that came with them.

    ``elapsed_ms``: each bolt's own wall time, where the placement can tell them
    apart (else each bolt is given the layer's).
    """

    statuses: dict[str, list[TaskStatus]]
    spouts: SpoutCounts = field(default_factory=list)
    elapsed_ms: dict[str, float] = field(default_factory=dict)


class StageEngine(Protocol):
    """Runs a topology's tasks somewhere, one layer at a time, as the batch loop walks the layers.

    ``shared_state``: its tasks run in other processes than the batch loop's,
    so their state must live in a store every process reaches (a
    ``memory://`` state URL is refused when the runner is built).
    ``keeps_on_executors``: the streams a ``TableSink`` keeps stay where the
    tasks emitted them (distributed mode's executors). ``fuses_layers``: the
    batch loop hands it every layer's stages at once (:meth:`run_layers`)
    rather than one layer at a time (:meth:`run_layer`).
    """

    shared_state: ClassVar[bool]
    keeps_on_executors: ClassVar[bool]
    fuses_layers: bool

    def source_of(self, df: DataFrame) -> Any:
        """What :meth:`begin` reads, from Spark's micro-batch ``df`` (the spouts' unioned rows)."""
        ...

    def source_of_table(self, table: pa.Table) -> Any:
        """What :meth:`begin` reads, from the spouts' unioned rows as an Arrow table, all read in one partition."""
        ...

    def begin(self, source: Any | None, starts: Mapping[CounterKey, int]) -> None:
        """Start a batch: route the spouts' rows of ``source`` (None for the flush), shuffles from ``starts``.

        Nothing may run yet: the spouts' row counts come back with the first
        :class:`LayerResult` that has them, or from :meth:`end`.
        """
        ...

    def run_layer(self, stages: Sequence[StageSpec], starts: Mapping[CounterKey, int]) -> LayerResult:
        """Run every task of ``stages`` (bolts that do not read one another) on what was routed to it.

        What the tasks emit is routed to the tasks of later layers (shuffles
        from ``starts``), or kept as outputs. A bolt's error is raised as the
        bolt raised it.
        """
        ...

    def run_layers(self, layers: Sequence[Sequence[StageSpec]], starts: Mapping[CounterKey, int]) -> list[LayerResult]:
        """Every layer's stages in one go (only when ``fuses_layers``): one result per layer, in order.

        A stage of a later layer has no ``watermark``: its tasks take the
        lowest of their upstream tasks' from the marks those send
        (:class:`~topologies.engine.stage.StageSpec`'s ``watermark_from`` and ``marks_to``).
        """
        ...

    def end(self, key: OutputKey, delivery: SinkDelivery | None) -> tuple[OutputBatch, SpoutCounts]:
        """The batch's outputs as sinks read them (valid until :meth:`release`), and spout counts not yet given."""
        ...

    def release(self) -> None:
        """The batch is over (its outputs written, or it failed): free what it held."""
        ...
