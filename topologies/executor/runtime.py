"""Runs batches of tuples through a topology's bolt tasks, in-process, with no Spark.

Two steps stay apart so a distributed placement can reuse them: :class:`Router`
decides which task of a subscriber gets each emitted tuple, and :func:`run_task`
runs one task on the batch of tuples routed to it. Every task's state lives
behind the :class:`bolts.BoltTask` interface and is committed to a state
backend with each batch (see :mod:`topologies.executor.stored`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from bolts import BoltTask
from bolts.task_input import TaskInput
from topologies.executor.batch_layout import SpoutBatch, SpoutStreams
from topologies.executor.routing import CounterKey, RoutingTable, TaskRoutes
from topologies.executor.stored import BackendStores, TaskStore, build_stored, run_stored
from topologies.executor.tasks import (
    BuiltTask,
    EventTimes,
    gather_event_times,
    lowest_watermark,
    run_task,
    takes_watermarks,
)
from topologies.executor.wire import Emission
from topologies.metrics import BoltMetrics
from topologies.sinks.records import Output
from topologies.topology import Topology

if TYPE_CHECKING:
    import pyarrow as pa

SPOUT_TASK = 0  # in driver mode one spout task reads all of a spout's rows


class Router:
    """Groups emitted tuples: appends each to the input of every task its groupings choose.

    Where each tuple goes is the :class:`~topologies.executor.routing.RoutingTable`'s
    answer, the one the distributed stages use too. A task's input is a
    :class:`bolts.TaskInput`: a spout's Arrow batch is cut into per-task
    tables with the groupings computed on columns (:meth:`Grouping.split`),
    and what bolts emit is appended as rows; no ``Tuple`` is built here.
    Emissions on a stream nobody subscribes to become :class:`Output` records.
    Shuffle counters are part of the router's state, so routing is deterministic.
    """

    def __init__(self, topology: Topology) -> None:
        self.routing = RoutingTable.of(topology)
        self.queues: dict[str, list[TaskInput]] = {
            b: [TaskInput() for _ in range(spec.parallelism)] for b, spec in topology.bolts.items()
        }
        self.counters: dict[CounterKey, int] = {}
        self.outputs: list[Output] = []
        self._batch_start: dict[CounterKey, int] = {}
        self._partition_seen: dict[tuple[CounterKey, int], int] = {}

    def begin_batch(self) -> None:
        """Mark the start of a batch: partition ``p`` of a spout's rows counts from the counter here plus ``p``."""
        self._batch_start = dict(self.counters)
        self._partition_seen = {}

    def route(self, component: str, task: int, stream: str, values: Sequence[Any], direct: int | None = None) -> None:
        """Deliver one emitted tuple to its subscribers' inputs, or record it as an output.

        ``direct``: the target task id of a tuple emitted with ``emit_direct``.
        """
        if self.routing.is_output(component, stream):
            self.outputs.append(Output(component, task, stream, list(values)))
            return
        fields = self.routing.fields(component, stream)
        for bolt, target in self.routing.row_targets(self.counters, component, task, stream, values, direct):
            self.queues[bolt][target].append_row(component, task, stream, fields, values)

    def route_table(self, component: str, task: int, stream: str, table: pa.Table, partition: int = 0) -> None:
        """Deliver a table of tuples (columns named as the stream's fields) read in Spark partition ``partition``.

        A shuffle counts partition ``p``'s rows from the counter the batch
        started with plus ``p`` (plus the rows of ``p`` routed before), so each
        partition can be routed on its own, on any executor, with the same
        result; in a batch of one partition this is :meth:`route` row by row.
        """
        fields = self.routing.fields(component, stream)
        if self.routing.is_output(component, stream):
            for values in zip(*(table.column(f).to_pylist() for f in fields), strict=True):
                self.outputs.append(Output(component, task, stream, list(values)))
            return

        def first_counter(key: CounterKey) -> int:
            seen = self._partition_seen.get((key, partition), 0)
            self._partition_seen[key, partition] = seen + table.num_rows
            self.counters[key] = self.counters.get(key, 0) + table.num_rows
            return self._batch_start.get(key, 0) + partition + seen

        for bolt, target, share in self.routing.table_shares(component, task, stream, table, first_counter):
            self.queues[bolt][target].append_table(component, task, stream, fields, share)

    def take(self, bolt: str, task: int) -> TaskInput:
        """The input queued for ``task`` of ``bolt``, emptying its queue."""
        queued, self.queues[bolt][task] = self.queues[bolt][task], TaskInput()
        return queued

    def take_outputs(self) -> list[Output]:
        """The outputs recorded since the last call."""
        outputs, self.outputs = self.outputs, []
        return outputs


# A spout's rows, a pyarrow.Table with a column per field, or SpoutStreams (tables on several streams).
SpoutData = Sequence[Sequence[Any]] | Any


