"""One task's stored life: built over its store, run on one batch, committed with the batch id, closed.

Every task squall runs lives this way, wherever it runs: in the process that
runs ``foreachBatch`` (the driver placement), in Spark's Python workers (the
distributed placement) and in :class:`~topologies.testing.BoltHarness`.

- :func:`build_task` builds a task of its own deep copy of the bolt (as Storm
  deserialises one instance per task) over its store, prepares it and brings
  the bolt's attributes to the last commit (the task resumes its own state
  while prepared).
- :func:`run_stored` runs it on a batch and commits, with the batch id, the
  task's state, the bolt's changed attributes and what the task emitted, in one
  atomic step; a task whose store holds the batch already re-sends its
  committed emissions instead of running (a replay).
- :func:`close_task` ends a bounded run (the shutdown flush) and commits nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bolts import BaseBolt, BoltTask, TaskOptions, make_task
from bolts.codecs.value_codec import pack_value, register_from_conf
from bolts.collector import EmitRoutes
from bolts.context import TopologyLayout
from bolts.instance_fields import FIELD_PREFIX, InstanceFields
from bolts.task_input import TaskInput, collector_paused
from topologies.engine.routing import TaskIds
from topologies.engine.task_store import FIGURES_KEY, OUTPUTS_KEY, Figures, TaskStore, check_not_ahead
from topologies.engine.wire import Emission, encode_emissions

if TYPE_CHECKING:
    import pyarrow as pa


class EmitBuffer:
    """A task's emit sink: keeps ``(stream, values)`` in emission order until taken."""

    def __init__(self) -> None:
        self.items: list[Emission] = []

    def __call__(self, stream: str, values: list[Any], task_id: int | None = None) -> None:
        """Keep one emitted tuple (with its target's task id when it was emitted direct).

        Task ids an earlier ``emit`` returned, emitted as a value, are kept as
        the plain list they are, as every other process reads them.
        """
        kept = values if type(values) is list else list(values)  # the collector's own copy of what was emitted
        if TaskIds in map(type, kept):
            kept = [list(v) if type(v) is TaskIds else v for v in kept]
        self.items.append((stream, kept) if task_id is None else (stream, kept, task_id))

    def extend(self, stream: str, rows: list[list[Any]]) -> None:
        """Keep many tuples emitted on ``stream``, in order: lists of values the emitter made and lets go of.

        For a task's own values (a windowed aggregation's panes), which hold no
        task ids from ``emit``: kept as they are, one call for many tuples.
        """
        self.items.extend([(stream, values) for values in rows])

    def table(self, stream: str, table: pa.Table) -> None:
        """Keep a table of tuples emitted on ``stream`` (``emit_table``) as one emission."""
        self.items.append((stream, table))

    def take(self) -> list[Emission]:
        """The emissions since the last call, in order."""
        items, self.items = self.items, []
        return items


@dataclass
class BuiltTask:
    """A prepared task, the sink its emissions go to, and its bolt's attributes as tracked since ``prepare()``."""

    task: BoltTask
    sink: EmitBuffer
    fields: InstanceFields


def build_task(
    bolt: BaseBolt, options: TaskOptions, conf: Mapping[str, Any], *, sink: EmitBuffer | None = None,
    layout: TopologyLayout | None = None, routes: EmitRoutes | None = None,
) -> BuiltTask:
    """A prepared task of ``bolt`` (its own deep copy) with ``options``, brought to its store's last commit.

    The task resumes its own state while prepared; the bolt's attributes are then
    set as the last commit left them. Emissions go to ``sink`` (a new
    :class:`EmitBuffer` by default). ``layout`` and ``routes`` give the task's
    context the topology and its collector the tasks each emission goes to.
    """
    sink = EmitBuffer() if sink is None else sink
    register_from_conf(conf)  # the classes the topology lets travel (Config.register_serialization)
    task = make_task(copy.deepcopy(bolt), options)
    task.layout, task.routes = layout, routes
    fields = InstanceFields(task.bolt, options.component)
    fields.track_prepare(lambda: task.prepare(dict(conf), sink))
    if options.store is not None:
        fields.restore(options.store.scan(FIELD_PREFIX))
    return BuiltTask(task, sink, fields)


