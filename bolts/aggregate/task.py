"""Runs one task of a :class:`WindowedAggregateBolt`: places tuples, moves the watermark, consults triggers.

Batches: tuples delivered with ``execute`` are added to their windows at once;
triggers are consulted once per window per micro-batch, when the batch closes
(except where that cannot change anything: a trigger ``silent_before_end``
before the window's end, in windows that do not merge). An expiring window's
last pane is emitted without consulting its trigger (``PaneEmitter.collect``).
A batch closes at ``end_batch`` (``BoltHarness.feed_batch``), and also before
processing time or the watermark moves and at ``close``, so tuples fed one by
one with ``BoltHarness.feed`` form one batch up to the next ``advance``,
``advance_watermark`` or ``feed_batch``.

Time is injected: processing time moves only with :meth:`advance_to`; the
bolt's own watermark is recomputed every watermark interval of it, and
processing-time triggers fire at their exact instants on the way. With
``watermark_at_batch_end`` (the Spark executor's setting) the watermark is also
recomputed at every explicit :meth:`end_batch`, right after the batch's triggers
are consulted, as the interval timer would if it fired just after the batch; the
other batch closes (before time or the watermark moves, at ``close``) do not
recompute it. The whole state is plain data: :meth:`snapshot` and
:meth:`restore` (deterministic).

With a ``store`` (a namespace of a state backend), the task resumes from the
store's last commit when prepared and :meth:`commit` writes what changed since
the previous commit (see :mod:`bolts.aggregate.store`), atomically with the
batch id, as the Spark executor does after every batch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from bolts.aggregate.columnar import place_segment, supports, takes, with_row_columns
from bolts.aggregate.firing import PaneEmitter
from bolts.aggregate.holds import add_holds
from bolts.aggregate.input_watermarks import InputWatermarks
from bolts.aggregate.sessions.placing import PendingSessions
from bolts.aggregate.spec import OUTPUT_FIELDS, SpecSource
from bolts.aggregate.store import load, state_writes
from bolts.aggregate.window_state import WindowState
from bolts.aggregate.windows import WindowId, WindowTable
from bolts.collector import EmitSink, OutputCollector
from bolts.errors import TupleError
from bolts.task import BoltTask, TaskOptions
from bolts.task_input import Segment, TaskInput
from bolts.timestamps import tuple_timestamps
from bolts.tuples import DEFAULT_STREAM, Tuple
from windowing.assigners import END_OF_TIME, Sessions
from windowing.clock import ManualClock, PeriodicTimers
from windowing.triggers.context import TriggerContext

if TYPE_CHECKING:
    from bolts.base_bolt import BaseBolt

log = logging.getLogger("squall.bolts")
# 2: holds replace the timestamp spans of version 1; 3: output watermarks, GC holds; 4: AfterWatermark's phase
# and its early child's finished bit; 5: a window in its short form (WindowState.to_data) where it can be
SNAPSHOT_VERSION = 5
READABLE_VERSIONS = (4, 5)  # 5 adds a record form only: state written at 4 reads back the same


def _drop(values: list[Any]) -> None:
    """A pane sink that keeps nothing."""


def check_version(state: dict[str, Any]) -> None:
    """``ValueError`` unless ``state`` (a snapshot or a store's system state) has a layout this version reads."""
    version = state.get("version")
    if version not in READABLE_VERSIONS:
        newer = isinstance(version, int) and not isinstance(version, bool) and version > SNAPSHOT_VERSION
        advice = ("it was written by a newer squall: resume it with that version" if newer else
                  "state written by an older squall cannot be resumed: start from an empty store")
        msg = f"AggregateTask.restore: snapshot version {version!r}, expected {SNAPSHOT_VERSION}; {advice}"
        raise ValueError(msg)


class AggregateTask(BoltTask):
    """One task of a windowed aggregation, driven by the harness or the Spark executor."""

    # An expiring window's last pane is emitted without consulting its trigger (PaneEmitter.collect); the
    # tests turn this off to compare with consulting it.
    collect_unconsulted = True

    def __init__(self, bolt: BaseBolt, options: TaskOptions) -> None:
        super().__init__(bolt, options)
        component = options.component
        self.spec = cast("SpecSource", bolt).build_spec(component)  # a WindowedAggregateBolt, or one built on it
        self._check_streams()
        self.output_streams = bolt.output_streams(component)
        self.clock = ManualClock(options.start_time_ms)
        self.timers = PeriodicTimers(self.clock)
        self.marks = InputWatermarks(self.input_streams, self.spec.lag_ms, self.spec.spark_watermark_policy or "min",
                                     upstream_only=self.spec.watermark_from_upstream)
        self._spark = self.spec.spark_semantics
        self.table = WindowTable(self.spec)
        self.emitter = PaneEmitter(self.spec, self._emit_pane)
        self.dirty: dict[WindowId, None] = {}
        self._watermark = self.marks.current()
        self.table.output_base = self._watermark
        self.late_tuples = 0
        self.closed_window_drops = 0
        self.collector: OutputCollector | None = None
        self.watermark_at_batch_end = options.watermark_at_batch_end
        self._read_ts = self._timestamp_reader()
        # Session tuples wait for the end of their batch: the batch's windows merge before any is placed.
        self._batched_sessions = isinstance(self.spec.assigner, Sessions) and self.spec.time_difference is None
        self._held = PendingSessions()
        # What a batch added to each window of plain (not merging, not time-difference) windows, told to its
        # trigger and holds once when the batch closes: [window, tuples, lowest and highest held ts, any behind,
        # the key's output watermark].
        self._defers = not self.spec.merging and self.spec.time_difference is None
        self._batch_adds: dict[int, list[Any]] = {}
        # Consulting such a trigger before the window's end changes nothing (Trigger.silent_before_end).
        self._quiet_before_end = not self.spec.merging and self.spec.trigger.silent_before_end()
        self._columnar = supports(self.spec)  # whether batches can be placed on columns (bolts.aggregate.columnar)
        # With an error stream, a tuple is checked before it is placed, so a rejected one leaves no window behind.
        self._screens = getattr(bolt, "error_stream", None) is not None

    def _check_streams(self) -> None:
        """``ValueError`` naming the bolt when a stream its aggregator needs (a join's sides) is not an input."""
        streams = {stream for _, stream in self.input_streams}
        missing = [s for s in getattr(self.spec.aggregator, "required_streams", ()) if s not in streams]
        if missing:
            msg = (
                f"{type(self.bolt).__name__}: streams {missing} are not inputs of bolt {self.component!r}; "
                f"its inputs are: {', '.join(sorted(streams)) or '(none)'}"
            )
            raise ValueError(msg)

    # Life cycle ---------------------------------------------------------------------------------
    def prepare(self, conf: dict[str, Any], sink: EmitSink) -> None:
        """Prepare the bolt with a collector and start the watermark timer."""
        self.prepare_bolt(conf, sink, self.output_streams)
        declared = self.output_streams.get(DEFAULT_STREAM)
        if declared is not None and len(declared) == len(OUTPUT_FIELDS):
            # A pane has the declared stream's arity: the collector's checks cannot fail, so panes skip them,
            # and go to the sink many at once when it takes them so.
            self.emitter.emit = partial(sink, DEFAULT_STREAM)
            extend = getattr(sink, "extend", None)
            self.emitter.emit_rows = None if extend is None else partial(extend, DEFAULT_STREAM)
        if not self._spark:  # Spark's watermark moves only at the end of a batch
            self.timers.every(self.spec.watermark_interval_ms, self._on_watermark_timer)
        if self.store is not None:
            self.table.track_changes()
            saved = load(self.store, check=check_version)
            if saved is not None:
                self._restore_system(saved.system)
                self._restore_table(saved.windows, saved.buckets, saved.system)

    def close(self) -> None:
        """End of input: the watermark goes to the end of time, every window fires and is collected.

        With Spark's rules, what Spark does when the input is drained: one batch
        with no data, whose watermark takes in the last batch's event times; the
        windows it has not passed neither fire nor go (Spark's state store keeps
        them for the next run).
        """
        self._close_batch()
        if self._spark:
            self.marks.publish_seen()  # an open batch's times count, as end_batch would count them
        self._move_watermark(self.marks.spark_watermark() if self._spark else END_OF_TIME)
        self.bolt.cleanup()

    # Input --------------------------------------------------------------------------------------
    def execute_batch(self, batch: TaskInput) -> None:
        """Deliver a batch: columnar segments placed at once where the aggregation allows, other tuples one by one.

        A segment whose values the aggregator refuses goes one by one too (nothing
        of it was placed), so the tuple at fault is rejected or named exactly.
        """
        if not self._columnar:
            super().execute_batch(batch)
            return
        for given in batch.segments:
            segment = with_row_columns(self.spec, given)
            if takes(self.spec, segment) and self._place_columns(segment):
                continue
            for tup in given.tuples():
                self.execute(tup)

    def _place_columns(self, segment: Segment) -> bool:
        """Place (sessions: hold until the batch closes) an Arrow segment on columns; False to go tuple by tuple."""
        if self._batched_sessions:
            return self._held.hold_segment(self, segment, self._watermark)
        return place_segment(self, segment, self._watermark)

    def execute(self, tup: Tuple) -> None:
        """Add a tuple to its windows, drop it as late (counted; sent to the late stream when set), or reject it.

        A tuple without a readable timestamp or key, or with values the aggregator
        refuses, is rejected (:meth:`BoltTask.reject`): onto the error stream, or
        the batch fails.
        """
        try:
            ts = self._read_ts(tup)
            key = self.spec.key_of(tup)
            if self._screens:
                self.spec.check(tup)
                self.spec.add(self.spec.aggregator.create(), tup)  # a value no accumulator takes
        except TupleError as error:
            self.reject(tup, error)
            return
        self.marks.track((tup.source_component, tup.stream), ts)
        if self._batched_sessions:
            self._held.hold_tuple(self, tup, key, ts, self._watermark)
            return
        try:
            self._place(tup, key, ts)
        except TupleError as error:  # refused by a window's accumulator (a str after ints in a max)
            self.reject(tup, error)

    def _place(self, tup: Tuple, key: tuple[Any, ...], ts: int) -> None:
        placed = self.table.place(key, ts, tup, self._watermark, self.clock.now())
        for ws in placed.seeded:
            self.dirty[ws.wid] = None
        self.closed_window_drops += placed.dropped
        if not placed.windows:
            if not placed.kept:
                self._late(tup, ts)
            return
        open_windows = [ws for ws in placed.windows if not ws.closed]
        if not open_windows:
            if not placed.kept:
                self.closed_window_drops += 1
            return
        for ws in open_windows:
            self._add(ws, tup, ts)

    def _add(self, ws: WindowState, tup: Tuple, ts: int) -> None:
        if self._defers:
            self._add_deferred(ws, tup, ts)
            return
        ws.acc = self.spec.add(ws.acc, tup)
        ctx = TriggerContext(
            ws.trigger, window_end=ws.window.end, watermark=self._watermark, now=self.clock.now(), timers=ws.timers,
            merging=self.spec.merging,
        )
        self.spec.trigger.on_element(ctx)
        ws.has_new = True
        ws.batch_tuples += 1
        output_wm = self.table.output_watermark(ws.key)
        behind = ts < output_wm  # behind the output watermark, it cannot hold (Beam's element hold)
        add_holds(ws, self.spec, None if behind else (ts, ts), behind, input_wm=self._watermark, output_wm=output_wm)
        self.dirty[ws.wid] = None
        self.table.touch(ws)

    def _add_deferred(self, ws: WindowState, tup: Tuple, ts: int) -> None:
        """:meth:`_add` with the trigger and the holds told once per window when the batch closes.

        The same state as telling them per tuple: within a batch the watermark,
        the processing time and every key's output watermark stand still, triggers
        are consulted only when the batch closes (``Trigger.on_elements`` counts
        as that many ``on_element`` calls), and the holds of a window's tuples
        combine as their lowest and highest timestamps.
        """
        ws.acc = self.spec.add(ws.acc, tup)
        ws.has_new = True
        ws.batch_tuples += 1
        added = self._batch_adds.get(ws.seq)
        if added is None:  # the window's first tuple of the batch
            self.dirty[ws.wid] = None
            output_wm = self.table.output_watermark(ws.key)  # behind it, a tuple cannot hold
            self._batch_adds[ws.seq] = [ws, 1, ts, ts, False, output_wm] if ts >= output_wm else [
                ws, 1, None, None, True, output_wm]
            return
        added[1] += 1
        if ts < added[5]:
            added[4] = True
        elif added[2] is None:
            added[2] = added[3] = ts
        elif ts < added[2]:
            added[2] = ts
        elif ts > added[3]:
            added[3] = ts

    def _tell_batch_adds(self) -> None:
        """Tell each window's trigger and holds what :meth:`_add_deferred` added to it in this batch."""
        adds, self._batch_adds = self._batch_adds, {}
        spec, watermark, now = self.spec, self._watermark, self.clock.now()
        for ws, count, low, high, behind, output_wm in adds.values():
            ctx = TriggerContext(ws.trigger, window_end=ws.window.end, watermark=watermark, now=now, timers=ws.timers)
            spec.trigger.on_elements(ctx, count)
            held = None if low is None else (low, high)
            add_holds(ws, spec, held, behind, input_wm=watermark, output_wm=output_wm)
            self.table.touch(ws)

    def _settle(self) -> None:
        """Finish placing what the open batch added: held session tuples, and the deferred trigger and hold news."""
        self._held.place(self, self._watermark)
        if self._batch_adds:
            self._tell_batch_adds()

    def _late(self, tup: Tuple, ts: int) -> None:
        self.late_tuples += 1
        if self.spec.late_tuple_stream is not None and self.collector is not None:
            self.collector.emit([tup], self.spec.late_tuple_stream)
        else:
            log.info(
                "%s: tuple %r at %d is beyond the allowed lateness (watermark %d); dropped",
                self.component,
                tup,
                ts,
                self._watermark,
            )

    def end_batch(self) -> None:
        """The micro-batch is delivered: close it; with ``watermark_at_batch_end``, then emit the watermark.

        The watermark moves after the batch's triggers are consulted, exactly as
        the interval timer would move it if it fired right after the batch: the
        windows it completes fire in this batch. With Spark's rules it moves to
        what the batches *before* this one saw (over every task, see
        :meth:`observe_event_times`), and this batch's times count from the next.
        """
        self._close_batch()
        if self._spark:
            self._move_watermark(self.marks.spark_watermark())
            self.marks.publish_seen()
        elif self.watermark_at_batch_end:
            self._on_watermark_timer(self.clock.now())

    def event_time_maxima(self) -> dict[tuple[str, str], int] | None:
        """With Spark's rules, the largest event time this task tracked per input stream (else None)."""
        return self.marks.maxima() if self._spark else None  # type: ignore[return-value]

    def observe_event_times(self, maxima: Mapping[tuple[str, str], int]) -> None:
        """With Spark's rules, take the largest event times the bolt's tasks saw before this batch."""
        if self._spark:
            self.marks.observe(maxima)

    def resume_after_flush(self) -> None:
        """With Spark's rules, the flush's no-data batch again, its panes dropped (the flush emitted them)."""
        if not self._spark:
            return
        emitter = self.emitter
        emit, emit_rows = emitter.emit, emitter.emit_rows
        emitter.emit, emitter.emit_rows = _drop, None
        try:
            self._move_watermark(self.marks.spark_watermark())
        finally:
            emitter.emit, emitter.emit_rows = emit, emit_rows

    def _close_batch(self) -> None:
        """Place the batch's held session tuples, then consult every window the batch touched, in first-touch order."""
        self._settle()
        dirty, self.dirty = list(self.dirty), {}
        windows, watermark, quiet = self.table.windows, self._watermark, self._quiet_before_end
        due, waiting = [], []
        for wid in dirty:
            ws = windows.get(wid)
            if ws is None:
                continue
            if quiet and watermark < ws.window.end:
                # The trigger cannot fire before the end and the window is not expiring: the consultation
                # would only forget the batch's tuple count.
                ws.batch_tuples = 0
                waiting.append(ws)
            else:
                due.append(ws)
        self.table.touch_many(waiting)
        self._consult_all(due)  # one window's consultation changes no other window

    def _consult(self, ws: WindowState) -> None:
        self._consult_all([ws])

    def _consult_all(self, due: list[WindowState]) -> None:
        """:meth:`_consult` of each window in ``due``, in order (what stays the same for all is read once).

        The panes decided go to the sink in one call at the end (``PaneEmitter.flush``);
        when every window is expiring, their last panes are collected in bulk.
        """
        table, emitter, watermark = self.table, self.emitter, self._watermark
        lateness, marks, base = self.spec.allowed_lateness_ms, table.output_marks, table.output_base
        at_end_of_time = watermark >= END_OF_TIME
        try:
            if self.collect_unconsulted and (at_end_of_time or all(ws.window.end + lateness <= watermark
                                                                   for ws in due)):
                emitter.collect_all(due, watermark=watermark, marks=marks, base=base)
                table.delete_many(due)
                return
            now = self.clock.now()
            for ws in due:
                ws.batch_tuples = 0
                expiring = at_end_of_time or ws.window.end + lateness <= watermark
                if expiring and self.collect_unconsulted:
                    emitter.collect(ws, watermark=watermark, output_wm=marks.get(ws.key, base))
                else:
                    emitter.consult(ws, watermark=watermark, output_wm=marks.get(ws.key, base), now=now,
                                    expiring=expiring)
                if expiring:
                    table.delete(ws)
                else:
                    table.touch(ws)
        finally:
            emitter.flush()

    # Time ---------------------------------------------------------------------------------------
    def advance_to(self, now_ms: int) -> None:
        """Move processing time to ``now_ms``: watermark ticks and trigger timers fire at their instants, in order."""
        self._close_batch()
        while True:
            tick = self.timers.next_due()
            due = self.table.schedule.next_timer()
            if due is not None and due <= now_ms and (tick is None or due < tick):
                # A timer can be in the past: merging sessions keeps the earliest deadline of its parts,
                # which may have passed. It fires now, as a past timer does in Beam.
                due = max(due, self.clock.now())
                self.clock.advance_to(due)
                self._fire_timers(due)
            elif tick is not None and tick <= now_ms:
                self.timers.advance_to(tick)
            else:
                break
        self.timers.advance_to(now_ms)

    def _fire_timers(self, due: int) -> None:
        for ws in self.table.schedule.due_timers(due):
            ws.timers[:] = [t for t in ws.timers if t > due]
            self._consult(ws)

    def _on_watermark_timer(self, now: int) -> None:
        self.marks.compute()
        self._move_watermark(self.marks.current())

    def advance_watermark(self, ts: int, stream: tuple[str, str] | None = None) -> None:
        """Take a watermark from upstream for ``stream`` (a ``(component, stream)`` pair), or for every input."""
        self._close_batch()
        self.marks.set_upstream(ts, stream)
        self._move_watermark(self.marks.current(), upstream=True)

    def _move_watermark(self, new: int, *, upstream: bool = False) -> None:
        """Windows whose end the watermark passes are consulted, those past their lateness collected.

        Then each key's output watermark moves up to the new watermark, held back
        by its windows' holds (:mod:`bolts.aggregate.holds`); an ``upstream``
        watermark recomputes it even when the watermark stays where it was, as
        Beam's ``advanceInputWatermark`` does.
        """
        old = self._watermark
        if new <= old:
            if upstream:
                self.table.advance_output(old)
            return
        self._watermark = new
        if new >= END_OF_TIME:  # end of input: every window fires and is collected
            due = sorted(self.table.windows.values(), key=lambda ws: (ws.window.end, ws.seq))
        else:
            due = self.table.schedule.due_at_watermark(old, new)
        self._consult_all(due)
        self.table.prune(new)
        self.table.advance_output(new)

    @property
    def watermark(self) -> int | None:
        """The watermark forwarded downstream: the minimum over the inputs."""
        return self._watermark

    # Output -------------------------------------------------------------------------------------
    def _emit_pane(self, values: list[Any]) -> None:
        if self.collector is None:
            msg = f"{self.component}: the task emitted before prepare(); call prepare(conf, sink) first"
            raise RuntimeError(msg)
        self.collector.emit(values, DEFAULT_STREAM)

    # Snapshot and commit -------------------------------------------------------------------------
    def _system(self) -> dict[str, Any]:
        """Everything but the windows and buckets, as plain data."""
        return {
            "version": SNAPSHOT_VERSION,
            "now": self.clock.now(),
            "timers": self.timers.state(),
            "watermark": self._watermark,
            "marks": self.marks.state(),
            "late_tuples": self.late_tuples,
            "closed_window_drops": self.closed_window_drops,
            "seq": self.table.seq,
            "output_marks": self.table.saved_output_marks(),
            "dirty": [[list(k), s, e] for k, s, e in self.dirty],
        }

    def snapshot(self) -> dict[str, Any]:
        """The whole task state as plain, msgpack-able data (deterministic for the same history)."""
        self._settle()  # what an open batch added is in the state, as any placed tuple
        return {
            **self._system(),
            "windows": [ws.to_data() for ws in self.table.windows.values()],
            "buckets": self.table.saved_buckets(),
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Resume from :meth:`snapshot` (after :meth:`prepare`, which registers the timer this restores)."""
        self._restore_system(state)
        self._restore_table([WindowState.from_data(w) for w in state["windows"]], state["buckets"], state)

    def _restore_system(self, state: dict[str, Any]) -> None:
        check_version(state)
        self.clock.reset_to(state["now"])
        self.timers.restore(list(state["timers"]))
        self._watermark = state["watermark"]
        self.marks.restore(state["marks"])
        self.late_tuples = state["late_tuples"]
        self.closed_window_drops = state["closed_window_drops"]
        self.dirty = {(tuple(k), s, e): None for k, s, e in state["dirty"]}

    def _restore_table(self, windows: list[WindowState], buckets: list[list[Any]], system: dict[str, Any]) -> None:
        tracking = self.table.changes is not None
        self.table = WindowTable(self.spec)
        self.table.restore(windows, buckets, system["seq"], system["output_marks"])
        self.table.output_base = self._watermark
        if tracking:
            self.table.track_changes()

    def commit(self, batch_id: int) -> bool:
        """Write what changed since the last commit to the store, atomically with ``batch_id``.

        Returns False when the store had already committed ``batch_id`` (a replay;
        nothing is written). On a store error the exception propagates and the
        committed state is unchanged; the task must then be rebuilt from the store.
        """
        if self.store is None or self.table.changes is None:
            msg = (
                f"{self.component}: commit needs a state store: pass state=... (for example 'memory://') to "
                "the harness or the runner, and call prepare() first"
            )
            raise TypeError(msg)
        self._settle()  # what an open batch added is committed, as any placed tuple
        try:
            puts, deletes = state_writes(self._system(), self.table.changes, self.table)
        except TypeError as exc:
            msg = (
                f"{self.component}: the state of {type(self.bolt).__name__} cannot be stored ({exc}); the "
                f"accumulators of {self.spec.aggregator!r} must be plain data (None, bool, int, float, str, bytes, "
                "datetime, date, Tuple, PaneInfo, and lists, tuples and dicts of these)"
            )
            raise TypeError(msg) from exc
        applied = self.store.commit(batch_id, puts, deletes)
        self.table.take_changes()
        return applied

    # Timestamps ---------------------------------------------------------------------------------
    def _timestamp_reader(self) -> Callable[[Tuple], int]:
        return tuple_timestamps(self.spec.timestamp_field, self.spec.timestamp_extractor, self.clock.now)