def route_spouts(router: Router, topology: Topology, spout_rows: Mapping[str, SpoutData] | SpoutBatch) -> None:
    """Each spout's rows (or Arrow table) become tuples on its stream, in order, routed by ``router``.

    A :class:`SpoutBatch` is routed partition by partition, in its order; a
    mapping is one partition, number 0. A spout's :class:`SpoutStreams` are
    routed stream by stream, in their order (its tuples, then its malformed records).
    """
    router.begin_batch()
    parts = spout_rows.parts if isinstance(spout_rows, SpoutBatch) else [(0, spout_rows)]
    for partition, rows in parts:
        for sid, data in rows.items():
            stream = topology.spouts[sid].spout.stream
            if isinstance(data, SpoutStreams):
                for name, table in data.tables.items():
                    router.route_table(sid, SPOUT_TASK, name, table, partition)
            elif hasattr(data, "num_rows"):
                router.route_table(sid, SPOUT_TASK, stream, data, partition)
            else:
                for row in data:
                    router.route(sid, SPOUT_TASK, stream, row)


def count_rows(spout_rows: Mapping[str, SpoutData] | SpoutBatch) -> int:
    """The rows of a batch's spouts."""
    return len(spout_rows) if isinstance(spout_rows, SpoutBatch) else sum(len(r) for r in spout_rows.values())


__all__ = [
    "Output", "Router", "SpoutData", "TaskSlot", "TopologyRuntime", "count_rows", "route_spouts", "run_task",
    "takes_watermarks",
]

StoreFactory = Callable[[str, int], TaskStore]


@dataclass
class TaskSlot:
    """One task of a bolt in the runtime: the built task, and its store."""

    component: str
    index: int
    built: BuiltTask
    store: TaskStore

    @property
    def task(self) -> BoltTask:
        """The running task."""
        return self.built.task


