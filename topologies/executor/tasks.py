"""Building one bolt task and running it on one batch.

Every task squall runs is built here: by the driver placement, in Spark's
Python workers, and by :class:`~topologies.testing.BoltHarness`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bolts import BaseBolt, BoltTask, TaskOptions, make_task
from bolts.codecs.value_codec import register_from_conf
from bolts.collector import EmitRoutes
from bolts.context import TopologyLayout
from bolts.instance_fields import InstanceFields
from bolts.task_input import TaskInput, collector_paused
from topologies.executor.routing import TaskIds
from topologies.executor.wire import Emission


class EmitBuffer:
    """A task's emit sink: keeps ``(stream, values)`` in emission order until taken."""

    def __init__(self) -> None:
        self.items: list[Emission] = []

    def __call__(self, stream: str, values: list[Any], task_id: int | None = None) -> None:
        """Keep one emitted tuple (with its target's task id when it was emitted direct).

        Task ids an earlier ``emit`` returned, emitted as a value, are kept as
        the plain list they are, as every other process reads them.
        """
        kept = list(values)
        if TaskIds in map(type, kept):
            kept = [list(v) if type(v) is TaskIds else v for v in kept]
        self.items.append((stream, kept) if task_id is None else (stream, kept, task_id))

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
    bolt: BaseBolt, *, component: str, index: int, parallelism: int, inputs: Iterable[tuple[str, str]],
    conf: Mapping[str, Any], start_time_ms: int, store: Any = None,
    observer: Callable[[Any], None] | None = None, sink: EmitBuffer | None = None,
    watermark_at_batch_end: bool = True, layout: TopologyLayout | None = None, routes: EmitRoutes | None = None,
) -> BuiltTask:
    """A prepared task of ``bolt`` (its own deep copy, as Storm gives each task its own instance) and its sink.

    With a ``store`` that holds a commit, the task resumes its windows from it
    while prepared (:func:`~topologies.executor.stored.resume` then sets the
    bolt's attributes). Emissions go to ``sink`` (a new :class:`EmitBuffer`
    by default). With ``watermark_at_batch_end`` event-time tasks emit their
    watermark at the end of every batch (as Spark's ``withWatermark`` moves at
    batch boundaries) as well as on their watermark interval, so a run's
    windows and late tuples do not depend on machine speed. ``layout`` and
    ``routes`` give the task's context the topology and its collector the
    tasks each emission goes to.
    """
    sink = EmitBuffer() if sink is None else sink
    register_from_conf(conf)  # the classes the topology lets travel (Config.register_serialization)
    options = TaskOptions(component, tuple(inputs), index, parallelism, start_time_ms, store, observer,
                          watermark_at_batch_end)
    task = make_task(copy.deepcopy(bolt), options)
    task.layout, task.routes = layout, routes
    fields = InstanceFields(task.bolt, component)
    fields.track_prepare(lambda: task.prepare(dict(conf), sink))
    return BuiltTask(task, sink, fields)


def takes_watermarks(task: BoltTask) -> bool:
    """Whether ``task`` accepts upstream watermarks (a processing-time windowed task does not)."""
    return task.accepts_watermarks


def run_task(task: BoltTask, batch: TaskInput, now_ms: int | None, watermark: int | None,
             event_times: Mapping[tuple[str, str], int] | None = None, after_flush: bool = False) -> None:
    """Run one task on one batch: move time to ``now_ms``, execute the tuples, end the batch, take the watermark.

    ``event_times``: the largest event times the bolt's tasks saw before this
    batch, given to the task before the batch ends (Spark's shared watermark,
    :func:`gather_event_times`). ``after_flush``: the shutdown flush ran after
    the batch the task resumed from (:meth:`BoltTask.resume_after_flush`).

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
        if watermark is not None and takes_watermarks(task):
            task.advance_watermark(watermark)
        task.check_failed()  # a tuple failed where no execute returned since (a timer's window, say)


Stream = tuple[str, str]  # (component, stream)
EventTimes = dict[str, dict[Stream, int]]  # bolt -> input stream -> largest event time seen


def gather_event_times(into: EventTimes, bolt: str, maxima: Iterable[Mapping[Stream, int] | None]) -> None:
    """Fold the tasks' largest event times (None for a task that keeps none) into ``into[bolt]``, keeping the largest.

    Spark's watermark (``with_spark_semantics``) is one per query: the largest
    event time seen on an input, over every partition, minus the delay. A
    bolt's tasks each see part of a stream, so after each batch the placement
    gathers every task's :meth:`BoltTask.event_time_maxima` into one value per
    bolt and stream, and gives them to each task of the bolt in the next batch
    (``run_task(..., event_times)``) before it moves its watermark. The batch
    loop commits what each batch started and ended with
    (:class:`topologies.executor.stored.RouterCounters`), so a replayed batch,
    or the first batch after a restart, starts where its first run started.
    """
    for task_maxima in maxima:
        if task_maxima is None:
            continue
        seen = into.setdefault(bolt, {})
        for stream, ts in task_maxima.items():
            key = (stream[0], stream[1])
            seen[key] = max(seen.get(key, ts), ts)


def lowest_watermark(marks: Iterable[int | None]) -> int | None:
    """The minimum of ``marks``; None when there are none or one is None (that task has no watermark yet)."""
    values = list(marks)
    if not values or any(m is None for m in values):
        return None
    return min(m for m in values if m is not None)
