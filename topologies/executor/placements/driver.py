"""The driver placement: the batch comes to where ``foreachBatch`` runs, as Arrow, and the bolts run there.

Every task commits what the batch changed to the state backend (by default a
private ``memory://``), so nothing is copied per batch. When Spark runs the
last batch id again, every task is rebuilt from its store: those whose store
holds the batch re-send its committed emissions instead of running. A new
process (a submit that resumes from the checkpoint, or a Spark Connect
server's ``foreachBatch`` process) builds every task from the store the same
way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from topologies.executor.batch_layout import BatchLayout
from topologies.executor.placements.base import BatchResult, CounterKey
from topologies.executor.runtime import TopologyRuntime, count_rows
from topologies.executor.stored import BackendStores
from topologies.executor.tasks import EventTimes
from topologies.sinks.records import FINAL
from topologies.topology import Topology

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from state_backends import StateBackend
    from topologies.executor.delivery.sink_delivery import SinkDelivery


class DriverPlacement:
    """Every bolt task in this process, in one :class:`TopologyRuntime`."""

    shared_state: ClassVar[bool] = False

    def __init__(
        self, *, topology: Topology, conf: Mapping[str, Any], backend: StateBackend, name: str, state_url: str,
        spark: SparkSession | None = None,
    ) -> None:
        self.topology = topology
        self.conf = dict(conf)
        self.stores = BackendStores(backend, name)
        self.layout = BatchLayout(topology)
        self.runtime: TopologyRuntime | None = None
        self.last_run: int | None = None  # the last batch id this placement ran

    def source_of(self, df: DataFrame) -> Any:
        """The micro-batch as Arrow, per Spark partition (``toArrow`` brings it to this process)."""
        return self.layout.decode_partitions(self.layout.with_partition(df).toArrow())

    def source_of_rows(self, spout_rows: Mapping[str, Any]) -> Any:
        """The rows as they are: the runtime routes value lists and tables alike."""
        return spout_rows

    def run_batch(self, batch_id: int, source: Any, now_ms: int, start: Mapping[CounterKey, int],
                  sinks: SinkDelivery | None = None, event_times: EventTimes | None = None,
                  after_flush: bool = False) -> BatchResult:
        """Run the batch through the runtime (built from the store when there is none, or after a flush)."""
        if self.runtime is None or self.runtime.closed:  # closed by a flush: the tasks sit at the end of time
            self.runtime = TopologyRuntime(self.topology, self.conf, now_ms, self.stores)
        self.runtime.router.counters = dict(start)
        outputs = self.runtime.run_batch(batch_id, source, now_ms, event_times, after_flush)
        self.last_run = batch_id
        if sinks is not None:
            sinks.write(sinks.held(batch_id, outputs))
        return BatchResult(outputs, count_rows(source), dict(self.runtime.router.counters),
                           dict(self.runtime.bolt_metrics), self.runtime.event_times)

    def rewind(self, batch_id: int, last: int) -> None:
        """Rebuild every task from its store; a batch before the last one run cannot be run again here."""
        if batch_id < last:
            msg = (
                f"foreachBatch: Spark ran batch {batch_id} after batch {last}; the driver's window state is "
                "already past it (was the checkpoint location replaced or shared?)"
            )
            raise RuntimeError(msg)
        if self.runtime is not None:
            self.runtime.reload()

    def close_after(self, last: int, now_ms: int, counters: Mapping[CounterKey, int],
                    sinks: SinkDelivery | None = None, event_times: EventTimes | None = None) -> BatchResult:
        """Close the tasks in memory if they are the ones after ``last``, else tasks built from the store."""
        runtime = self.runtime
        if runtime is None or runtime.closed or self.last_run != last:
            # A new process, or one that ran no batch since: the tasks as the store holds them after `last`.
            runtime = TopologyRuntime(self.topology, self.conf, now_ms, self.stores)
            runtime.router.counters = dict(counters)
        self.runtime = runtime  # closed, it still answers counters(); a later batch rebuilds the tasks from the store
        outputs = runtime.close(event_times)
        if sinks is not None:
            sinks.write(sinks.held(FINAL, outputs))
        return BatchResult(outputs)

    def counters(self) -> tuple[int | None, int, int]:
        """The runtime's lowest watermark, windows fired and late tuples (zeros before any batch)."""
        runtime = self.runtime
        if runtime is None:
            return None, 0, 0
        return runtime.watermark, runtime.windows_fired, runtime.late_tuples
