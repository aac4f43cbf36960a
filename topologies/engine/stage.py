"""One bolt's stage of a batch: what each of its tasks is told, and the step every placement runs per task.

The batch loop walks the topology in *layers* (:func:`layers`: bolts that do
not read one another) and, for each bolt of a layer, makes a
:class:`StageSpec`. A placement runs each task of the stage with
:func:`run_stage_task`, wherever it runs it: take the task from a
:class:`TaskCache` (warm, or rebuilt from its store), run it on its input,
commit it, route its emissions (:func:`~topologies.engine.routing.route_emissions`)
and answer with a :class:`~topologies.engine.figures.TaskStatus`.

The warm cache keeps the tasks a process ran, with the batch id of each one's
last commit. A cached task is used again only when that id equals its store's
committed batch id (and the submission is the same); otherwise another process
ran it since, a commit failed, or Spark runs the batch again after a failure,
and the task is rebuilt from the store. A task is taken out of the cache while
it runs, so a failure never leaves a half-run task behind.

The cache lets go of a task it could never use warm again: one of an earlier
submission of the same topology, and one whose last commit is older than the
store's last commit of the task now running in the same submission (every task
of a submission commits every batch, so another process ran it since). A
Spark worker's cache also lets go of any task idle for longer than a Python
worker may sit idle before Spark stops it (:data:`WORKER_IDLE_SECONDS`): the
tasks of a query that has ended would otherwise stay in the worker's memory
for as long as other queries keep it busy.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bolts import BaseBolt, TaskOptions
from bolts.task_input import TaskInput, collector_paused
from state_backends import StateBackend
from topologies.engine.figures import TaskStatus
from topologies.engine.routing import CounterKey, RoutedSink, RoutingTable, TaskRoutes, route_emissions
from topologies.engine.stored_task import BuiltTask, build_task, close_task, run_stored
from topologies.engine.task_store import TaskStore, namespace_name
from topologies.engine.wire import emission_rows, emitted_count
from topologies.sinks.typed_outputs import StreamTypes
from topologies.topology import Topology


@dataclass(frozen=True)
class StageSpec:
    """One bolt's stage of one batch, as each of its tasks is told it; it travels to Spark's workers.

    ``batch_id`` and ``now_ms`` are None when the stage closes the tasks (the
    shutdown flush). ``watermark``: the lowest watermark of the bolts it reads;
    ``event_times``: the bolt's largest event times as the batch starts;
    ``after_flush``: the shutdown flush ran after the batch before
    (:meth:`BoltTask.resume_after_flush`); ``kept``: the bolt's streams a sink
    keeps on the executors, with their types; ``dropped``: its output streams
    no sink reads, whose tuples go nowhere.

    When a placement runs every layer of a batch in one go (one Spark job), a
    bolt's watermark is not known when its stage is made: ``watermark_from``
    names the bolts it reads, each with its task count, and its tasks take
    the lowest watermark of those bolts' tasks from the *marks* (status rows)
    they sent this batch (``watermark`` is then None); ``marks_to`` names the
    bolts reading this one, with their task counts, that each of its tasks
    sends its mark to. Both are empty when the batch loop walks the layers.
    """

    topology: str
    generation: str
    component: str
    bolt: BaseBolt
    parallelism: int
    inputs: tuple[tuple[str, str], ...]
    conf: dict[str, Any]
    state_url: str
    batch_id: int | None
    now_ms: int | None
    watermark: int | None
    event_times: Mapping[tuple[str, str], int] = field(default_factory=dict)
    after_flush: bool = False
    kept: Mapping[str, StreamTypes] = field(default_factory=dict)
    dropped: frozenset[str] = frozenset()
    watermark_from: Mapping[str, int] = field(default_factory=dict)
    marks_to: tuple[tuple[str, int], ...] = ()

    @property
    def closing(self) -> bool:
        """Whether the stage closes its tasks (the shutdown flush) rather than runs a batch."""
        return self.batch_id is None


def layers(topology: Topology) -> list[list[str]]:
    """The bolts by depth: a bolt reading only spouts is in layer 0, else one below the deepest bolt it reads.

    A layer's bolts read only spouts and earlier layers' bolts, each layer in
    topological order.
    """
    depth: dict[str, int] = {}
    for bid in topology.order:
        depth[bid] = 1 + max((depth[u] for u in topology.upstream(bid) if u in depth), default=-1)
    return [[b for b in topology.order if depth[b] == d] for d in range(1 + max(depth.values(), default=-1))]


class FiredCounter:
    """A task's window observer: counts activations."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, window: Any) -> None:
        """Count one activation."""
        self.count += 1


