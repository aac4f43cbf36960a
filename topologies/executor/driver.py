"""Driver placement: ``foreachBatch`` brings each batch to the driver as Arrow and runs the bolts there.

Every task commits what the batch changed to the state backend (by default a
private ``memory://``), so nothing is copied per batch. Replay: Spark runs a
batch id again when the query stopped after the batch's outputs were written
but before its commit. When the same batch id arrives again the executor
rebuilds every task from its store (those whose store holds the batch re-send
its committed emissions instead of running), reuses the batch's recorded
processing time, and rewrites the batch's outputs, so the replay gives exactly
what the first run gave. A new process (a submit that resumes from the
checkpoint) builds every task from the store the same way: with Redis or HBase
state nothing is lost; with ``memory://`` a new process starts empty.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from topologies.executor.batch_layout import BatchLayout, SpoutBatch
from topologies.executor.batch_log import BatchClock, OutputLog
from topologies.executor.flush_record import FlushingExecutor, FlushRecord
from topologies.executor.runtime import Output, SpoutData, TopologyRuntime, count_rows
from topologies.executor.stored import BackendStores, RouterCounters
from topologies.metrics import BatchMetrics, MetricsHistory
from topologies.topology import Topology

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from state_backends import StateBackend


KEEP_ROWS = 100  # batches whose row counts are kept; a replay needs only the last one


@dataclass
class BatchStats:
    """Counters the executor keeps for progress reports."""

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


class DriverExecutor(FlushingExecutor):
    """The ``foreachBatch`` function of a topology in driver mode.

    Call it as ``executor(df, batch_id)`` (what Spark does) or :meth:`run` with
    rows already decoded. A bolt error (a :class:`bolts.TupleError` for a bad
    tuple) fails the batch; it is kept in :attr:`error` for the handle to re-raise.
    Every task keeps its state in ``backend`` (default: a private
    ``memory://``) under the namespace ``<name>/<component>/<task>``; the
    shuffle counters go to ``<name>/__router``.
    """

    def __init__(
        self, topology: Topology, conf: Mapping[str, Any], clock: BatchClock, outputs: OutputLog,
        backend: StateBackend | None = None, name: str = "topology",
    ) -> None:
        if backend is None:
            from state_backends import open_backend

            backend = open_backend("memory://")
        self.topology = topology
        self.stores = BackendStores(backend, name)
        self.router_counters = RouterCounters(backend, name)
        self.flush_record = FlushRecord(backend, name)
        self.conf = dict(conf)
        self.layout = BatchLayout(topology)
        self.clock = clock
        self.outputs = outputs
        self.stats = BatchStats()
        self.metrics = MetricsHistory()  # the figures of the last batches, by batch id
        self.runtime: TopologyRuntime | None = None
        self.error: BaseException | None = None
        self.flushed = False
        self._lock = threading.Lock()

    def __call__(self, df: DataFrame, batch_id: int) -> None:
        """Run one Spark micro-batch."""
        try:
            self.run(batch_id, self.layout.decode_partitions(self.layout.with_partition(df).toArrow()))
        except BaseException as err:
            self.error = err
            raise

    def run(self, batch_id: int, spout_rows: Mapping[str, SpoutData] | SpoutBatch) -> None:
        """Run batch ``batch_id`` (again, if it is the last one run) on ``spout_rows``."""
        with self._lock:
            now = self.clock.time_of(batch_id, self.stats.last_time_ms)
            if self.runtime is None or self.runtime.closed:  # closed by a flush: the tasks sit at the end of time
                self.runtime = TopologyRuntime(self.topology, self.conf, now, self.stores)
            replay = self.stats.last_batch_id is not None and batch_id <= self.stats.last_batch_id
            self._rewind_for(batch_id, self.runtime)
            self.stats.last_batch_id, self.stats.last_time_ms = batch_id, now
            start = self.router_counters.start_of(batch_id)
            self.runtime.router.counters = dict(start)
            outputs = self.runtime.run_batch(batch_id, spout_rows, now)
            self.router_counters.commit(batch_id, start, self.runtime.router.counters)
            self.outputs.write(batch_id, outputs)
            rows = count_rows(spout_rows)
            self.stats.batches += 1
            self.stats.input_rows += rows
            self.stats.record_rows(batch_id, rows)
            self.metrics.record(BatchMetrics(
                batch_id=batch_id, input_rows=rows, time_ms=now, watermark=self.runtime.watermark,
                bolts=dict(self.runtime.bolt_metrics), replay=replay,
            ))

    def _rewind_for(self, batch_id: int, runtime: TopologyRuntime) -> None:
        last = self.stats.last_batch_id
        if last is None or batch_id > last:
            return
        if batch_id < last:
            msg = (
                f"foreachBatch: Spark ran batch {batch_id} after batch {last}; the driver's window state is "
                "already past it (was the checkpoint location replaced or shared?)"
            )
            raise RuntimeError(msg)
        runtime.reload()
        self.stats.replays += 1
        self.stats.batches -= 1
        self.stats.input_rows -= self.stats.rows_per_batch.get(batch_id, 0)

    def counters(self) -> tuple[int | None, int, int]:
        """The lowest task watermark (None if none has one), windows fired, and late tuples, so far."""
        runtime = self.runtime
        if runtime is None:
            return None, 0, 0
        return runtime.watermark, runtime.windows_fired, runtime.late_tuples

    def _last_batch(self) -> int | None:
        return self.router_counters.last_batch()

    def _close_after(self, last: int) -> list[Output]:
        runtime = self.runtime
        if runtime is None or runtime.closed or self.stats.last_batch_id != last:
            # A new process, or one that ran no batch since: the tasks as the store holds them after `last`.
            runtime = TopologyRuntime(self.topology, self.conf, self.clock.time_of(last, None), self.stores)
            runtime.router.counters = self.router_counters.at_end()
        self.runtime = runtime  # closed, it still answers counters(); a later batch rebuilds the tasks from the store
        return runtime.close()
