"""The distributed placement: each layer's tasks run on Spark's executors; the batch loop sees status rows only.

For each batch, a spout's rows are cut into per-task chunks with the
topology's groupings where Spark read them
(:func:`~topologies.engine.placements.chunks.route_spout_partition`), or, when
the frame engine routes spouts in the plan, go from the scan into the shuffle
of the layer that reads them, each row's task computed by Spark
(:mod:`topologies.engine.placements.spout_plan`). Each
layer is one stage: the rows addressed to its bolts' tasks, shuffled so
each task is alone in a partition, where a Python worker runs the task (one
Python pass per layer: :func:`~topologies.engine.placements.chunks.run_task_group`)
and writes what it emitted as chunks for the next layers
(:mod:`topologies.engine.placements.frames`).
Tuples between layers never reach the batch loop: it receives the terminal
outputs and one status row per task.

On Spark, with the spouts routed by the Python pass (the default), the whole
batch is one Spark job (:meth:`DistributedStages.run_layers`): each layer
reads every row of the frame before it (the spouts' for the first), runs its
tasks on the rows addressed to them and passes the others on, so the last
layer's frame holds every row for the driver. A bolt's tasks take the lowest
watermark of the tasks upstream from their *marks*, the status rows those
tasks send each of them in the same job. Otherwise (spout rows routed in the
plan, or frames made in this process) each layer is a job of its own, and the
batch loop waits for a layer to end before it starts the next, telling each
bolt the lowest watermark of the tasks upstream; the spouts' frame is then
computed by the first layer that reads it, which also brings back the spouts'
status rows and outputs, and a frame (or the batch itself, read by several
layers) is persisted only when a later job reads it again.

Every task commits to the store every batch and resumes from it when the
worker process that runs it does not hold it from the previous batch. A task
whose store already holds the batch re-sends its committed emissions, so a
replayed batch gives the outputs of its first run, and so does a Spark task
retried after an executor or a Python worker died.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

import pyarrow as pa
import pyarrow.compute as pc

import topologies.engine.placements.chunks as chunks
from bolts.codecs.value_codec import unpack_value
from topologies.engine.batch_layout import PARTITION_COLUMN, SPOUT_COLUMN, BatchLayout
from topologies.engine.figures import TaskStatus
from topologies.engine.placements.base import LayerResult, SpoutCounts
from topologies.engine.placements.frames import FrameEngine, LayerStage, SparkFrames
from topologies.engine.placements.kept_outputs import KeptOutputs
from topologies.engine.placements.spout_plan import SpoutPlan, with_row_numbers
from topologies.engine.routing import CounterKey, RoutingTable
from topologies.engine.stage import StageSpec, layers
from topologies.failures import failure_in
from topologies.sinks.records import OutputKey
from topologies.topology import Topology

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from state_backends import StateBackend
    from topologies.engine.delivery.sink_delivery import SinkDelivery


class DistributedStages:
    """Every task on Spark's executors, one job per batch or per layer (see the module docstring).

    ``frames`` makes the frames (default :class:`SparkFrames` on ``spark``, or
    on the session of the first micro-batch when ``spark`` is None, as in a
    Spark Connect server's ``foreachBatch`` process).
    """

    shared_state: ClassVar[bool] = True
    keeps_on_executors: ClassVar[bool] = True

    def __init__(
        self, *, topology: Topology, conf: Mapping[str, Any], backend: StateBackend, name: str, state_url: str,
        spark: SparkSession | None = None, frames: FrameEngine | None = None,
    ) -> None:
        self.topology = topology
        self.layout = BatchLayout(topology)
        self.routing = RoutingTable.of(topology)
        self.engine: FrameEngine = frames if frames is not None else SparkFrames(spark)  # type: ignore[arg-type]
        # One job per batch on Spark, the spouts routed by the Python pass; the in-plan spout rows and the
        # in-process frames go layer by layer.
        self.fuses_layers = isinstance(self.engine, SparkFrames) and not self.engine.routes_spouts_in_plan
        self.layers = layers(topology)
        self.spout_columns = {sid: [self.layout.column(i, j) for j in range(len(self.layout.fields[sid]))]
                              for i, sid in enumerate(self.layout.spouts)}  # what a task needs of the layout
        self.read_later = {up for b in topology.order for up in topology.upstream(b)} - set(topology.spouts)
        self.plan: SpoutPlan | None = None  # which spouts Spark routes in the plan (from the first batch's schema)
        self._frames: dict[str, Any] = {}  # each component's frame of the batch; the Python-routed spouts share one
        self._kept: list[Any] = []  # frames persisted for later jobs, released when the batch ends
        self._driver_rows: list[pa.Table] = []  # the rows each layer brought back, outputs and statuses
        self._source: Any = None  # the batch, when Spark routes some spout's rows in the plan
        self._spouts: Any = None  # the Python-routed spouts' frame
        self._spouts_counted = False
        self._counted: set[tuple[str, str]] = set()  # the in-plan spout streams counted in this batch
        self._seen: set[str] = set()  # the kept streams some task emitted rows of

    def _session(self, spark: SparkSession) -> None:
        if isinstance(self.engine, SparkFrames) and self.engine.spark is None:
            self.engine.spark = spark

    def source_of(self, df: DataFrame) -> Any:
        """The micro-batch with each row's Spark partition (and number in it): it stays on the executors."""
        self._session(df.sparkSession)
        source = self.layout.with_partition(df)
        if not self.engine.routes_spouts_in_plan:
            return source
        if self.plan is None:
            self.plan = SpoutPlan.of(self.topology, self.layout, df.schema)
        return with_row_numbers(source)

    def source_of_table(self, table: pa.Table) -> Any:
        """The spouts' rows of ``table``, read in one partition (a one-partition DataFrame for Spark's frames)."""
        if isinstance(self.engine, SparkFrames):
            return self.source_of(self.engine.spark.createDataFrame(table.drop_columns([PARTITION_COLUMN])).coalesce(1))
        return table

    def begin(self, source: Any | None, starts: Mapping[CounterKey, int]) -> None:
        """Route the batch's spouts: Spark routes the in-plan ones for each layer; the others' frame is made once.

        The frame is computed by the first layer that reads it (and kept if
        another does too); the batch is kept when several jobs read it.
        """
        self._frames, self._kept, self._driver_rows, self._seen, self._counted = {}, [], [], set(), set()
        self._source = self._spouts = None
        self._spouts_counted = source is None
        if source is None:
            return
        in_plan = self.plan.in_plan if self.plan is not None else frozenset()
        python = [sid for sid in self.layout.spouts if sid not in in_plan]
        readers = sum(bool(self.plan.subscriptions(layer)) for layer in self.layers) if in_plan else 0
        frame_readers = sum(any(set(python).intersection(self.topology.upstream(b)) for b in layer)
                            for layer in self.layers)
        if readers:
            keep = readers + bool(python) > 1
            self._source = source.persist() if keep else source
            self._kept += [self._source] if keep else []
            source = self._source
        if not python:
            self._spouts_counted = True
            return
        if in_plan:
            source = source.filter(source[SPOUT_COLUMN].isin([self.layout.spouts.index(sid) for sid in python]))
        keep = frame_readers > 1 and not self.fuses_layers  # fused, only the first layer reads it, all of it
        self._spouts = self.engine.spouts(source, partial(chunks.route_spout_partition, self.layout, self.routing,
                                                          starts), keep=keep)
        self._frames.update(dict.fromkeys(python, self._spouts))
        self._kept += [self._spouts] if keep else []

    def run_layer(self, stages: Sequence[StageSpec], starts: Mapping[CounterKey, int]) -> LayerResult:
        """The layer's stages in one Spark job; the spouts' driver rows come back with it if it computed them."""
        bids = [spec.component for spec in stages]
        layer = [LayerStage(self._inputs_of(spec.component), spec.component, spec.parallelism,
                            partial(chunks.run_task_group, spec, self.routing, self.spout_columns, dict(starts)))
                 for spec in stages]
        reads_spouts = any(f is self._spouts for st in layer for f in st.frames)
        forward = self._spouts if reads_spouts and not self._spouts_counted else None
        routed = None if self._source is None else self.plan.rows_for(self._source, bids, starts)  # type: ignore[union-attr]
        keep = any(bid in self.read_later for bid in bids) or any(spec.kept for spec in stages)
        with bolt_errors():
            frame, rows = self.engine.layer(layer, spout_rows=routed, forward=forward, keep=keep)
        self._frames.update(dict.fromkeys(bids, frame))
        self._kept += [frame] if keep else []
        result = LayerResult({})
        if forward is not None:  # the spouts' rows have order o1 = 0, a bolt's its position (from 1)
            from_spouts = pc.equal(rows.column("o1"), 0)
            spout_rows, rows = rows.filter(from_spouts), rows.filter(pc.invert(from_spouts))
            result.spouts = self._count_spouts(spout_rows)
        self._driver_rows.append(rows)
        self._statuses(rows, bids, result)
        if routed is not None:  # the in-plan spouts' rows, counted by the tasks that took them
            result.spouts += self.plan.counts(bids, result.statuses, self._counted)  # type: ignore[union-attr]
        return result

    def run_layers(self, layers: Sequence[Sequence[StageSpec]], starts: Mapping[CounterKey, int]) -> list[LayerResult]:
        """Every layer in one Spark job (see the module docstring); the spouts' counts come with the first result."""
        engine: SparkFrames = self.engine  # type: ignore[assignment]  # fuses_layers: Spark's frames
        frame = self._spouts
        for stages in layers:
            frame = engine.chain([LayerStage((), spec.component, spec.parallelism,
                                             partial(chunks.run_task_group, spec, self.routing, self.spout_columns,
                                                     dict(starts))) for spec in stages], frame)
        keep = any(spec.kept for stages in layers for spec in stages)  # a sink reads kept streams after the job
        with bolt_errors():
            frame, rows = engine.collect(frame, frame.sparkSession, keep=keep)
        self._frames.update({spec.component: frame for stages in layers for spec in stages})
        self._kept += [frame] if keep else []
        results = [LayerResult({}) for _ in layers]
        if not self._spouts_counted:  # the spouts' rows have order o1 = 0, a bolt's its position (from 1)
            from_spouts = pc.equal(rows.column("o1"), 0)
            spout_rows, rows = rows.filter(from_spouts), rows.filter(pc.invert(from_spouts))
            results[0].spouts = self._count_spouts(spout_rows)
        self._driver_rows.append(rows)
        for stages, result in zip(layers, results, strict=True):
            self._statuses(rows, [spec.component for spec in stages], result)
        return results

    def _statuses(self, rows: pa.Table, bids: Sequence[str], result: LayerResult) -> None:
        """Each of ``bids``' task statuses among ``rows`` into ``result``; the kept streams they emitted on, seen."""
        for bid in bids:
            mine = rows.filter(pc.equal(rows.column("source"), bid))
            result.statuses[bid] = [TaskStatus.unpack(p) for p in chunks.statuses_of(mine)]
            self._seen.update(f"{bid}:{stream}" for status in result.statuses[bid] for stream, _ in status.types)

    def _inputs_of(self, bolt: str) -> list[Any]:
        """The frames ``bolt`` reads (its upstream components'), each once."""
        found = [self._frames.get(up) for up in self.topology.upstream(bolt)]
        return list({id(f): f for f in found if f is not None}.values())

    def _count_spouts(self, spout_rows: pa.Table) -> SpoutCounts:
        self._driver_rows.insert(0, spout_rows)  # the spouts' outputs come first
        self._spouts_counted = True
        return [(sid, stream, count) for payload in chunks.statuses_of(spout_rows)
                for sid, stream, count in unpack_value(payload)]

    def end(self, key: OutputKey, delivery: SinkDelivery) -> tuple[KeptOutputs, SpoutCounts]:
        """The outputs that came back, in driver mode's order, with the streams kept on the executors readable."""
        counts: SpoutCounts = []
        if not self._spouts_counted:  # no layer read the spouts' frame: its rows come back on their own
            counts = self._count_spouts(self.engine.driver_rows(self._spouts))
        rows = pa.concat_tables([chunks.empty(), *self._driver_rows])
        outputs = chunks.outputs_of(rows)  # by position in the topology: driver mode's order
        return KeptOutputs(key, outputs, self._frames, self.engine, delivery, self._seen), counts

    def release(self) -> None:
        """Unpersist the batch's frames."""
        kept, self._kept = self._kept, []
        self.engine.release(kept)
        self._frames, self._driver_rows, self._spouts, self._source = {}, [], None, None


@contextmanager
def bolt_errors() -> Iterator[None]:
    """A bolt's error on an executor, carried in Spark's error, raised as the bolt raised it."""
    try:
        yield
    except Exception as err:
        failure = failure_in(err)
        if failure is None:
            raise
        raise failure from None
