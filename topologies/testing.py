"""Drive one bolt with no Spark and a clock you move: how bolts (and squall itself) are unit-tested.

Example::

    h = BoltHarness(bolt, fields=("ts", "value"))
    h.feed({"ts": 1000, "value": 3})
    h.advance(Duration.seconds(1))     # timers and watermark emission due on the way fire
    h.windows[0].tuples, h.emitted, h.late

The harness runs its own deep copy of the bolt (``h.bolt``), so the bolt passed
in stays as configured and can be given to another harness or a topology.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from os import PathLike
from typing import Any

from bolts import BaseBolt, BoltTask, Fields, TaskOptions, Tuple, WindowStore
from bolts.instance_fields import InstanceFields
from bolts.pane_time import with_pane_time
from bolts.task import PlainBoltTask
from bolts.tuples import DEFAULT_STREAM
from state_backends import open_backend
from topologies.engine.stored_task import EmitBuffer, build_task, commit_task
from topologies.engine.task_store import TaskStore
from topologies.engine.wire import check_emission
from windowing import Duration, TupleWindow
from windowing.arrow_values import table_rows
from windowing.duration import as_duration


@dataclass(frozen=True)
class Activation:
    """One window activation as the bolt saw it."""

    tuples: list[Tuple]
    new: list[Tuple] | None  # None when the window does not track them (with_max_events_in_memory)
    expired: list[Tuple] | None
    start_timestamp: int | None
    end_timestamp: int | None
    at: int | None = None  # the processing time it fired at
    emitted_from: int | None = None  # the index in ``BoltHarness.emitted`` of what the bolt emitted for it

    def values(self, field: str) -> list[Any]:
        """The values of ``field`` of the window's tuples, in window order."""
        return [t[field] for t in self.tuples]


class _Recorder(EmitBuffer):
    """The harness task's emit sink: each emission is recorded the moment it is emitted, with its time."""

    def __init__(self, record: Callable[[str, list[Any], int | None], None]) -> None:
        super().__init__()
        self.record = record

    def __call__(self, stream: str, values: list[Any], task_id: int | None = None) -> None:
        """Record one emitted tuple (a direct one's task id is in ``BoltHarness.emitted_direct``)."""
        self.record(stream, values, task_id)

    def extend(self, stream: str, rows: list[list[Any]]) -> None:
        """Record many tuples emitted on ``stream`` at once, in order, each as :meth:`__call__` would."""
        for values in rows:
            self.record(stream, values, None)

    def table(self, stream: str, table: Any) -> None:
        """Record each row of a table emitted on ``stream`` (``emit_table``), in order, as :meth:`__call__` would."""
        self.extend(stream, table_rows(table))


@dataclass(frozen=True)
class _Committed:
    """How much had been recorded, and the time, at the last commit."""

    windows: int
    emitted: int
    late: int
    now: int
    rejected: int = 0
    arrivals: int = 0
    watermarks: int = 0


