"""Runs batches of tuples through a topology's bolt tasks, in-process, with no Spark.

Two steps stay apart so a distributed placement can reuse them: :class:`Router`
decides which task of a subscriber gets each emitted tuple, and :func:`run_task`
runs one task on the batch of tuples routed to it. Every task's state lives
behind the :class:`bolts.BoltTask` interface.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bolts import BoltTask, Tuple, make_task
from topologies.executor.memory_store import MemoryWindowStore
from topologies.topology import Topology

SPOUT_TASK = 0  # in driver mode one spout task reads all of a spout's rows


@dataclass(frozen=True)
class Output:
    """A tuple a bolt emitted on a stream no bolt subscribes to: one of the topology's results."""

    component: str
    task: int
    stream: str
    values: list[Any]


class Router:
    """Groups emitted tuples: appends each to the input queue of every task its groupings choose.

    Emissions on a stream nobody subscribes to become :class:`Output` records.
    Shuffle counters are part of the router's state, so routing is deterministic.
    """

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.queues: dict[str, list[list[Tuple]]] = {
            b: [[] for _ in range(spec.parallelism)] for b, spec in topology.bolts.items()
        }
        self.counters: dict[tuple[str, int, str, str], int] = {}
        self.outputs: list[Output] = []

    def route(self, component: str, task: int, stream: str, values: Sequence[Any]) -> None:
        """Deliver one emitted tuple to its subscribers' queues, or record it as an output."""
        subscribers = self.topology.subscribers.get((component, stream))
        if not subscribers:
            self.outputs.append(Output(component, task, stream, list(values)))
            return
        fields = self.topology.streams[component][stream]
        tup = Tuple(values, fields, stream, component, task)
        for bolt, grouping in subscribers:
            key = (component, task, stream, bolt)
            counter = self.counters.get(key, 0)
            self.counters[key] = counter + 1
            for target in grouping.targets(tup.values, fields, self.topology.bolts[bolt].parallelism, counter):
                self.queues[bolt][target].append(tup)

    def take(self, bolt: str, task: int) -> list[Tuple]:
        """The tuples queued for ``task`` of ``bolt``, emptying its queue."""
        queued, self.queues[bolt][task] = self.queues[bolt][task], []
        return queued

    def take_outputs(self) -> list[Output]:
        """The outputs recorded since the last call."""
        outputs, self.outputs = self.outputs, []
        return outputs


def takes_watermarks(task: BoltTask) -> bool:
    """Whether ``task`` accepts upstream watermarks (a processing-time windowed task does not)."""
    return task.accepts_watermarks


def run_task(task: BoltTask, tuples: Sequence[Tuple], now_ms: int | None, watermark: int | None) -> None:
    """Run one task on one batch: move time to ``now_ms``, execute the tuples, end the batch, take the watermark."""
    if now_ms is not None:
        task.advance_to(now_ms)
    for tup in tuples:
        task.execute(tup)
    task.end_batch()
    if watermark is not None and takes_watermarks(task):
        task.advance_watermark(watermark)


class _TaskSink:
    """The emit sink of one task: forwards to the router with the task's identity."""

    def __init__(self, router: Router, component: str, task: int) -> None:
        self.router, self.component, self.task = router, component, task

    def __call__(self, stream: str, values: list[Any]) -> None:
        self.router.route(self.component, self.task, stream, values)


class TopologyRuntime:
    """Every bolt task of a topology, in memory, moved one batch at a time in topological order.

    Tasks are built at ``start_time_ms`` from a deep copy of their bolt (each task
    has its own instance, as Storm deserialises one per task). The whole runtime
    can be deep-copied, which is how the driver executor snapshots it.
    """

    def __init__(self, topology: Topology, conf: Mapping[str, Any], start_time_ms: int) -> None:
        import copy

        self.topology = topology
        self.router = Router(topology)
        self.windows_fired = 0
        self.closed = False
        self.tasks: dict[str, list[BoltTask]] = {}
        for bid in topology.order:
            spec = topology.bolts[bid]
            inputs = [(s.component, s.stream) for s in spec.subscriptions]
            tasks = []
            for i in range(spec.parallelism):
                task = make_task(
                    copy.deepcopy(spec.bolt), component=bid, input_streams=inputs, start_time_ms=start_time_ms,
                    task_index=i, parallelism=spec.parallelism, observer=self._on_window,
                    store=MemoryWindowStore(),
                )
                task.prepare(dict(conf), _TaskSink(self.router, bid, i))
                tasks.append(task)
            self.tasks[bid] = tasks

    def _on_window(self, window: Any) -> None:
        self.windows_fired += 1

    def run_batch(self, batch_id: int, spout_rows: Mapping[str, Sequence[Sequence[Any]]], now_ms: int) -> list[Output]:
        """Move one batch through the bolts at processing time ``now_ms``; returns the outputs, in emission order.

        Each spout's rows become tuples on its stream, in row order; then each bolt,
        upstream first, runs every task (in task order) on the tuples routed to it.
        Stateful tasks commit with ``batch_id`` at the end.
        """
        for sid, rows in spout_rows.items():
            stream = self.topology.spouts[sid].spout.stream
            for row in rows:
                self.router.route(sid, SPOUT_TASK, stream, row)
        for bid in self.topology.order:
            watermark = self.upstream_watermark(bid)
            for i, task in enumerate(self.tasks[bid]):
                run_task(task, self.router.take(bid, i), now_ms, watermark)
        self._commit(batch_id)
        return self.router.take_outputs()

    def close(self) -> list[Output]:
        """End of input: each bolt, upstream first, takes what is queued, the final watermark, then closes."""
        for bid in self.topology.order:
            watermark = self.upstream_watermark(bid)
            for i, task in enumerate(self.tasks[bid]):
                run_task(task, self.router.take(bid, i), None, watermark)
                task.close()
        self.closed = True
        return self.router.take_outputs()

    def _commit(self, batch_id: int) -> None:
        for tasks in self.tasks.values():
            for task in tasks:
                commit: Callable[[int], Any] | None = getattr(task, "commit", None)
                if callable(commit):
                    commit(batch_id)

    def upstream_watermark(self, bolt: str) -> int | None:
        """The minimum watermark over the tasks of the bolts ``bolt`` subscribes to (None if one has none)."""
        marks = [t.watermark for up in self.topology.upstream(bolt) if up in self.tasks for t in self.tasks[up]]
        if not marks or any(m is None for m in marks):
            return None
        return min(m for m in marks if m is not None)

    @property
    def watermark(self) -> int | None:
        """The lowest watermark of any task that has one (None when none has)."""
        marks = [t.watermark for tasks in self.tasks.values() for t in tasks if t.watermark is not None]
        return min(marks) if marks else None

    @property
    def late_tuples(self) -> int:
        """Late tuples counted by all tasks."""
        return sum(t.late_tuples for tasks in self.tasks.values() for t in tasks)
