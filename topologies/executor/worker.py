"""What runs in Spark's Python workers in distributed mode: one stage (one bolt) of one batch, per partition.

A partition holds rows ``(task, ordinal, payload)``: for each task of the bolt
that the partition got, one marker row (ordinal -1, so a task with no input
still runs and moves its time and watermark) and its input tuples (ordinal
0, 1, ...: their order in the batch; payload: :func:`wire.encode_tuple`). For
each task, in task order, the worker executes the tuples in ordinal order and
answers with one row per emitted tuple (``seq`` 0, 1, ...) and one status row
(``seq`` -1: the task's watermark, windows fired, late tuples).

The warm cache: a worker process keeps the tasks it ran in a module-level dict
keyed by (state URL, topology, component, task), with the batch id of the
task's last commit. It reuses a cached task only when that batch id equals the
store's committed batch id (and the submission is the same); otherwise another
process ran the task since, or a commit failed, and the task is rebuilt from
the store. A task is taken out of the cache while it runs, so a failure never
leaves a half-run task behind. Backends are opened once per worker process.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from bolts import BaseBolt, BaseWindowedBolt, BoltTask, Tuple
from state_backends import StateBackend, open_backend
from topologies.executor.stored import TaskStore, namespace_name, run_stored
from topologies.executor.tasks import EmitBuffer, build_task, run_task
from topologies.executor.wire import Emission, decode_tuple, encode_values

OUTPUT_SCHEMA = pa.schema([
    ("task", pa.int32()), ("seq", pa.int64()), ("stream", pa.string()), ("payload", pa.binary()),
    ("watermark", pa.int64()), ("fired", pa.int64()), ("late", pa.int64()),
])
OUTPUT_DDL = "task int, seq long, stream string, payload binary, watermark long, fired long, late long"


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
    task: BoltTask
    sink: EmitBuffer
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


@dataclass
class _Rows:
    columns: dict[str, list[Any]] = field(default_factory=lambda: {n: [] for n in OUTPUT_SCHEMA.names})

    def add(self, **values: Any) -> None:
        for name, column in self.columns.items():
            column.append(values.get(name))

    def batch(self) -> pa.RecordBatch:
        return pa.RecordBatch.from_pydict(self.columns, schema=OUTPUT_SCHEMA)


_BACKENDS: dict[str, StateBackend] = {}
_TASKS: dict[tuple[str, str, str, int], _Cached] = {}


def _backend(url: str) -> StateBackend:
    backend = _BACKENDS.get(url)
    if backend is None:
        backend = _BACKENDS[url] = open_backend(url)
    return backend


def run_partition(spec: StageSpec, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function: run every task present in the partition, in task order."""
    inputs: dict[int, list[tuple[int, bytes | None]]] = {}
    for batch in batches:
        tasks, ordinals, payloads = (batch.column(n).to_pylist() for n in ("task", "ordinal", "payload"))
        for task, ordinal, payload in zip(tasks, ordinals, payloads, strict=True):
            inputs.setdefault(task, []).append((ordinal, payload))
    rows = _Rows()
    for index in sorted(inputs):
        ordered = sorted(inputs[index], key=lambda row: row[0])
        tuples = [decode_tuple(payload) for ordinal, payload in ordered if ordinal >= 0 and payload is not None]
        result = run_one(spec, index, tuples)
        for seq, (stream, values) in enumerate(result.emissions):
            rows.add(task=index, seq=seq, stream=stream, payload=encode_values(values))
        rows.add(task=index, seq=-1, watermark=result.watermark, fired=result.fired, late=result.late)
    yield rows.batch()


def run_one(spec: StageSpec, index: int, tuples: list[Tuple]) -> TaskResult:
    """Run task ``index`` of the stage's bolt on ``tuples``: a windowed bolt from the warm cache or the store."""
    if not (isinstance(spec.bolt, BaseWindowedBolt) or spec.bolt.stores_task_state):
        return _run_stateless(spec, index, tuples)
    key = (spec.state_url, spec.topology, spec.component, index)
    cached = _TASKS.pop(key, None)
    store = TaskStore(_backend(spec.state_url).namespace(namespace_name(spec.topology, spec.component, index)))
    if cached is None or cached.generation != spec.generation or cached.committed != store.committed_batch_id():
        cached = _build(spec, index, store)
    task, fired = cached.task, cached.fired
    fired.count, late_before = 0, task.late_tuples
    if spec.closing:
        run_task(task, tuples, None, spec.watermark)
        task.close()
        emissions = cached.sink.take()
    else:
        if spec.batch_id is None:
            msg = "run_one: a stage that is not closing needs a batch id"
            raise ValueError(msg)
        emissions = run_stored(task, cached.store, cached.sink.items, spec.batch_id, tuples, spec.now_ms,
                               spec.watermark)
        cached.committed = spec.batch_id
        _TASKS[key] = cached
    return TaskResult(emissions, task.watermark, fired.count, max(0, task.late_tuples - late_before))


def _build(spec: StageSpec, index: int, store: TaskStore) -> _Cached:
    fired = FiredCounter()
    task, sink = build_task(
        spec.bolt, component=spec.component, index=index, parallelism=spec.parallelism, inputs=spec.inputs,
        conf=spec.conf, start_time_ms=spec.now_ms or 0, store=store, persist_windows=True, observer=fired,
    )
    return _Cached(spec.generation, task, sink, store, fired, store.committed_batch_id())


def _run_stateless(spec: StageSpec, index: int, tuples: list[Tuple]) -> TaskResult:
    task, sink = build_task(
        spec.bolt, component=spec.component, index=index, parallelism=spec.parallelism, inputs=spec.inputs,
        conf=spec.conf, start_time_ms=spec.now_ms or 0,
    )
    run_task(task, tuples, spec.now_ms, spec.watermark)
    if spec.closing:
        task.close()
    return TaskResult(sink.take(), task.watermark, 0, task.late_tuples)