WORKER_IDLE_SECONDS = 60.0
"""How long a Spark worker keeps a task nobody runs: as long as Spark keeps an idle Python worker (one minute)."""


@dataclass
class _Warm:
    generation: str
    built: BuiltTask
    store: TaskStore
    fired: FiredCounter
    committed: int | None
    used: float = 0.0  # the cache's clock when the task last ran


@dataclass
class TaskResult:
    """What one task did in one stage: its emissions in order, watermark and figures."""

    emissions: list[Any]
    watermark: int | None
    fired: int
    late: int
    state_bytes: int
    event_times: Mapping[tuple[str, str], int] | None


class TaskCache:
    """The tasks a process keeps warm between batches (see the module docstring); ``backend`` opens a state URL.

    ``idle_seconds``: a task not run for longer is let go (None: kept while it
    can be used warm); ``clock`` measures it in seconds.
    """

    def __init__(self, backend: Callable[[str], StateBackend], idle_seconds: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.backend = backend
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.tasks: dict[tuple[str, str, str, int], _Warm] = {}
        self.builds = 0  # tasks built from the store (a first batch, a move, a replay)
        self.dropped = 0  # tasks let go unused: stale, of an earlier submission, or idle too long
        # Tasks let go that reference counting did not free (in reference cycles, they wait for the cyclic
        # collector), and tasks closed or failed, not watched: see topologies/engine/placements/worker_collector.py.
        self.left_to_collector = 0

    def run(self, spec: StageSpec, index: int, batch: TaskInput, routing: RoutingTable,
            starts: Mapping[CounterKey, int]) -> TaskResult:
        """Run (or close) task ``index`` of the stage on ``batch``, warm or rebuilt from its store."""
        key = (spec.state_url, spec.topology, spec.component, index)
        warm = self.tasks.pop(key, None)
        store = TaskStore(self.backend(spec.state_url).namespace(namespace_name(spec.topology, spec.component, index)))
        committed = store.committed_batch_id()
        self._let_go(spec, committed)
        if warm is None or warm.generation != spec.generation or warm.committed != committed:
            if warm is not None:  # a stale copy, replaced
                watched, warm = _watch(warm), None
                self._note_freed(watched)
            warm = self._build(spec, index, store, routing)
        task = warm.built.task
        if isinstance(task.routes, TaskRoutes):
            task.routes.begin(starts)
        warm.fired.count, late_before, bytes_before = 0, task.late_tuples, warm.store.bytes_written

        def figures() -> tuple[int, int]:
            return warm.fired.count, max(0, task.late_tuples - late_before)

        if spec.batch_id is None:
            emissions, done = close_task(warm.built, batch, spec.watermark, spec.event_times), figures()
        else:
            emissions, current, done = run_stored(warm.built, warm.store, spec.batch_id, batch, spec.now_ms,
                                                  spec.watermark, spec.event_times, spec.after_flush, figures)
            if current:  # a task whose attempt lost to another's commit is rebuilt from the store next time
                warm.committed, warm.used = spec.batch_id, self.clock()
                self.tasks[key] = warm
        if key not in self.tasks:  # closed, or its attempt lost: let go when this returns, not watched
            self.left_to_collector += 1
        written = warm.store.bytes_written - bytes_before
        return TaskResult(emissions, task.watermark, *done, written, task.event_time_maxima())

    def _let_go(self, spec: StageSpec, committed: int | None) -> None:
        """Drop the tasks that cannot run warm again, and those idle too long, before a task of ``spec`` runs.

        ``committed``: the last batch the running task's store committed; a
        cached task of the same submission with an older commit is stale.
        """
        now = self.clock()
        for key in list(self.tasks):
            warm = self.tasks[key]
            ours = key[:2] == (spec.state_url, spec.topology)
            stale = ours and (warm.generation != spec.generation or (
                committed is not None and (warm.committed is None or warm.committed < committed)))
            idle = self.idle_seconds is not None and now - warm.used > self.idle_seconds
            if stale or idle:
                watched = _watch(warm)
                del warm, self.tasks[key]
                self._note_freed(watched)
                self.dropped += 1

    def _note_freed(self, watched: list[weakref.ref[Any]]) -> None:
        """Count a task let go (nothing else refers to it now) whose task or bolt object reference counting left."""
        if any(ref() is not None for ref in watched):
            self.left_to_collector += 1

    def _build(self, spec: StageSpec, index: int, store: TaskStore, routing: RoutingTable) -> _Warm:
        self.builds += 1
        fired = FiredCounter()
        options = TaskOptions(spec.component, spec.inputs, index, spec.parallelism, spec.now_ms or 0, store, fired,
                              watermark_at_batch_end=True)
        built = build_task(spec.bolt, options, spec.conf, layout=routing.layout,
                           routes=TaskRoutes(routing, spec.component, index))
        return _Warm(spec.generation, built, store, fired, store.committed_batch_id())


def _watch(warm: _Warm) -> list[weakref.ref[Any]]:
    """Weak references to a warm task's task and bolt objects (a bolt of a class without them goes unwatched)."""
    refs = [weakref.ref(warm.built.task)]
    try:
        refs.append(weakref.ref(warm.built.task.bolt))
    except TypeError:  # __slots__ without __weakref__
        pass
    return refs


def run_stage_task(spec: StageSpec, index: int, batch: TaskInput, routing: RoutingTable,
                   starts: Mapping[CounterKey, int], tasks: TaskCache, sink: RoutedSink) -> TaskStatus:
    """Task ``index`` of the stage on its input: run it (:meth:`TaskCache.run`), route what it emitted, report.

    The status carries the counters its emissions moved and, for each stream a
    sink keeps on the executors, the types its values showed. Python's cyclic
    garbage collector waits until the task's emissions are committed and routed,
    as it waits while the task runs: a batch's many panes, encoded and routed one
    by one, would otherwise trigger collections that rescan every window.
    """
    started, builds = time.perf_counter(), tasks.builds
    with collector_paused():
        result = tasks.run(spec, index, batch, routing, starts)
        moved = route_emissions(routing, spec.component, index, result.emissions, starts, sink, spec.kept,
                                spec.dropped)
    types = []
    if spec.kept:
        for stream, columns in spec.kept.items():
            rows = [list(values) for e in result.emissions if e[0] == stream for values in emission_rows(e)]
            if rows:
                types.append((stream, shown_types(columns, rows)))
    times = None if result.event_times is None else tuple((c, s, ts) for (c, s), ts in result.event_times.items())
    received: dict[tuple[str, str], int] = {}
    for segment in batch.segments:
        if routing.position[segment.source_component] == 0:  # a spout's rows
            key = (segment.source_component, segment.stream)
            received[key] = received.get(key, 0) + len(segment)
    return TaskStatus(index, result.watermark, result.fired, result.late, result.state_bytes, len(batch),
                      emitted_count(result.emissions), tuple((s, b, n) for (_, _, s, b), n in moved.items()),
                      tuple(types),
                      times, tuple((c, s, n) for (c, s), n in received.items()), tasks.builds > builds,
                      (time.perf_counter() - started) * 1000)


def shown_types(columns: StreamTypes, rows: list[list[Any]]) -> str:
    """The types ``rows`` show (DDL of the inferred fields), checked against ``columns`` (TypeError on a misfit)."""
    from copy import deepcopy

    from topologies.sinks.typed_outputs import schema_ddl

    seen = deepcopy(columns)
    seen.observe(rows)
    return schema_ddl((f, t) for f, t in seen.pinned.items())
