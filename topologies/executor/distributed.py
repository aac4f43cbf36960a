"""Distributed placement: ``foreachBatch`` runs the spouts' routing and each bolt's tasks on Spark's executors.

For each batch, the stages run as Spark operations on the executors
(:mod:`topologies.executor.stage_engines`, :mod:`topologies.executor.routed`):
the batch's spout rows are cut into per-task chunks with the topology's
groupings where Spark read them (``mapInArrow``), and each bolt, in
topological order, runs its task ``i`` in partition ``i`` of the chunks
addressed to it (``partitionBy``), its tasks emitting chunks for the next bolts. Tuples between
stages never reach the driver: it receives only each stage's terminal outputs
and one status row per task (watermark, counters), and it waits for a stage to
end before it starts the next, because a bolt's tasks take the lowest
watermark of the tasks upstream. Windowed and plain bolts' tasks resume from
and commit to the store every batch.

Replay: the batch's processing time comes from the batch log; shuffle counters
restart from what the batch started with (:class:`RouterCounters`); a task
whose store already holds the batch re-sends its committed emissions. A
replayed batch therefore gives the outputs of its first run, and so does a
Spark task retried after an executor or a Python worker died.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from bolts.codecs.value_codec import unpack_value
from topologies.executor.batch_layout import BatchLayout
from topologies.executor.batch_log import BatchClock, OutputLog
from topologies.executor.driver import BatchStats
from topologies.executor.flush_record import FlushingExecutor, FlushRecord
from topologies.executor.routed import (
    CounterKey,
    RoutingTable,
    TaskStatus,
    outputs_of,
    route_spout_partition,
    run_task_group,
    statuses_of,
)
from topologies.executor.runtime import SPOUT_TASK, Output
from topologies.executor.stage_engines import SparkStages, StageEngine
from topologies.executor.stored import RouterCounters
from topologies.executor.tasks import lowest_watermark
from topologies.executor.worker import StageSpec
from topologies.metrics import BatchMetrics, BoltMetrics, MetricsHistory
from topologies.topology import Topology

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from state_backends import StateBackend


def stage_metrics(statuses: list[TaskStatus], batch_ms: float) -> BoltMetrics:
    """A bolt's figures of one batch from its tasks' statuses."""
    return BoltMetrics(
        tuples_in=sum(s.tuples_in for s in statuses), tuples_out=sum(s.tuples_out for s in statuses),
        windows_fired=sum(s.fired for s in statuses), late_tuples=sum(s.late for s in statuses),
        state_bytes=sum(s.state_bytes for s in statuses), batch_ms=batch_ms,
        watermark=lowest_watermark(s.watermark for s in statuses),
    )


class DistributedExecutor(FlushingExecutor):
    """The ``foreachBatch`` function of a topology in distributed mode (see the module docstring).

    ``state_url`` is the backend's full URL (the executors open it themselves);
    ``backend`` is the driver's connection to it, for the shuffle counters.
    A bolt error fails the batch and is kept in :attr:`error`.
    """

    def __init__(
        self, topology: Topology, conf: Mapping[str, Any], clock: BatchClock, outputs: OutputLog,
        backend: StateBackend, name: str, spark: SparkSession | None, state_url: str,
        engine: StageEngine | None = None,
    ) -> None:
        self.topology = topology
        self.conf = dict(conf)
        self.layout = BatchLayout(topology)
        self.routing = RoutingTable.of(topology)
        self.engine: StageEngine = engine if engine is not None else SparkStages(spark)  # type: ignore[arg-type]
        self.clock = clock
        self.outputs = outputs
        self.name = name
        self.spark = spark
        self.state_url = state_url
        self.counters_store = RouterCounters(backend, name)
        self.flush_record = FlushRecord(backend, name)
        self.generation = uuid.uuid4().hex
        self.stats = BatchStats()
        self.metrics = MetricsHistory()  # the figures of the last batches, by batch id
        self.bolt_metrics: dict[str, BoltMetrics] = {}
        self.marks: dict[str, list[int | None]] = {}
        self.windows_fired = 0
        self.late_tuples = 0
        self.error: BaseException | None = None
        self.flushed = False
        self._lock = threading.Lock()

    def __call__(self, df: DataFrame, batch_id: int) -> None:
        """Run one Spark micro-batch."""
        try:
            self.run(batch_id, self.layout.with_partition(df))
        except BaseException as err:
            self.error = err
            raise

    def run(self, batch_id: int, source: Any) -> None:
        """Run batch ``batch_id`` (again, after a failure or in a new process) on ``source``.

        ``source`` is what the engine reads: the batch's DataFrame with its
        partition column for Spark, the layout's Arrow table for
        :class:`LocalStages`, or, for either, a mapping of spout rows (one partition).
        """
        if isinstance(source, Mapping):
            source = self.layout.encode(source)
            if isinstance(self.engine, SparkStages):
                # One partition, number 0, as the table says: the rows are dealt as one partition's.
                source = self.spark.createDataFrame(source).coalesce(1)  # type: ignore[union-attr]
        with self._lock:
            now = self.clock.time_of(batch_id, self.stats.last_time_ms)
            last = self.stats.last_batch_id
            if last is not None and batch_id <= last:
                self.stats.replays += 1
            outputs, rows = self._run_stages(batch_id, source, now)
            self.outputs.write(batch_id, outputs)
            self.metrics.record(BatchMetrics(
                batch_id=batch_id, input_rows=rows, time_ms=now, watermark=self.counters()[0],
                bolts=dict(self.bolt_metrics), replay=last is not None and batch_id <= last,
            ))
            if last is None or batch_id > last:
                self.stats.batches += 1
                self.stats.input_rows += rows
            self.stats.last_batch_id, self.stats.last_time_ms = batch_id, now
            self.stats.record_rows(batch_id, rows)

    def _run_stages(self, batch_id: int | None, source: Any, now: int | None) -> tuple[list[Output], int]:
        """Run the batch's stages; its outputs in driver mode's order, and its spout rows."""
        # The shutdown flush (no batch id) routes on from where the last batch's shuffles ended, as driver mode does.
        start = self.counters_store.start_of(batch_id) if batch_id is not None else self.counters_store.at_end()
        end: dict[CounterKey, int] = dict(start)
        outputs: list[tuple[str, int, str, list[Any]]] = []
        frames: dict[str, Any] = {}  # each component's frame; all spouts share one
        rows = 0
        self.bolt_metrics = {}
        spouts = None
        try:
            if source is not None:
                spouts = self.engine.spouts(source, partial(route_spout_partition, self.layout, self.routing, start))
                frames.update(dict.fromkeys(self.topology.spouts, spouts))
            for bid in self.topology.order:
                spec = self._spec(bid, batch_id, now)
                started = time.perf_counter()
                upstream = list({id(f): f for up in self.topology.upstream(bid) if (f := frames.get(up)) is not None}
                                .values())
                frame, driver_rows = self.engine.stage(
                    upstream, bid, spec.parallelism, partial(run_task_group, spec, self.routing, start))
                frames[bid] = frame
                statuses = sorted((TaskStatus.unpack(p) for p in statuses_of(driver_rows)), key=lambda s: s.task)
                if [s.task for s in statuses] != list(range(spec.parallelism)):
                    msg = (f"stage {bid!r}: tasks {sorted(set(range(spec.parallelism)) - {s.task for s in statuses})} "
                           "gave no answer")
                    raise RuntimeError(msg)
                self.marks[bid] = [s.watermark for s in statuses]
                self.bolt_metrics[bid] = stage_metrics(statuses, (time.perf_counter() - started) * 1000)
                self.windows_fired += self.bolt_metrics[bid].windows_fired
                self.late_tuples += self.bolt_metrics[bid].late_tuples
                for status in statuses:
                    for stream, bolt, counter in status.counters:
                        end[bid, status.task, stream, bolt] = counter
                outputs.extend(outputs_of(driver_rows))
            if spouts is not None:  # computed by the first stage that read it: the spouts' outputs come first
                driver_rows = self.engine.driver_rows(spouts)
                outputs[:0] = outputs_of(driver_rows)
                for payload in statuses_of(driver_rows):
                    for sid, stream, count in unpack_value(payload):
                        rows += count
                        for bolt, _, _ in self.routing.subscribers.get((sid, stream), ()):
                            key = (sid, SPOUT_TASK, stream, bolt)
                            end[key] = end.get(key, 0) + count
        finally:
            self.engine.release(list({id(f): f for f in frames.values()}.values()))
        if batch_id is not None:
            self.counters_store.commit(batch_id, start, end)
        return [Output(*o) for o in outputs], rows

    def _spec(self, bid: str, batch_id: int | None, now: int | None) -> StageSpec:
        spec = self.topology.bolts[bid]
        ups = [up for up in self.topology.upstream(bid) if up in self.topology.bolts]
        watermark = lowest_watermark(m for up in ups for m in self.marks.get(up, [None]))
        return StageSpec(
            topology=self.name, generation=self.generation, component=bid, bolt=spec.bolt,
            parallelism=spec.parallelism, inputs=tuple((s.component, s.stream) for s in spec.subscriptions),
            conf=self.conf, state_url=self.state_url, batch_id=batch_id, now_ms=now, watermark=watermark,
            closing=batch_id is None,
        )

    def counters(self) -> tuple[int | None, int, int]:
        """The lowest task watermark (None if none has one), windows fired, and late tuples, so far."""
        marks = [m for ms in self.marks.values() for m in ms if m is not None]
        return (min(marks) if marks else None), self.windows_fired, self.late_tuples

    def _last_batch(self) -> int | None:
        return self.counters_store.last_batch()

    def _close_after(self, last: int) -> list[Output]:
        return self._run_stages(None, None, None)[0]
