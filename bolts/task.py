"""One running task of a bolt, as the batch loop and the harness drive it, and what every task is built from.

Every kind of bolt runs behind the same small interface: tuples go in with
``execute``, ``end_batch`` closes a micro-batch, ``advance_to`` moves processing
time, ``advance_watermark`` brings an upstream watermark, ``before_commit`` and
``commit`` write the task's state with a batch id, ``close`` ends a bounded run.
Every task is built from its bolt and one :class:`TaskOptions` value; which
class runs a bolt is :func:`bolts.task_factory.make_task`'s answer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bolts.base_bolt import BaseBolt
from bolts.codecs.value_codec import pack_value, unpack_value
from bolts.collector import EmitRoutes, EmitSink, OutputCollector
from bolts.context import TopologyContext, TopologyLayout
from bolts.errors import TupleError
from bolts.storm.tick import TICK_FREQ_KEY, TickSchedule, tick_interval_ms, tick_tuple
from bolts.task_input import TaskInput
from bolts.task_store import WindowStore
from bolts.tuples import Fields, Tuple

#: Where a plain task's own state (:meth:`PlainBoltTask.state`) is committed in its namespace.
TASK_KEY = b"s/task"

TaskObserver = Callable[[Any], None]


@dataclass(frozen=True)
class TaskOptions:
    """Where one task of a bolt sits and what it runs with: every task class is built from these.

    ``component``: the bolt's id; ``input_streams``: the ``(component, stream)``
    pairs it subscribes to (in event time the watermark waits for each);
    ``task_index`` of ``parallelism`` tasks; ``start_time_ms``: the processing
    time it starts at. ``store``: the task's namespace in a state backend; a
    task given one resumes from its last commit when prepared and writes its
    state there with :meth:`BoltTask.commit` (the batch loop and
    ``BoltHarness`` always give one; a stateful bolt needs one). ``observer``
    sees each window a windowed task activates, before the bolt does.
    ``watermark_at_batch_end``: event-time tasks also emit their watermark at
    every ``end_batch``, as Spark's ``withWatermark`` moves at batch boundaries.
    """

    component: str
    input_streams: tuple[tuple[str, str], ...] = ()
    task_index: int = 0
    parallelism: int = 1
    start_time_ms: int = 0
    store: WindowStore | None = None
    observer: TaskObserver | None = None
    watermark_at_batch_end: bool = False


class BoltTask(ABC):
    """The batch loop's side of one bolt task.

    A tuple the bolt cannot process goes through :meth:`reject`: onto the bolt's
    error stream when it has one (``with_error_stream``), else its
    :class:`TupleError` fails the batch.
    """

    late_tuples: int = 0
    rejected_tuples: int = 0
    collector: OutputCollector | None = None
    #: The whole topology and where this task's emissions go; set by the placement before ``prepare``
    #: (None under a bare harness: ``emit`` then returns no task ids).
    layout: TopologyLayout | None = None
    routes: EmitRoutes | None = None

    def __init__(self, bolt: Any, options: TaskOptions) -> None:
        """Record which bolt this task runs, where it sits in the topology, and its store."""
        self.bolt = bolt
        self.options = options
        self.component = options.component
        self.input_streams = frozenset(options.input_streams)
        self.task_index = options.task_index
        self.parallelism = options.parallelism
        self.store = options.store

    @abstractmethod
    def prepare(self, conf: dict[str, Any], sink: EmitSink) -> None:
        """Prepare the bolt with a collector that sends emitted tuples to ``sink``."""

    def prepare_bolt(self, conf: dict[str, Any], sink: EmitSink, output_streams: dict[str, Fields]) -> OutputCollector:
        """Make the task's collector and context and call the bolt's ``prepare``; returns the collector.

        The bolt sees ``conf`` merged with its ``get_component_configuration()``;
        a true ``topology.debug`` logs every emitted tuple (INFO on logger ``squall.debug``).
        """
        direct = getattr(self.bolt, "direct_streams", None)
        self.collector = OutputCollector(
            output_streams, sink, self.component, direct_streams=direct(self.component) if direct else frozenset(),
            routes=self.routes, error_stream=getattr(self.bolt, "error_stream", None), task_index=self.task_index,
        )
        merged = {**conf, **(self.bolt.get_component_configuration() or {})}  # None: none, as Storm's null
        self.collector.debug = bool(merged.get("topology.debug", False))
        context = TopologyContext(
            self.component, self.task_index, self.parallelism, self.input_streams, output_streams, self.layout
        )
        self.call_prepare(merged, context, self.collector)
        return self.collector

    def call_prepare(self, conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
        """Call the bolt's own ``prepare`` (a basic bolt's takes no collector)."""
        self.bolt.prepare(conf, context, collector)

    def check_failed(self) -> None:
        """Raise :class:`bolts.collector.TupleFailedError` when the bolt failed a tuple since the last check."""
        if self.collector is not None:
            self.collector.raise_if_failed()

    def reject(self, tup: Tuple, error: Exception) -> None:
        """``tup`` cannot be processed: emit it on the bolt's error stream, or raise ``error``.

        Only a :class:`TupleError` goes to the error stream, as ``[tup, component,
        message]``; any other exception, and every error of a bolt without an
        error stream, is raised (the batch fails, naming the tuple).
        """
        stream = getattr(self.bolt, "error_stream", None)
        if stream is None or not isinstance(error, TupleError) or self.collector is None:
            raise error
        self.rejected_tuples += 1
        self.collector.emit([tup, self.component, str(error)], stream)

    @abstractmethod
    def execute(self, tup: Tuple) -> None:
        """Deliver one input tuple."""

    def execute_batch(self, batch: TaskInput) -> None:
        """Deliver a micro-batch's tuples in order (before ``end_batch``); tasks that can work on columns override it.

        The default executes each tuple, so it gives exactly what ``execute`` one by one gives.
        """
        for tup in batch.tuples():
            self.execute(tup)

    def end_batch(self) -> None:  # noqa: B027 - most tasks do nothing at a batch boundary
        """The current micro-batch has been delivered in full."""

    @abstractmethod
    def advance_to(self, now_ms: int) -> None:
        """Move processing time forward to ``now_ms``."""

    @abstractmethod
    def advance_watermark(self, ts: int, stream: tuple[str, str] | None = None) -> None:
        """Take a watermark from upstream: for one input ``(component, stream)``, or for every input."""

    @property
    @abstractmethod
    def watermark(self) -> int | None:
        """The watermark this task forwards downstream (None when it has none)."""

    @property
    def accepts_watermarks(self) -> bool:
        """Whether :meth:`advance_watermark` may be called (processing-time windows refuse watermarks)."""
        return True

    def event_time_maxima(self) -> dict[tuple[str, str], int] | None:
        """The largest event time tracked per input stream when the task's watermark spans its bolt's tasks, else None.

        A task with Spark's watermark (``with_spark_semantics``) reports these
        after each batch; the executor combines every task's into what each is
        given, with :meth:`observe_event_times`, before the next batch ends.
        """
        return None

    def observe_event_times(self, maxima: Mapping[tuple[str, str], int]) -> None:  # noqa: B027 - most tasks ignore it
        """Take the largest event times the bolt's tasks saw before this batch (see :meth:`event_time_maxima`)."""

    def resume_after_flush(self) -> None:  # noqa: B027 - most tasks ignore it
        """The shutdown flush ran after the batch this task resumed from: redo what it changed, emitting nothing.

        The flush commits no task state, and its outputs are out already. A task
        whose flush changes what later batches see (Spark's rules: it is the
        no-data batch that moves the watermark) redoes it here, before the next
        batch, so the windows it fired neither fire again nor take rows Spark
        would drop.
        """

    @abstractmethod
    def close(self) -> None:
        """End of input: flush and clean up."""

    def before_commit(self, batch_id: int) -> None:  # noqa: B027 - only stateful bolts have commit hooks
        """The bolt's hooks before the commit of ``batch_id`` (Storm's ``preCommit``); nothing by default.

        Called before anything of the commit is gathered, so what the hooks
        change (attributes, user state, emissions) belongs to the batch.
        """

    @abstractmethod
    def commit(self, batch_id: int) -> bool:
        """Write what the task's state changed since its last commit to its store, atomically with ``batch_id``.

        False when the store holds ``batch_id`` already (a replay; nothing is
        written). ``TypeError`` naming the bolt when the task has no store.
        """

    def _store_or_fail(self) -> WindowStore:
        if self.store is None:
            msg = (
                f"{self.component}: commit needs a state store: pass state=... (for example 'memory://') to the "
                "harness, or run the task through the runner"
            )
            raise TypeError(msg)
        return self.store