class BoltHarness:
    """Runs one task of ``bolt`` in-process; the caller feeds tuples and moves time.

    ``fields`` are the input fields (one schema for every stream, or a mapping from
    stream to fields). ``streams`` are the input streams the bolt subscribes to;
    in event time the watermark waits for a tuple on each of them, as Storm's does.
    Processing time starts at ``start_time_ms``.

    Records ``windows`` (one :class:`Activation` per activation), ``emitted``
    (``(stream, values)`` in emission order, the late-tuple and error streams
    included), ``late`` (the late input tuples, in arrival order) and
    ``rejected`` (the input tuples the bolt sent to its error stream,
    ``with_error_stream``, in arrival order; without one, :meth:`feed` raises
    the bolt's ``TupleError``). For pictures of a run (:meth:`plot`) it also
    records ``arrivals`` (``(processing time, tuple, watermark then)`` of every
    tuple fed), ``emitted_at`` (the processing time of each emission, parallel
    to ``emitted``) and ``watermarks`` (``(processing time, watermark)`` each
    time the watermark changes, at the instant of the tick that moved it).
    ``emitted_direct`` maps the index in ``emitted`` of each ``emit_direct``
    to the task id it was sent to. A bolt under the harness is the only bolt of
    its topology, so ``emit`` returns no task ids.

    The task keeps its state in a store, as every task the batch loop runs does,
    so the harness runs the very task class Spark runs: its own private
    ``memory://`` namespace, or ``state``: a backend URL (``"memory://"``,
    ``"redis://..."``, ``"hbase://..."``; the task gets the namespace
    ``harness/<component>/0``) or a namespace object. :meth:`commit` commits
    like the batch loop after a batch (windows, user state, the bolt's
    attributes), and :meth:`restart` simulates a crash and a restart from the
    last commit.

    The harness runs its own deep copy of ``bolt``, available as ``bolt`` (the
    running instance: its fields, its user state); the object passed in is never
    prepared, so it can be run again by another harness or submitted to Spark.
    As in a topology, a windowed or aggregate bolt with no timestamp field or
    extractor whose every input stream's ``fields`` declare ``window_start``,
    ``window_end`` and ``timestamp`` (panes) takes each pane's ``timestamp`` as
    its event time, and one that needs event time and would get none is refused
    here (:mod:`bolts.pane_time`).

    In event time the bolt's watermark moves, by default, only with
    :meth:`advance`/:meth:`advance_to` (on its watermark interval) and
    :meth:`advance_watermark`, so a test that drives it by hand keeps its meaning.
    With ``watermark_per_batch=True`` it is also emitted at the end of every
    :meth:`feed_batch` (and at :meth:`close`), as the batch loop emits it at
    the end of every micro-batch; tuples fed one by one with :meth:`feed` do not
    end a batch.
    """

    def __init__(
        self,
        bolt: BaseBolt,
        fields: Sequence[str] | Mapping[str, Sequence[str]] = ("value",),
        streams: Sequence[str] = (DEFAULT_STREAM,),
        *,
        source_component: str = "spout",
        component: str = "bolt",
        start_time_ms: int = 0,
        conf: dict[str, Any] | None = None,
        state: WindowStore | str | None = None,
        watermark_per_batch: bool = False,
    ) -> None:
        if isinstance(streams, str) or not streams:
            msg = f"BoltHarness: `streams` must be a non-empty sequence of stream names; got {streams!r}"
            raise ValueError(msg)
        self.streams = tuple(streams)
        self.source_component = source_component
        self._fields = self._fields_by_stream(fields)
        self.windows: list[Activation] = []
        self.emitted: list[tuple[str, list[Any]]] = []
        self.late: list[Tuple] = []
        self.rejected: list[Tuple] = []
        self.arrivals: list[tuple[int, Tuple, int | None]] = []
        self.emitted_at: list[int] = []
        self.emitted_direct: dict[int, int] = {}  # index in ``emitted`` -> the task id it was emitted to directly
        self.watermarks: list[tuple[int, int]] = []
        self.component = component
        self.conf = conf or {}
        # A backend URL, or none (a private memory:// store): the task gets its own namespace there.
        if state is None or isinstance(state, str):
            state = open_backend(state or "memory://").namespace(f"harness/{component}/0")
        self.state = state
        # The task commits through a store that also writes the bolt's attributes, as in the batch loop.
        self._store = TaskStore(state)  # type: ignore[arg-type]
        self._attributes: InstanceFields | None = None
        self.watermark_per_batch = watermark_per_batch
        # The caller's bolt is never run (prepare() would leave a collector and state on it, which cannot be
        # copied or pickled): the harness runs its own copy, and keeps a fresh one for restart().
        # Fed only panes, a windowed bolt with no time of its own takes theirs, as in a topology.
        inputs = {f"{source_component}:{s}": fields for s, fields in self._fields.items()}
        self._template = with_pane_time(component, copy.deepcopy(bolt), inputs)
        self._committed = _Committed(0, 0, 0, start_time_ms)
        self._batch_id = 0
        self._now = start_time_ms
        self.task = self._build(start_time_ms)
        self._note_watermark()

    def _build(self, start_time_ms: int) -> BoltTask:
        """A task of a fresh copy of the bolt, built as every squall task is, resumed from the last commit."""
        options = TaskOptions(self.component, tuple((self.source_component, s) for s in self.streams), 0, 1,
                              start_time_ms, self._store, self._record, self.watermark_per_batch)
        built = build_task(self._template, options, self.conf, sink=_Recorder(self._emit))
        self.bolt = built.task.bolt
        self._attributes = built.fields
        return built.task

    # Commit and crash ---------------------------------------------------------------------------
    def commit(self, batch_id: int | None = None) -> int:
        """Commit the task's state as batch ``batch_id`` (the next id by default), as the batch loop does; its id.

        The task's own state (windows, user state, timers) and the bolt's
        attributes, atomically; committing an id the store holds already
        writes nothing.
        """
        self._batch_id = self._batch_id + 1 if batch_id is None else batch_id
        if self._attributes is not None:
            commit_task(self.task, self._attributes, self._store, self._batch_id)
        self._committed = _Committed(
            len(self.windows), len(self.emitted), len(self.late), self.now, len(self.rejected),
            len(self.arrivals), len(self.watermarks),
        )
        return self._batch_id

    def restart(self) -> None:
        """Crash and restart: drop the task and its memory, rebuild it from the last commit.

        What the task did since the last commit is undone here as a failed Spark
        batch is: its windows, emitted tuples and late tuples are dropped (the
        caller feeds that batch again).
        """
        c = self._committed
        del self.windows[c.windows :], self.emitted[c.emitted :], self.late[c.late :], self.rejected[c.rejected :]
        del self.emitted_at[c.emitted :], self.arrivals[c.arrivals :], self.watermarks[c.watermarks :]
        self.emitted_direct = {i: t for i, t in self.emitted_direct.items() if i < c.emitted}
        self._now = c.now
        self.task = self._build(c.now)

    def _fields_by_stream(self, fields: Sequence[str] | Mapping[str, Sequence[str]]) -> dict[str, Fields]:
        if isinstance(fields, Mapping):
            missing = [s for s in self.streams if s not in fields]
            if missing:
                msg = f"BoltHarness: `fields` has no entry for streams {missing}"
                raise ValueError(msg)
            return {s: Fields(list(fields[s])) for s in self.streams}
        return {s: Fields(list(fields)) for s in self.streams}

    @property
    def now(self) -> int:
        """Current processing time in milliseconds."""
        return self._now

    def make_tuple(self, values: Mapping[str, Any] | Sequence[Any], stream: str = DEFAULT_STREAM) -> Tuple:
        """Build an input tuple for ``stream`` from a ``{field: value}`` dict or a list of values."""
        if stream not in self._fields:
            msg = f"BoltHarness.feed: stream {stream!r} is not an input; inputs are: {', '.join(self.streams)}"
            raise ValueError(msg)
        fields = self._fields[stream]
        if isinstance(values, Mapping):
            unknown = set(values) - set(fields)
            if unknown:
                msg = f"BoltHarness.feed: fields {sorted(unknown)} are not among {fields.to_list()}"
                raise ValueError(msg)
            row = [values.get(f) for f in fields]
        else:
            row = list(values)
        return Tuple(row, fields, stream, self.source_component)

    def feed(self, values: Mapping[str, Any] | Sequence[Any], stream: str = DEFAULT_STREAM) -> Tuple:
        """Deliver one tuple at the current processing time; returns it.

        The tuple joins the micro-batch in progress, which ends at the next
        ``feed_batch``, ``advance``, ``advance_watermark`` or ``close`` (this matters
        to bolts whose triggers are consulted once per batch).
        """
        tup = self.make_tuple(values, stream)
        self._deliver(tup)
        return tup

    def _deliver(self, tup: Tuple) -> None:
        self.arrivals.append((self._now, tup, self.task.watermark))
        late_before, rejected_before = self.task.late_tuples, self.task.rejected_tuples
        self.task.execute(tup)
        if self.task.late_tuples != late_before:
            self.late.append(tup)
        if self.task.rejected_tuples != rejected_before:
            self.rejected.append(tup)
        self._note_watermark()

    def feed_batch(
        self, rows: Sequence[Mapping[str, Any] | Sequence[Any]], stream: str = DEFAULT_STREAM
    ) -> list[Tuple]:
        """Deliver ``rows`` as one micro-batch at the current time, then end the batch.

        With ``watermark_per_batch``, ending the batch emits the bolt's watermark,
        as the batch loop does at the end of every micro-batch.
        """
        tuples = [self.make_tuple(row, stream) for row in rows]
        for tup in tuples:
            self._deliver(tup)
        self.task.end_batch()
        self._note_watermark()
        return tuples

    def feed_table(self, table: Any, stream: str = DEFAULT_STREAM) -> list[Tuple]:
        """Deliver the rows of ``table`` (a ``pyarrow.Table``) as one micro-batch at the current time, then end it.

        Its columns must be the stream's fields, in order. The rows reach the
        task as one Spark partition of a spout's rows does: a columnar bolt
        (``execute_table``) gets them in one call, a windowed bolt keeps them
        as columns. Returns them as tuples, also recorded in ``arrivals``;
        ``late`` and ``rejected`` list only tuples fed one at a time (here the
        task's ``late_tuples`` and ``rejected_tuples`` count them).
        """
        from bolts.task_input import TaskInput

        if stream not in self._fields:
            msg = f"BoltHarness.feed_table: stream {stream!r} is not an input; inputs are: {', '.join(self.streams)}"
            raise ValueError(msg)
        import pyarrow as pa

        fields = self._fields[stream]
        if not isinstance(table, pa.Table) or table.column_names != list(fields):
            msg = (f"BoltHarness.feed_table: `table` must be a pyarrow.Table with the columns {fields.to_list()}; "
                   f"got {getattr(table, 'column_names', type(table).__name__)!r}")
            raise ValueError(msg)
        batch = TaskInput()
        batch.append_table(self.source_component, 0, stream, fields, table)
        tuples = batch.tuples()
        self.arrivals.extend((self._now, tup, self.task.watermark) for tup in tuples)
        self.task.execute_batch(batch)
        self.task.end_batch()
        self._note_watermark()
        return tuples

    def advance(self, duration: Duration | timedelta | int) -> None:
        """Move processing time forward by ``duration`` (a Duration, a timedelta or milliseconds)."""
        duration = as_duration("BoltHarness.advance", "duration", duration)  # type: ignore[assignment]
        ms = duration.value if isinstance(duration, Duration) else duration
        if ms < 0:
            msg = f"BoltHarness.advance: `duration` must not be negative; got {duration!r}"
            raise ValueError(msg)
        self.advance_to(self.now + ms)

    def advance_to(self, time_ms: int) -> None:
        """Move processing time forward to ``time_ms``; timers due on the way fire at their instants."""
        if time_ms < self._now:
            msg = f"BoltHarness.advance_to: time cannot go back from {self._now} to {time_ms}"
            raise ValueError(msg)
        timers = getattr(self.task, "timers", None)  # step from tick to tick: the watermark is noted when it moves
        while timers is not None and (due := timers.next_due()) is not None and due <= time_ms:
            self.task.advance_to(due)
            self._note_watermark(due)
        self.task.advance_to(time_ms)
        self._now = time_ms
        self._note_watermark()

    def advance_watermark(self, ts: int, stream: str | None = None) -> None:
        """Deliver a watermark from upstream at event time ``ts``: for input ``stream``, or for every input."""
        if stream is None:
            self.task.advance_watermark(ts)
            self._note_watermark()
            return
        if stream not in self._fields:
            inputs = ", ".join(self.streams)
            msg = f"BoltHarness.advance_watermark: stream {stream!r} is not an input; inputs are: {inputs}"
            raise ValueError(msg)
        self.task.advance_watermark(ts, (self.source_component, stream))
        self._note_watermark()

    @property
    def watermark(self) -> int | None:
        """The bolt's current watermark (None in processing time)."""
        return self.task.watermark

    def close(self) -> None:
        """End of input (a bounded run): flush as the batch loop does at shutdown, then ``cleanup``.

        With ``watermark_per_batch``, the batch in progress ends first, as the
        batch loop ends its last batch before it closes the task.
        """
        if self.watermark_per_batch:
            self.task.end_batch()
        self.task.close()
        self._note_watermark()

    def _record(self, window: TupleWindow[Tuple]) -> None:
        tracked = window.tracks_changes
        self.windows.append(
            Activation(
                list(window.get()),
                list(window.get_new()) if tracked else None,
                list(window.get_expired()) if tracked else None,
                window.start_timestamp,
                window.end_timestamp,
                self._task_now(),
                len(self.emitted),
            )
        )
        self._note_watermark()

    def _emit(self, stream: str, values: list[Any], task_id: int | None = None) -> None:
        check_emission(self.component, 0, stream, values)  # on Spark it must travel and be stored: refused here too
        if task_id is not None:
            self.emitted_direct[len(self.emitted)] = task_id
        self.emitted.append((stream, list(values)))
        self.emitted_at.append(self._task_now())
        self._note_watermark()

    def _task_now(self) -> int:
        """The task's processing time: inside ``advance_to`` it is the instant of the timer firing."""
        task = getattr(self, "task", None)  # no task yet while the first one is built
        clock = getattr(task, "clock", None)
        if clock is not None:
            return clock.now()
        return task.now if isinstance(task, PlainBoltTask) else self._now  # a plain task's time (its ticks')

    def _note_watermark(self, now: int | None = None) -> None:
        """Record the watermark with the processing time when it differs from the last one recorded."""
        task = getattr(self, "task", None)  # emissions can come while the task is being built
        mark = None if task is None else task.watermark
        if mark is not None and (not self.watermarks or self.watermarks[-1][1] != mark):
            self.watermarks.append((self._task_now() if now is None else now, mark))

    def plot(self, path: str | PathLike[str] | None = None, **options: Any) -> Any:
        """Draw this run as Streaming 102 draws one; see :func:`topologies.plot.plot_run` for ``options``.

        Returns the matplotlib ``Figure``; with ``path`` (``.png`` or ``.svg``) it is also saved there.
        Needs matplotlib (``pip install squall[plot]``).
        """
        from topologies.plot import plot_run

        return plot_run(self, path, **options)