class TopologyRuntime:
    """Every bolt task of a topology, moved one batch at a time in topological order.

    Tasks are built at ``start_time_ms`` from a deep copy of their bolt (each
    task has its own instance, as Storm deserialises one per task). Every task
    keeps its state in the store ``stores(component, index)`` gives it
    (default: a private ``memory://`` backend): it resumes from it when built
    and commits what changed with every batch, windows, own state and the
    bolt's attributes alike, as in distributed mode. A batch costs what its
    tuples change, never a copy of the windows; a replay rebuilds the tasks
    from the store (:meth:`reload`).
    """

    def __init__(
        self, topology: Topology, conf: Mapping[str, Any], start_time_ms: int, stores: StoreFactory | None = None,
    ) -> None:
        self.topology = topology
        self.conf = dict(conf)
        self.start_time_ms = start_time_ms
        self.stores = stores if stores is not None else _private_stores()
        self.router = Router(topology)
        self.windows_fired = 0
        self._fired_before = 0  # windows fired when the current batch started
        self.fired_by_bolt: dict[str, int] = {}
        self.bolt_metrics: dict[str, BoltMetrics] = {}  # each bolt's figures in the last batch run
        self.closed = False
        self.event_times: EventTimes = {}  # what the last batch ended with (gather_event_times)
        self.tasks: dict[str, list[TaskSlot]] = {
            bid: [self._slot(bid, i) for i in range(topology.bolts[bid].parallelism)] for bid in topology.order
        }

    def _slot(self, bid: str, index: int) -> TaskSlot:
        spec = self.topology.bolts[bid]
        store = self.stores(bid, index)
        built = build_stored(
            spec.bolt, store, component=bid, index=index, parallelism=spec.parallelism,
            inputs=[(s.component, s.stream) for s in spec.subscriptions], conf=self.conf,
            start_time_ms=self.start_time_ms, observer=partial(self._on_window, bid),
            layout=self.topology.layout, routes=TaskRoutes(self.router.routing, bid, index),
        )
        return TaskSlot(bid, index, built, store)

    def _on_window(self, bid: str, window: Any) -> None:
        self.windows_fired += 1
        self.fired_by_bolt[bid] = self.fired_by_bolt.get(bid, 0) + 1

    def reload(self) -> None:
        """Rebuild every task from its store's last commit (a batch is run again after a failure)."""
        self.router = Router(self.topology)
        self.windows_fired = self._fired_before
        for bid, slots in self.tasks.items():
            for slot in slots:
                self.tasks[bid][slot.index] = self._slot(bid, slot.index)

    def run_batch(self, batch_id: int, spout_rows: Mapping[str, SpoutData] | SpoutBatch, now_ms: int,
                  event_times: EventTimes | None = None, after_flush: bool = False) -> list[Output]:
        """Move one batch through the bolts at processing time ``now_ms``; returns the outputs, in emission order.

        ``event_times``: the bolts' largest event times the batch starts with;
        :attr:`event_times` holds what it ends with (:func:`topologies.executor.tasks.gather_event_times`).
        ``after_flush``: the shutdown flush ran after the batch before (:meth:`BoltTask.resume_after_flush`).

        Each spout's rows (or Arrow table) become tuples on its stream, in row order; then each bolt,
        upstream first, runs every task (in task order) on the tuples routed to it,
        and routes what the task emitted. A stored task commits with ``batch_id``
        right after it ran; one whose store holds ``batch_id`` already re-sends
        its committed emissions instead of running.
        """
        self._fired_before = self.windows_fired
        self.bolt_metrics = {}
        route_spouts(self.router, self.topology, spout_rows)
        start = event_times or {}
        self.event_times = {bid: dict(seen) for bid, seen in start.items()}
        for bid in self.topology.order:
            self.bolt_metrics[bid] = self._run_bolt(bid, batch_id, now_ms, start.get(bid), after_flush)
            gather_event_times(self.event_times, bid, (s.task.event_time_maxima() for s in self.tasks[bid]))
        return self.router.take_outputs()

    def _run_bolt(self, bid: str, batch_id: int, now_ms: int, event_times: Mapping[Any, int] | None,
                  after_flush: bool) -> BoltMetrics:
        started, fired_before = time.perf_counter(), self.fired_by_bolt.get(bid, 0)
        watermark = self.upstream_watermark(bid)
        tuples_in = tuples_out = late = written = 0
        for slot in self.tasks[bid]:
            queued = self.router.take(bid, slot.index)
            late_before, bytes_before = slot.task.late_tuples, slot.store.bytes_written
            slot_fired_before = self.fired_by_bolt.get(bid, 0)

            def figures(slot: TaskSlot = slot, late_before: int = late_before, before: int = slot_fired_before
                        ) -> tuple[int, int]:
                return self.fired_by_bolt.get(bid, 0) - before, max(0, slot.task.late_tuples - late_before)

            if isinstance(slot.task.routes, TaskRoutes):
                slot.task.routes.begin(self.router.counters)
            emissions, current, (fired, slot_late) = run_stored(slot.built, slot.store, batch_id, queued, now_ms,
                                                                watermark, event_times, after_flush, figures)
            # A task that committed this batch before (a replay) did not run: its committed windows count.
            unseen = fired - (self.fired_by_bolt.get(bid, 0) - slot_fired_before)
            self.fired_by_bolt[bid] = self.fired_by_bolt.get(bid, 0) + unseen
            self.windows_fired += unseen
            tuples_in, tuples_out = tuples_in + len(queued), tuples_out + len(emissions)
            late += slot_late
            written += slot.store.bytes_written - bytes_before
            if not current:
                self.tasks[bid][slot.index] = self._slot(bid, slot.index)
            self._route(slot, emissions)
        return BoltMetrics(
            tuples_in=tuples_in, tuples_out=tuples_out, windows_fired=self.fired_by_bolt.get(bid, 0) - fired_before,
            late_tuples=late, state_bytes=written, batch_ms=(time.perf_counter() - started) * 1000,
            watermark=lowest_watermark(s.task.watermark for s in self.tasks[bid]),
        )

    def _route(self, slot: TaskSlot, emissions: list[Emission]) -> None:
        for stream, values, *direct in emissions:
            self.router.route(slot.component, slot.index, stream, values, *direct)

    def close(self, event_times: EventTimes | None = None) -> list[Output]:
        """End of input: each bolt, upstream first, takes what is queued, the final watermark, then closes.

        ``event_times``: the bolts' largest event times the last batch ended with.
        """
        for bid in self.topology.order:
            watermark = self.upstream_watermark(bid)
            for slot in self.tasks[bid]:
                if isinstance(slot.task.routes, TaskRoutes):
                    slot.task.routes.begin(self.router.counters)
                run_task(slot.task, self.router.take(bid, slot.index), None, watermark, (event_times or {}).get(bid))
                slot.task.close()
                self._route(slot, slot.built.sink.take())
        self.closed = True
        return self.router.take_outputs()

    def upstream_watermark(self, bolt: str) -> int | None:
        """The minimum watermark over the tasks of the bolts ``bolt`` subscribes to (None if one has none)."""
        ups = [up for up in self.topology.upstream(bolt) if up in self.tasks]
        return lowest_watermark(s.task.watermark for up in ups for s in self.tasks[up])

    @property
    def watermark(self) -> int | None:
        """The lowest watermark of any task that has one (None when none has)."""
        marks = [s.task.watermark for slots in self.tasks.values() for s in slots if s.task.watermark is not None]
        return min(marks) if marks else None

    @property
    def late_tuples(self) -> int:
        """Late tuples counted by all tasks."""
        return sum(s.task.late_tuples for slots in self.tasks.values() for s in slots)


def _private_stores() -> StoreFactory:
    from state_backends import open_backend

    return BackendStores(open_backend("memory://"), "topology")