class PlainBoltTask(BoltTask):
    """Runs a :class:`BaseBolt` that takes one tuple at a time; it forwards the upstream watermark.

    Its own state (time, watermark, next tick) is committed under :data:`TASK_KEY`
    and read back when the task is prepared over a store that holds it.
    """

    def __init__(self, bolt: BaseBolt, options: TaskOptions) -> None:
        super().__init__(bolt, options)
        self.output_streams: dict[str, Fields] = bolt.output_streams(self.component)
        self.now = options.start_time_ms
        self._watermark: int | None = None
        self.timers: TickSchedule | None = None  # the bolt's tick tuples, when it asks for them

    def prepare(self, conf: dict[str, Any], sink: EmitSink) -> None:
        """Prepare the bolt; with ``topology.tick.tuple.freq.secs`` in its configuration, start its ticks.

        Then resume the task's own state from its store's last commit, if any.
        ``ValueError`` naming the bolt when the frequency is not a positive number.
        """
        own = self.bolt.get_component_configuration() or {}
        merged = {**conf, **own}
        who = f"bolt {self.component!r}"
        who = who if TICK_FREQ_KEY in own else f"the topology's conf (for {who})"
        interval = tick_interval_ms(merged, who)
        if interval is not None:
            self.timers = TickSchedule(interval, self.now + interval, merged[TICK_FREQ_KEY])
        self.prepare_bolt(conf, sink, self.output_streams)
        stored = None if self.store is None else self.store.get(TASK_KEY)
        if stored is not None:
            self.restore(unpack_value(stored))

    @property
    def columnar(self) -> bool:
        """Whether the bolt takes its tuples as tables (it overrides :meth:`BaseBolt.execute_table`)."""
        return type(self.bolt).execute_table is not BaseBolt.execute_table

    def execute_batch(self, batch: TaskInput) -> None:
        """A columnar bolt gets each segment of the batch in one ``execute_table`` call; others each tuple.

        A :class:`TupleError` ``execute_table`` raises rejects every tuple of its
        run (:meth:`reject`: onto the error stream, or the batch fails); a
        tuple the bolt failed (``collector.fail``) fails the batch after the call.
        """
        if not self.columnar:
            super().execute_batch(batch)
            return
        from bolts.task_input import TupleTable

        for segment in batch.segments:
            try:
                self.bolt.execute_table(TupleTable(segment))
            except TupleError as error:
                for tup in segment.tuples():
                    self.reject(tup, error)
            if self.collector is not None and self.collector.failed:
                self.collector.raise_if_failed()

    def execute(self, tup: Tuple) -> None:
        """Call the bolt's ``execute``; a :class:`TupleError` it raises rejects the tuple (:meth:`reject`).

        A tuple the bolt failed (``collector.fail``) fails the batch when ``execute`` returns.
        """
        try:
            self.bolt.execute(tup)
        except TupleError as error:
            self.reject(tup, error)
        if self.collector is not None and self.collector.failed:
            self.collector.raise_if_failed()

    def advance_to(self, now_ms: int) -> None:
        """Move the time; a bolt with ticks gets a tick tuple when one is due (see :class:`TickSchedule`)."""
        self.now = max(self.now, now_ms)
        if self.timers is not None and self.timers.take(self.now):
            self.execute(tick_tuple(self.timers.freq_secs))

    def advance_watermark(self, ts: int, stream: tuple[str, str] | None = None) -> None:
        """Remember the upstream watermark to forward it (a plain bolt keeps one for all its inputs)."""
        if self._watermark is None or ts > self._watermark:
            self._watermark = ts

    @property
    def watermark(self) -> int | None:
        """The last upstream watermark."""
        return self._watermark

    def close(self) -> None:
        """Call the bolt's ``cleanup``."""
        self.bolt.cleanup()

    def commit(self, batch_id: int) -> bool:
        """Commit the task's own state (:meth:`state`) with ``batch_id``; False if it was committed already."""
        return self._store_or_fail().commit(batch_id, {TASK_KEY: pack_value(self.state())}, [])

    def state(self) -> dict[str, Any]:
        """The task's own state as plain data: its time and the watermark it forwards."""
        return {"now": self.now, "watermark": self._watermark,
                "next_tick": None if self.timers is None else self.timers.due}

    def restore(self, state: dict[str, Any]) -> None:
        """Resume from :meth:`state` (the bolt's attributes are restored apart)."""
        self.now = state["now"]
        self._watermark = state["watermark"]
        if self.timers is not None and state.get("next_tick") is not None:
            self.timers.due = state["next_tick"]
