"""The batch loop: one executor owns every micro-batch and hands the bolts' work to a placement.

:class:`BatchExecutor` is the ``foreachBatch`` body of every topology, whatever
its placement (:mod:`topologies.executor.placements`). Per batch it

- takes the batch's processing time from the batch log (recorded the first
  time the batch runs, reused when Spark runs it again);
- starts the shuffle counters from what the batch started with before, if it
  was committed (:class:`~topologies.executor.stored.RouterCounters`), so a
  replayed batch routes as its first run did;
- has the placement run the bolts, then commits the counters, writes the
  outputs (replacing a replayed batch's) and records the batch's figures;
- runs the shutdown flush once per last batch (:class:`FlushingExecutor`).

Replay: Spark runs a batch id again when the query stopped after the batch's
outputs were written but before Spark's commit; the placement forgets what
was not committed (:meth:`Placement.rewind`) and every task whose store holds
the batch re-sends its committed emissions instead of running.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bolts.codecs.value_codec import register_from_conf
from topologies.executor.batch_layout import SpoutBatch
from topologies.executor.batch_log import BatchClock, OutputLog
from topologies.executor.flush_record import FlushingExecutor, FlushRecord
from topologies.executor.placements import DistributedPlacement, DriverPlacement, Placement
from topologies.executor.remote.run_files import RunWriter
from topologies.executor.runtime import Output, SpoutData
from topologies.executor.stored import RouterCounters, task_namespaces
from topologies.failures import reported_to_spark
from topologies.metrics import BatchMetrics, MetricsHistory
from topologies.topology import Topology

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from state_backends import StateBackend
    from topologies.executor.delivery.sink_delivery import SinkDelivery
    from topologies.executor.stage_engines import StageEngine

KEEP_ROWS = 100  # batches whose row counts are kept; a replay needs only the last one


@dataclass
class BatchStats:
    """Counters the executor keeps for progress reports: committed batches, their rows, replays."""

    batches: int = 0
    input_rows: int = 0
    replays: int = 0
    last_batch_id: int | None = None
    last_time_ms: int | None = None
    rows_per_batch: dict[int, int] = field(default_factory=dict)  # the last KEEP_ROWS batches'

    def record_rows(self, batch_id: int, rows: int) -> None:
        """Record ``rows`` for ``batch_id``; only the last :data:`KEEP_ROWS` batches are kept (long runs stay flat)."""
        self.rows_per_batch[batch_id] = rows
        self.rows_per_batch.pop(batch_id - KEEP_ROWS, None)


class BatchExecutor(FlushingExecutor):
    """The ``foreachBatch`` function of a topology: the batch loop around a :class:`Placement`.

    Call it as ``executor(df, batch_id)`` (what Spark does) or :meth:`run`
    with rows already decoded. A bolt error (a :class:`bolts.TupleError` for a
    bad tuple) fails the batch; it is kept in :attr:`error` for the handle to
    re-raise. The shuffle counters and the flush record live in ``backend``
    under ``<name>/__router`` and ``<name>/__flush``. With ``run_writer``
    the outputs and figures are also written for a client in another process. ``sinks`` are
    given each batch's outputs by the placement, before the batch returns to Spark. A backend with a
    ``hold()`` context (a journaled store) makes each batch's commits durable
    together when the batch ends.
    """

    def __init__(
        self, topology: Topology, conf: Mapping[str, Any], clock: BatchClock, outputs: OutputLog,
        placement: Placement, backend: StateBackend, name: str = "topology", run_writer: RunWriter | None = None,
        sinks: SinkDelivery | None = None,
    ) -> None:
        self.run_writer = run_writer
        self.sinks = sinks
        register_from_conf(conf)  # outputs read here may hold registered objects (Spark Connect's server too)
        self.topology = topology
        self.conf = dict(conf)
        self.placement = placement
        self.backend = backend
        self.name = name
        self.clock = clock
        self.outputs = outputs
        self.counters_store = RouterCounters(backend, name)
        self.flush_record = FlushRecord(backend, name)
        self.stats = BatchStats()
        self.metrics = MetricsHistory()  # the figures of the last batches, by batch id
        self.error: BaseException | None = None
        self.flushed = False
        self._lock = threading.Lock()

    def __call__(self, df: DataFrame, batch_id: int) -> None:
        """Run one Spark micro-batch."""
        if self.sinks is not None:
            self.sinks.spark = df.sparkSession  # the sinks write with the session of the batches
        try:
            self.run(batch_id, self.placement.source_of(df), decoded=True)
        except BaseException as err:
            self.error = err  # raised by the handle; Spark gets a short report (see topologies.failures)
            raise reported_to_spark(err, batch_id) from None

    def run(self, batch_id: int, source: Mapping[str, SpoutData] | SpoutBatch | Any, decoded: bool = False) -> None:
        """Run batch ``batch_id`` (again, if it is the last one run) on ``source``.

        ``source``: each spout's rows (value lists or an Arrow table, all read
        in one partition), or, with ``decoded``, what the placement made of a
        micro-batch (:meth:`Placement.source_of`).
        """
        if not decoded and isinstance(source, Mapping):
            source = self.placement.source_of_rows(source)
        with self._lock, self._held():
            started = self.clock.started(batch_id)  # by this process or an earlier one (then Spark runs it again)
            now = self.clock.time_of(batch_id, self.stats.last_time_ms)
            last = self.stats.last_batch_id
            rerun = last is not None and batch_id <= last
            if rerun:
                self.placement.rewind(batch_id, last)  # type: ignore[arg-type]
            replay = rerun or started  # counted once the batch completes: a failed attempt is no replay done
            # From here the placement may have run part of the batch: if it fails, Spark runs it again.
            self.stats.last_batch_id, self.stats.last_time_ms = batch_id, now
            start = self.counters_store.start_of(batch_id)
            times = self.counters_store.event_times_of(batch_id)
            after_flush = self.flush_record.done_after(batch_id - 1)
            result = self.placement.run_batch(batch_id, source, now, start, self.sinks, times, after_flush)
            self.counters_store.commit(batch_id, start, result.counters, times, result.event_times)
            self.outputs.write(batch_id, result.outputs)
            if batch_id in self.stats.rows_per_batch:  # a completed batch run again counts once
                self.stats.batches -= 1
                self.stats.input_rows -= self.stats.rows_per_batch[batch_id]
            self.stats.batches += 1
            self.stats.input_rows += result.rows
            self.stats.record_rows(batch_id, result.rows)
            self.stats.replays += replay
            metrics = BatchMetrics(batch_id=batch_id, input_rows=result.rows, time_ms=now,
                                   watermark=self.counters()[0], bolts=result.bolts, replay=replay)
            self.metrics.record(metrics)
            if self.run_writer is not None:
                self.run_writer.write_metrics(metrics, self.totals())

    def totals(self) -> dict[str, Any]:
        """The run's figures so far: batches, input rows, replays, lowest watermark, windows fired, late tuples."""
        watermark, fired, late = self.counters()
        return {"batches": self.stats.batches, "input_rows": self.stats.input_rows, "replays": self.stats.replays,
                "last_batch_id": self.stats.last_batch_id, "watermark": watermark, "windows_fired": fired,
                "late_tuples": late}

    def _held(self) -> contextlib.AbstractContextManager[Any]:
        hold = getattr(self.backend, "hold", None)
        return hold() if callable(hold) else contextlib.nullcontext()

    def counters(self) -> tuple[int | None, int, int]:
        """The lowest task watermark (None if none has one), windows fired, and late tuples, so far."""
        return self.placement.counters()

    def _last_batch(self) -> int | None:
        return self.counters_store.last_batch()

    def _tasks_ahead_of(self, last: int) -> list[str]:
        ahead = []
        for namespace in task_namespaces(self.name, self.topology.bolts):
            committed = self.backend.namespace(namespace).committed_batch_id()
            if committed is not None and committed > last:
                ahead.append(namespace)
        return ahead

    def _close_after(self, last: int) -> list[Output]:
        now = self.clock.time_of(last, None)
        return self.placement.close_after(last, now, self.counters_store.at_end(), self.sinks,
                                          self.counters_store.event_times_at_end()).outputs


class DriverExecutor(BatchExecutor):
    """A :class:`BatchExecutor` with the driver placement (state by default in a private ``memory://``)."""

    def __init__(
        self, topology: Topology, conf: Mapping[str, Any], clock: BatchClock, outputs: OutputLog,
        backend: StateBackend | None = None, name: str = "topology",
    ) -> None:
        if backend is None:
            from state_backends import open_backend

            backend = open_backend("memory://")
        placement = DriverPlacement(topology=topology, conf=conf, backend=backend, name=name, state_url="memory://")
        super().__init__(topology, conf, clock, outputs, placement, backend, name)


class DistributedExecutor(BatchExecutor):
    """A :class:`BatchExecutor` with the distributed placement over the store at ``state_url``."""

    def __init__(
        self, topology: Topology, conf: Mapping[str, Any], clock: BatchClock, outputs: OutputLog,
        backend: StateBackend, name: str, spark: SparkSession | None, state_url: str,
        engine: StageEngine | None = None,
    ) -> None:
        placement = DistributedPlacement(topology=topology, conf=conf, backend=backend, name=name,
                                         state_url=state_url, spark=spark, engine=engine)
        super().__init__(topology, conf, clock, outputs, placement, backend, name)
