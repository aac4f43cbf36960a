"""Distributed placement: ``foreachBatch`` runs each bolt's tasks on Spark executors, one stage per bolt.

For each batch the driver routes the spouts' tuples with the topology's
groupings (the :class:`Router` of driver mode, so placement changes nothing),
then runs the bolts in topological order. A bolt's stage is one Spark job
without a shuffle: the encoded tuples of each task (an empty list too, so every
task runs and moves its time) are parallelized one task per partition and
handed to :func:`worker.run_partition`, which runs the task against the
state store and answers with its emissions and watermark. The driver
routes those to the next bolts, and records the terminal ones as the batch's
outputs. Windowed bolts' tasks resume from and commit to the store every
batch; plain bolts' tasks are built afresh for each batch.

Replay: the batch's processing time comes from the batch log; shuffle counters
restart from what the batch started with (:class:`RouterCounters`); a task
whose store already holds the batch re-sends its committed emissions. A
replayed batch therefore gives the outputs of its first run.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from bolts.task_input import TaskInput
from topologies.executor.batch_layout import BatchLayout
from topologies.executor.batch_log import BatchClock, OutputLog
from topologies.executor.driver import BatchStats
from topologies.executor.flush_record import FlushingExecutor, FlushRecord
from topologies.executor.runtime import Output, Router, SpoutData, route_spouts
from topologies.executor.stored import RouterCounters
from topologies.executor.tasks import lowest_watermark
from topologies.executor.wire import decode_values, encode_input
from topologies.executor.worker import StageSpec, run_partition
from topologies.metrics import BatchMetrics, BoltMetrics, MetricsHistory
from topologies.topology import Topology

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from state_backends import StateBackend


@dataclass
class StageResult:
    """A stage's answer: emissions per task in order, and each task's watermark; plus counters."""

    emitted: list[tuple[int, str, list[Any]]]
    watermarks: list[int | None]
    fired: int
    late: int
    state_bytes: int = 0
    tuples_in: int = 0
    batch_ms: float = 0.0

    def metrics(self) -> BoltMetrics:
        """The stage's figures as the bolt's :class:`BoltMetrics` of the batch."""
        return BoltMetrics(
            tuples_in=self.tuples_in, tuples_out=len(self.emitted), windows_fired=self.fired, late_tuples=self.late,
            state_bytes=self.state_bytes, batch_ms=self.batch_ms, watermark=lowest_watermark(self.watermarks),
        )


def run_stage(spark: SparkSession, spec: StageSpec, queues: Sequence[TaskInput]) -> StageResult:
    """Run one bolt's tasks on executors (one Spark job, task ``i`` in partition ``i``) and collect their answers."""
    started = time.perf_counter()
    inputs = [encode_input(queue) for queue in queues]
    # As many elements as slices: parallelize puts element i alone in partition i, so the tasks run
    # in parallel (hash-repartitioning task numbers can put two in one partition) and no shuffle runs.
    rdd = spark.sparkContext.parallelize(inputs, len(inputs))
    rows = sorted(rdd.mapPartitionsWithIndex(partial(run_partition, spec)).collect(), key=lambda row: (row[0], row[1]))
    watermarks: list[int | None] = [None] * spec.parallelism
    seen: set[int] = set()
    emitted: list[tuple[int, str, list[Any]]] = []
    fired = late = written = 0
    for task, seq, stream, payload, watermark, task_fired, task_late, task_bytes in rows:
        if seq < 0:
            seen.add(task)
            watermarks[task] = watermark
            fired, late, written = fired + task_fired, late + task_late, written + (task_bytes or 0)
        else:
            emitted.append((task, stream, decode_values(payload)))
    if seen != set(range(spec.parallelism)):
        msg = f"stage {spec.component!r}: tasks {sorted(set(range(spec.parallelism)) - seen)} gave no answer"
        raise RuntimeError(msg)
    return StageResult(
        emitted, watermarks, fired, late, written, sum(len(q) for q in queues), (time.perf_counter() - started) * 1000,
    )


class DistributedExecutor(FlushingExecutor):
    """The ``foreachBatch`` function of a topology in distributed mode (see the module docstring).

    ``state_url`` is the backend's full URL (the executors open it themselves);
    ``backend`` is the driver's connection to it, for the shuffle counters.
    A bolt error fails the batch and is kept in :attr:`error`.
    """

    def __init__(
        self, topology: Topology, conf: Mapping[str, Any], clock: BatchClock, outputs: OutputLog,
        backend: StateBackend, name: str, spark: SparkSession, state_url: str,
    ) -> None:
        self.topology = topology
        self.conf = dict(conf)
        self.layout = BatchLayout(topology)
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
            self.run(batch_id, self.layout.decode(df.toArrow()))
        except BaseException as err:
            self.error = err
            raise

    def run(self, batch_id: int, spout_rows: Mapping[str, SpoutData]) -> None:
        """Run batch ``batch_id`` (again, after a failure or in a new process) on ``spout_rows``."""
        with self._lock:
            now = self.clock.time_of(batch_id, self.stats.last_time_ms)
            last = self.stats.last_batch_id
            if last is not None and batch_id <= last:
                self.stats.replays += 1
            outputs = self._run_stages(batch_id, spout_rows, now)
            self.outputs.write(batch_id, outputs)
            rows = sum(len(r) for r in spout_rows.values())
            self.metrics.record(BatchMetrics(
                batch_id=batch_id, input_rows=rows, time_ms=now, watermark=self.counters()[0],
                bolts=dict(self.bolt_metrics), replay=last is not None and batch_id <= last,
            ))
            if last is None or batch_id > last:
                self.stats.batches += 1
                self.stats.input_rows += rows
            self.stats.last_batch_id, self.stats.last_time_ms = batch_id, now
            self.stats.record_rows(batch_id, rows)

    def _run_stages(self, batch_id: int | None, spout_rows: Mapping[str, SpoutData],
                    now: int | None) -> list[Output]:
        router = Router(self.topology)
        # The shutdown flush (no batch id) routes on from where the last batch's shuffles ended, as driver mode does.
        start = self.counters_store.start_of(batch_id) if batch_id is not None else self.counters_store.at_end()
        router.counters = dict(start)
        route_spouts(router, self.topology, spout_rows)
        self.bolt_metrics = {}
        for bid in self.topology.order:
            spec = self._spec(bid, batch_id, now)
            result = run_stage(self.spark, spec, [router.take(bid, i) for i in range(spec.parallelism)])
            self.marks[bid] = result.watermarks
            self.bolt_metrics[bid] = result.metrics()
            self.windows_fired += result.fired
            self.late_tuples += result.late
            for task, stream, values in result.emitted:
                router.route(bid, task, stream, values)
        if batch_id is not None:
            self.counters_store.commit(batch_id, start, router.counters)
        return router.take_outputs()

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
        return self._run_stages(None, {}, None)
