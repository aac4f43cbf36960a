"""What runs in Spark's Python workers in distributed mode: one task of one bolt's stage of one batch.

:func:`run_one` runs task ``i`` of a stage on its input (an empty input still
runs the task, so it moves its time and watermark) and answers with its
emissions, watermark and figures; :mod:`topologies.executor.routed` calls it
from a bolt's stage, in the Spark partition of the task, and routes the emissions.

Every task, a plain bolt's too, resumes from and commits to its namespace of
the state store (:mod:`topologies.executor.stored`): its windows, its own
state and its bolt's attributes, so its next batch can run in any process.

The warm cache: a worker process keeps the tasks it ran in a module-level dict
keyed by (state URL, topology, component, task), with the batch id of the
task's last commit. It reuses a cached task only when that batch id equals the
store's committed batch id (and the submission is the same); otherwise another
process ran the task since, or a commit failed, and the task is rebuilt from
the store. A task is taken out of the cache while it runs, so a failure never
leaves a half-run task behind. Backends are opened once per worker process.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bolts import BaseBolt
from bolts.task_input import TaskInput
from state_backends import StateBackend, open_backend
from topologies.executor.routing import CounterKey, RoutingTable, TaskRoutes
from topologies.executor.stored import TaskStore, build_stored, namespace_name, run_stored
from topologies.executor.tasks import BuiltTask, run_task
from topologies.executor.wire import Emission
from topologies.sinks.typed_outputs import StreamTypes


@dataclass(frozen=True)
class StageSpec:
    """One bolt's stage of one batch, as shipped to the workers (``batch_id``/``now_ms`` None when closing)."""

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
    closing: bool = False
    kept: Mapping[str, StreamTypes] = field(default_factory=dict)  # this bolt's streams a sink keeps, and their types
    event_times: Mapping[tuple[str, str], int] = field(default_factory=dict)  # the bolt's, as the batch starts
    after_flush: bool = False  # the shutdown flush ran after the batch before (BoltTask.resume_after_flush)


class FiredCounter:
    """A task's window observer: counts activations."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, window: Any) -> None:
        """Count one activation."""
        self.count += 1


@dataclass
class _Cached:
    generation: str
    built: BuiltTask
    store: TaskStore
    fired: FiredCounter
    committed: int | None


@dataclass
class TaskResult:
    """What one task did in one stage."""

    emissions: list[Emission]
    watermark: int | None
    fired: int
    late: int
    state_bytes: int = 0
    event_times: Mapping[tuple[str, str], int] | None = None  # the task's largest event times, with Spark's watermark


_BACKENDS: dict[str, StateBackend] = {}
_TASKS: dict[tuple[str, str, str, int], _Cached] = {}


def _backend(url: str) -> StateBackend:
    backend = _BACKENDS.get(url)
    if backend is None:
        backend = _BACKENDS[url] = open_backend(url)
    return backend


def run_one(spec: StageSpec, index: int, batch: TaskInput, routing: RoutingTable | None = None,
            starts: Mapping[CounterKey, int] | None = None) -> TaskResult:
    """Run task ``index`` of the stage's bolt on ``batch``, from the warm cache or rebuilt from the store.

    ``routing`` and ``starts`` (the routing counters the batch starts with) let
    the task's ``emit`` return the task ids its tuples go to.
    """
    key = (spec.state_url, spec.topology, spec.component, index)
    cached = _TASKS.pop(key, None)
    store = TaskStore(_backend(spec.state_url).namespace(namespace_name(spec.topology, spec.component, index)))
    if cached is None or cached.generation != spec.generation or cached.committed != store.committed_batch_id():
        cached = _build(spec, index, store, routing)
    built, fired = cached.built, cached.fired
    task = built.task
    if isinstance(task.routes, TaskRoutes):
        task.routes.begin(starts or {})
    fired.count, late_before, bytes_before = 0, task.late_tuples, cached.store.bytes_written

    def figures() -> tuple[int, int]:
        return fired.count, max(0, task.late_tuples - late_before)

    if spec.closing:
        run_task(task, batch, None, spec.watermark, spec.event_times)
        task.close()
        emissions, done = built.sink.take(), figures()
    else:
        if spec.batch_id is None:
            msg = "run_one: a stage that is not closing needs a batch id"
            raise ValueError(msg)
        emissions, current, done = run_stored(built, cached.store, spec.batch_id, batch, spec.now_ms,
                                              spec.watermark, spec.event_times, spec.after_flush, figures)
        if current:  # a task whose attempt lost to another's commit is rebuilt from the store next time
            cached.committed = spec.batch_id
            _TASKS[key] = cached
    written = cached.store.bytes_written - bytes_before
    return TaskResult(emissions, task.watermark, *done, written, task.event_time_maxima())


def _build(spec: StageSpec, index: int, store: TaskStore, routing: RoutingTable | None) -> _Cached:
    fired = FiredCounter()
    built = build_stored(
        spec.bolt, store, component=spec.component, index=index, parallelism=spec.parallelism, inputs=spec.inputs,
        conf=spec.conf, start_time_ms=spec.now_ms or 0, observer=fired,
        layout=None if routing is None else routing.layout,
        routes=None if routing is None else TaskRoutes(routing, spec.component, index),
    )
    return _Cached(spec.generation, built, store, fired, store.committed_batch_id())