def run_task(task: BoltTask, batch: TaskInput, now_ms: int | None, watermark: int | None,
             event_times: Mapping[tuple[str, str], int] | None = None, after_flush: bool = False) -> None:
    """Run one task on one batch: move time to ``now_ms``, execute the tuples, end the batch, take the watermark.

    ``event_times``: the largest event times the bolt's tasks saw before this
    batch, given to the task before the batch ends (Spark's shared watermark).
    ``after_flush``: the shutdown flush ran after the batch the task resumed
    from (:meth:`BoltTask.resume_after_flush`).

    Python's cyclic garbage collector waits until the batch is done: a batch
    adds hundreds of thousands of long-lived objects to the windows, and a
    collection every few hundred allocations would rescan them again and again.
    """
    with collector_paused():
        if after_flush:
            if event_times:
                task.observe_event_times(event_times)
            task.resume_after_flush()
        if now_ms is not None:
            task.advance_to(now_ms)
        if len(batch):
            task.execute_batch(batch)
        if event_times:
            task.observe_event_times(event_times)
        task.end_batch()
        if watermark is not None and task.accepts_watermarks:
            task.advance_watermark(watermark)
        task.check_failed()  # a tuple failed where no execute returned since (a timer's window, say)


def close_task(built: BuiltTask, batch: TaskInput, watermark: int | None,
               event_times: Mapping[tuple[str, str], int] | None = None) -> list[Emission]:
    """End of input: the task takes what is queued for it and the final watermark, then closes; what it emitted.

    Commits nothing: the flush can run again from the store and gives the same outputs.
    """
    built.sink.take()
    run_task(built.task, batch, None, watermark, event_times)
    built.task.close()
    return built.sink.take()


def run_stored(
    built: BuiltTask, store: TaskStore, batch_id: int, batch: TaskInput, now_ms: int | None,
    watermark: int | None, event_times: Mapping[tuple[str, str], int] | None = None, after_flush: bool = False,
    figures: Callable[[], Figures] | None = None,
) -> tuple[list[Emission], bool, Figures]:
    """Run a stored task on batch ``batch_id`` and commit it; its emissions, whether it is current, its figures.

    The emissions are in order; the flag says whether the task in memory is now
    the committed one. ``figures()``, read after the task ran, gives its windows
    fired and late tuples, committed with the batch. When the store already
    holds ``batch_id`` (a replay; the task must then have been built from the
    store), the task is not run and its committed emissions and figures are
    returned. When another attempt of the batch committed first, its emissions
    and figures are returned and the task in memory is not the committed one:
    rebuild it from the store before using it again. A bolt attribute that
    cannot be stored fails the batch before anything is written (``TypeError``
    naming bolt and attribute).
    """
    if check_not_ahead(store, batch_id, "foreachBatch") == batch_id:
        return store.committed_outputs(), True, store.committed_figures()
    task = built.task
    built.sink.take()
    run_task(task, batch, now_ms, watermark, event_times, after_flush)
    before_commit(task, batch_id)  # what its hooks emit or fail belongs to this batch
    out = built.sink.take()
    done = figures() if figures is not None else (0, 0)
    extra = {OUTPUTS_KEY: encode_emissions(out, task.component, task.task_index), FIGURES_KEY: pack_value(list(done))}
    if not commit_task(task, built.fields, store, batch_id, extra, hooks=False):
        # another attempt of this batch committed first: its outputs stand
        return store.committed_outputs(), False, store.committed_figures()
    return out, True, done


def before_commit(task: BoltTask, batch_id: int) -> None:
    """The bolt's pre-commit hooks (stateful bolts), then a tuple they failed fails the batch."""
    task.before_commit(batch_id)
    task.check_failed()


def commit_task(task: BoltTask, fields: InstanceFields, store: TaskStore, batch_id: int,
                extra: Mapping[bytes, bytes] | None = None, hooks: bool = True) -> bool:
    """Commit ``task`` with ``batch_id``: its own state, its bolt's changed attributes and ``extra``, atomically.

    False when the store holds ``batch_id`` already (nothing written). A
    failure writes nothing and leaves nothing staged for a later commit.
    ``hooks``: run the bolt's pre-commit hooks first (:func:`before_commit`;
    :func:`run_stored` runs them before it takes the batch's emissions).
    """
    if hooks:  # their attribute changes belong to this commit
        before_commit(task, batch_id)
    try:
        store.stage(*fields.writes())
        if extra:
            store.stage(extra)
        applied = task.commit(batch_id)
    except BaseException:
        store.unstage()  # nothing of a failed commit may ride along with a later one
        raise
    if applied:
        fields.committed()
    return applied
