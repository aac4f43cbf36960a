"""The placement protocol: where a batch's bolt tasks run, behind one interface the batch loop calls.

The batch loop (:class:`~topologies.executor.batch_executor.BatchExecutor`) owns
everything about a batch that does not depend on where the bolts run: its
processing time, the shuffle counters it starts and ends with, replay, the
outputs, the figures and the shutdown flush. A *placement* runs the bolts: it
turns Spark's micro-batch into what it reads (:meth:`Placement.source_of`),
moves one batch through every bolt task (:meth:`Placement.run_batch`) and
closes every task for the flush (:meth:`Placement.close_after`).

A new placement is one module beside ``driver.py`` and ``distributed.py``
holding a class with these methods, and one line in the registry
(:data:`topologies.executor.placements.PLACEMENTS`); the runner and the CLI
take it by name (``mode=``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from topologies.executor.routing import CounterKey
from topologies.executor.runtime import Output
from topologies.executor.tasks import EventTimes
from topologies.metrics import BoltMetrics

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from topologies.executor.delivery.sink_delivery import SinkDelivery



@dataclass
class BatchResult:
    """What a placement reports after one batch (or the flush).

    ``outputs``: the terminal outputs in emission order; ``rows``: the spout
    rows the batch held; ``counters``: the shuffle counters the batch ended
    with; ``bolts``: each bolt's figures, in topological order;
    ``event_times``: the bolts' largest event times it ended with
    (:func:`topologies.executor.tasks.gather_event_times`; empty unless a bolt keeps Spark's watermark).
    """

    outputs: list[Output]
    rows: int = 0
    counters: dict[CounterKey, int] = field(default_factory=dict)
    bolts: dict[str, BoltMetrics] = field(default_factory=dict)
    event_times: EventTimes = field(default_factory=dict)


class Placement(Protocol):
    """Runs a topology's bolt tasks somewhere; the batch loop hands it each batch.

    ``shared_state``: whether its tasks run in other processes than the batch
    loop's, so their state must live in a store every process reaches (a
    ``memory://`` backend is then refused when the runner is built).
    """

    shared_state: ClassVar[bool]

    def source_of(self, df: DataFrame) -> Any:
        """What :meth:`run_batch` reads, from Spark's micro-batch ``df``."""
        ...

    def source_of_rows(self, spout_rows: Mapping[str, Any]) -> Any:
        """What :meth:`run_batch` reads, from each spout's rows (value lists or a table) read in one partition."""
        ...

    def run_batch(self, batch_id: int, source: Any, now_ms: int, start: Mapping[CounterKey, int],
                  sinks: SinkDelivery | None = None, event_times: EventTimes | None = None,
                  after_flush: bool = False) -> BatchResult:
        """Move batch ``batch_id`` through every bolt at processing time ``now_ms``, shuffles counting from ``start``.

        ``event_times``: the bolts' largest event times the batch starts with;
        ``after_flush``: the shutdown flush ran after the batch before, so each
        task resumed from the store redoes it first (``run_task(..., after_flush)``).

        Each task commits its state with ``batch_id``; a task whose store holds
        ``batch_id`` already re-sends its committed emissions instead of running.
        ``sinks`` are given the batch's outputs before it returns (a placement
        may leave the streams they keep out of :attr:`BatchResult.outputs`).
        """
        ...

    def rewind(self, batch_id: int, last: int) -> None:
        """Spark runs ``batch_id`` again after ``last`` ran (``batch_id <= last``): forget what was not committed."""
        ...

    def close_after(self, last: int, now_ms: int, counters: Mapping[CounterKey, int],
                    sinks: SinkDelivery | None = None, event_times: EventTimes | None = None) -> BatchResult:
        """End of input: close every task as the store holds it after batch ``last``; commits nothing.

        ``sinks`` are given the flush's outputs (key ``"final"``); ``event_times``
        the bolts' largest event times batch ``last`` ended with.
        """
        ...

    def counters(self) -> tuple[int | None, int, int]:
        """The lowest task watermark (None if none has one), windows fired and late tuples, so far."""
        ...
