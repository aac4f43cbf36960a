"""The distributed placement: each bolt's stage runs on Spark's executors; the batch loop sees status rows only.

For each batch the stages run as Spark operations on the executors
(:mod:`topologies.executor.stage_engines`, :mod:`topologies.executor.routed`):
the batch's spout rows are cut into per-task chunks with the topology's
groupings where Spark read them, and each bolt, in topological order, runs
each of its tasks on the chunks addressed to it, its tasks emitting chunks
for the next bolts. Tuples between stages never reach the batch loop: it
receives each stage's terminal outputs and one status row per task
(watermark, counters), and waits for a stage to end before it starts the
next, because a bolt's tasks take the lowest watermark of the tasks upstream.
Each stage is one Spark job: the spouts' frame is computed by the first stage
that reads it, which also brings back the spouts' status rows and outputs, and
a frame is cached only when a later job reads it again. Every task commits to
the store every batch and resumes from it when the worker process that runs it
does not hold it from the previous batch (:mod:`topologies.executor.worker`).

Replay: a task whose store already holds the batch re-sends its committed
emissions, so a replayed batch gives the outputs of its first run, and so
does a Spark task retried after an executor or a Python worker died.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

import pyarrow as pa
import pyarrow.compute as pc

import topologies.executor.routed as routed
from bolts.codecs.value_codec import unpack_value
from topologies.executor.batch_layout import BatchLayout
from topologies.executor.placements.base import BatchResult, CounterKey
from topologies.executor.placements.kept_outputs import KeptOutputs
from topologies.executor.routed import (
    TaskStatus,
    outputs_of,
    route_spout_partition,
    run_task_group,
    statuses_of,
)
from topologies.executor.routing import RoutingTable
from topologies.executor.runtime import SPOUT_TASK, Output
from topologies.executor.stage_engines import LayerStage, SparkStages, StageEngine
from topologies.executor.tasks import EventTimes, gather_event_times, lowest_watermark
from topologies.executor.worker import StageSpec
from topologies.failures import failure_in
from topologies.metrics import BoltMetrics
from topologies.sinks.records import FINAL
from topologies.sinks.typed_outputs import parse_schema
from topologies.topology import Topology

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from state_backends import StateBackend
    from topologies.executor.delivery.sink_delivery import SinkDelivery


def levels(topology: Topology) -> list[list[str]]:
    """The bolts by depth: a bolt reading only spouts is at 0, else one below the deepest bolt it reads."""
    depth: dict[str, int] = {}
    for bid in topology.order:
        depth[bid] = 1 + max((depth[u] for u in topology.upstream(bid) if u in depth), default=-1)
    return [[b for b in topology.order if depth[b] == d] for d in range(1 + max(depth.values(), default=-1))]


def stage_metrics(statuses: list[TaskStatus], batch_ms: float) -> BoltMetrics:
    """A bolt's figures of one batch from its tasks' statuses."""
    return BoltMetrics(
        tuples_in=sum(s.tuples_in for s in statuses), tuples_out=sum(s.tuples_out for s in statuses),
        windows_fired=sum(s.fired for s in statuses), late_tuples=sum(s.late for s in statuses),
        state_bytes=sum(s.state_bytes for s in statuses), batch_ms=batch_ms,
        watermark=lowest_watermark(s.watermark for s in statuses),
    )


class DistributedPlacement:
    """Every bolt task on Spark's executors, one stage per bolt (see the module docstring).

    ``state_url`` is the store's full URL: the executors open it themselves.
    ``engine`` runs the stages (default :class:`SparkStages` on ``spark``, or on
    the session of the first micro-batch when ``spark`` is None, as in a Spark
    Connect server's ``foreachBatch`` process).
    """

    shared_state: ClassVar[bool] = True

    def __init__(
        self, *, topology: Topology, conf: Mapping[str, Any], backend: StateBackend, name: str, state_url: str,
        spark: SparkSession | None = None, engine: StageEngine | None = None,
    ) -> None:
        self.topology = topology
        self.conf = dict(conf)
        self.layout = BatchLayout(topology)
        self.routing = RoutingTable.of(topology)
        self.engine: StageEngine = engine if engine is not None else SparkStages(spark)  # type: ignore[arg-type]
        self.name = name
        self.state_url = state_url
        self.generation = uuid.uuid4().hex  # a worker's cached task from another submission is rebuilt
        self.marks: dict[str, list[int | None]] = {}
        spouts = set(topology.spouts)
        # The stages reading the spouts' frame, in order (the first computes it), and the bolts another stage reads.
        self.spout_readers = [b for b in topology.order if spouts.intersection(topology.upstream(b))]
        self.read_by_bolts = {up for b in topology.order for up in topology.upstream(b)} - spouts
        self.levels = levels(topology)
        self.windows_fired = 0
        self.late_tuples = 0
        self._counted: tuple[int | None, int, int] = (None, 0, 0)  # the last batch counted: its id and figures

    def _session(self, spark: SparkSession) -> None:
        if isinstance(self.engine, SparkStages) and self.engine.spark is None:
            self.engine.spark = spark

    def source_of(self, df: DataFrame) -> Any:
        """The micro-batch with each row's Spark partition: it stays on the executors."""
        self._session(df.sparkSession)
        return self.layout.with_partition(df)

    def source_of_rows(self, spout_rows: Mapping[str, Any]) -> Any:
        """The rows as the layout's table, read in partition 0 (a one-partition DataFrame for Spark's stages)."""
        table = self.layout.encode(spout_rows)
        if isinstance(self.engine, SparkStages):
            return self.engine.spark.createDataFrame(table).coalesce(1)
        return table

    def run_batch(self, batch_id: int, source: Any, now_ms: int, start: Mapping[CounterKey, int],
                  sinks: SinkDelivery | None = None, event_times: EventTimes | None = None,
                  after_flush: bool = False) -> BatchResult:
        """Run the batch's stages, upstream first, then the sinks on the executors' frames."""
        return self._run_stages(batch_id, source, now_ms, start, sinks, event_times or {}, after_flush)

    def rewind(self, batch_id: int, last: int) -> None:
        """Nothing to forget: the tasks resume from their stores in every stage."""

    def close_after(self, last: int, now_ms: int, counters: Mapping[CounterKey, int],
                    sinks: SinkDelivery | None = None, event_times: EventTimes | None = None) -> BatchResult:
        """Close every task in a stage of its own, on from where the last batch's shuffles ended."""
        return self._run_stages(None, None, None, counters, sinks, event_times or {})

    def counters(self) -> tuple[int | None, int, int]:
        """The lowest task watermark (None if none has one), windows fired and late tuples, so far."""
        marks = [m for ms in self.marks.values() for m in ms if m is not None]
        return (min(marks) if marks else None), self.windows_fired, self.late_tuples

    def _run_stages(self, batch_id: int | None, source: Any, now: int | None,
                    start: Mapping[CounterKey, int], sinks: SinkDelivery | None = None,
                    event_times: EventTimes | None = None, after_flush: bool = False) -> BatchResult:
        """Run the batch's stages (closing every task when ``batch_id`` is None): outputs in driver mode's order."""
        end: dict[CounterKey, int] = dict(start)
        times = event_times or {}
        seen: set[str] = set()  # the kept streams some task emitted rows of
        tables: list[pa.Table] = []  # the driver rows of the spouts and of each layer
        frames: dict[str, Any] = {}  # each component's frame; all spouts share one
        kept: list[Any] = []  # the frames persisted for later jobs, released when the batch ends
        result = BatchResult([], counters=end, event_times={bid: dict(seen) for bid, seen in times.items()})
        spouts = spout_rows = None
        try:
            layers = self._layers(sinks)
            if source is not None:  # kept when more than one job reads it
                keep = sum(any(b in self.spout_readers for b in layer) for layer in layers) > 1
                spouts = self.engine.spouts(source, partial(route_spout_partition, self.layout, self.routing, start),
                                            keep=keep)
                frames.update(dict.fromkeys(self.topology.spouts, spouts))
                kept += [spouts] if keep else []
            for layer in layers:
                rows, forwarded = self._run_layer(layer, batch_id, now, start, frames, end, result, sinks, seen,
                                                  kept, times, after_flush)
                tables.append(rows)
                spout_rows = forwarded if forwarded is not None else spout_rows
            if spouts is not None:  # computed by the first stage that read it: the spouts' outputs come first
                driver_rows = spout_rows if spout_rows is not None else self.engine.driver_rows(spouts)
                tables.insert(0, driver_rows)
                for payload in statuses_of(driver_rows):
                    for sid, stream, count in unpack_value(payload):
                        result.rows += count
                        for bolt, _, _ in self.routing.subscribers.get((sid, stream), ()):
                            key = (sid, SPOUT_TASK, stream, bolt)
                            end[key] = end.get(key, 0) + count
            outputs = outputs_of(pa.concat_tables([routed.empty(), *tables])) if tables else []
            result.outputs = [Output(*o) for o in outputs]  # by position in the topology: driver mode's order
            if sinks is not None:
                key = FINAL if batch_id is None else batch_id
                sinks.write(KeptOutputs(key, result.outputs, frames, self.engine, sinks, seen))
            self._count(batch_id, result)
        finally:
            self.engine.release(kept)
        return result

    def _count(self, batch_id: int | None, result: BatchResult) -> None:
        """Add a batch that ran through to the run's figures, replacing its earlier count when Spark ran it again.

        A batch a failure or a stop interrupted counts nothing; when it runs
        again, a task that had committed it reports its committed figures.
        """
        fired = sum(m.windows_fired for m in result.bolts.values())
        late = sum(m.late_tuples for m in result.bolts.values())
        last, last_fired, last_late = self._counted
        if batch_id is not None and batch_id == last:  # Spark ran the last batch again: its figures replace them
            self.windows_fired -= last_fired
            self.late_tuples -= last_late
        self.windows_fired += fired
        self.late_tuples += late
        self._counted = (batch_id, fired, late)

    def _layers(self, sinks: SinkDelivery | None) -> list[list[str]]:
        """The bolts in layers run one job each: a layer's bolts read only spouts and earlier layers' bolts.

        A bolt whose streams a sink keeps on the executors runs alone (its
        frame is read by stream name). In topological order.
        """
        kept = {s.split(":")[0] for s in sinks.kept} if sinks is not None else set()
        layers: list[list[str]] = []
        for level in self.levels:
            together = [b for b in level if b not in kept]
            layers += [together] if together else []
            layers += [[b] for b in level if b in kept]
        return layers

    def _run_layer(self, bids: list[str], batch_id: int | None, now: int | None, start: Mapping[CounterKey, int],
                   frames: dict[str, Any], end: dict[CounterKey, int], result: BatchResult,
                   sinks: SinkDelivery | None, seen: set[str], kept: list[Any], times: EventTimes,
                   after_flush: bool) -> tuple[pa.Table, Any]:
        """Run a layer's stages in one job; its driver rows, and the spouts' if this layer brought them (else None)."""
        specs = {bid: replace(self._spec(bid, batch_id, now, sinks), event_times=dict(times.get(bid, {})),
                              after_flush=after_flush) for bid in bids}
        started = time.perf_counter()
        stages = [LayerStage(list({id(f): f for up in self.topology.upstream(bid) if (f := frames.get(up)) is not None
                                   }.values()), bid, specs[bid].parallelism,
                             partial(run_task_group, specs[bid], self.routing, start)) for bid in bids]
        spouts = next((frames[s] for s in self.topology.spouts if s in frames), None)
        forward = spouts if self.spout_readers and self.spout_readers[0] in bids else None
        # A downstream stage or a sink reads the frame later.
        keep = any(bid in self.read_by_bolts or bool(specs[bid].kept) for bid in bids)
        try:
            frame, driver_rows = self.engine.layer(stages, forward=forward, keep=keep)
        except Exception as err:
            failure = failure_in(err)  # a bolt's error on an executor: raised as the bolt raised it
            if failure is None:
                raise
            raise failure from None
        frames.update(dict.fromkeys(bids, frame))
        kept += [frame] if keep else []
        forwarded = None
        if forward is not None:  # the spouts' rows have order o1 = 0, a bolt's its position (from 1)
            from_spouts = pc.equal(driver_rows.column("o1"), 0)
            forwarded, driver_rows = driver_rows.filter(from_spouts), driver_rows.filter(pc.invert(from_spouts))
        elapsed = (time.perf_counter() - started) * 1000
        for bid in bids:
            mine = driver_rows.filter(pc.equal(driver_rows.column("source"), bid))
            self._take_statuses(bid, specs[bid].parallelism, statuses_of(mine), elapsed, end, result, sinks, seen)
        return driver_rows, forwarded

    def _take_statuses(self, bid: str, parallelism: int, payloads: list[bytes], elapsed_ms: float,
                       end: dict[CounterKey, int], result: BatchResult, sinks: SinkDelivery | None,
                       seen: set[str]) -> None:
        """What a bolt's tasks reported: watermarks, event times, figures, counters and the kept streams' types."""
        statuses = sorted((TaskStatus.unpack(p) for p in payloads), key=lambda s: s.task)
        if [s.task for s in statuses] != list(range(parallelism)):
            missing = sorted(set(range(parallelism)) - {s.task for s in statuses})
            msg = f"stage {bid!r}: tasks {missing} gave no answer"
            raise RuntimeError(msg)
        self.marks[bid] = [s.watermark for s in statuses]
        gather_event_times(result.event_times, bid, (s.event_time_maxima() for s in statuses))
        result.bolts[bid] = stage_metrics(statuses, elapsed_ms)
        for status in statuses:
            for stream, bolt, counter in status.counters:
                end[bid, status.task, stream, bolt] = counter
            for stream, shown in status.types:  # only streams the task emitted rows of
                seen.add(f"{bid}:{stream}")
                if sinks is not None and shown:
                    sinks.types.of(f"{bid}:{stream}").learn(dict(parse_schema(shown)))

    def _spec(self, bid: str, batch_id: int | None, now: int | None, sinks: SinkDelivery | None) -> StageSpec:
        spec = self.topology.bolts[bid]
        ups = [up for up in self.topology.upstream(bid) if up in self.topology.bolts]
        watermark = lowest_watermark(m for up in ups for m in self.marks.get(up, [None]))
        return StageSpec(
            topology=self.name, generation=self.generation, component=bid, bolt=spec.bolt,
            parallelism=spec.parallelism, inputs=tuple((s.component, s.stream) for s in spec.subscriptions),
            conf=self.conf, state_url=self.state_url, batch_id=batch_id, now_ms=now, watermark=watermark,
            closing=batch_id is None,
            kept={} if sinks is None else {
                s.split(":")[1]: sinks.types.of(s) for s in sorted(sinks.kept) if s.split(":")[0] == bid},
        )
