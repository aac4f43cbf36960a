"""Runs one task of a windowed bolt: timestamps, lateness, watermarks, timers and windows, in memory.

:class:`~bolts.storm.stored_windowed_bolt_task.StoredWindowedBoltTask` adds the
store to it, and is what the batch loop and ``BoltHarness`` run (both give every
task a store), so a bolt behaves the same in a unit test and on a cluster.
Time is injected: the caller moves processing time with :meth:`advance_to`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from itertools import groupby
from operator import attrgetter
from typing import Any, cast

import numpy as np

from bolts.collector import EmitSink, OutputCollector
from bolts.errors import TupleError
from bolts.storm.base_windowed_bolt import BaseWindowedBolt
from bolts.storm.table_rows import TableRows
from bolts.task import BoltTask, TaskOptions
from bolts.task_input import Segment, TaskInput
from bolts.timestamps import column_millis, is_timestamp_column, tuple_timestamps
from bolts.tuples import Fields, Tuple
from windowing import (
    Count,
    Duration,
    Event,
    ManualClock,
    PeriodicTimers,
    TupleWindow,
    WatermarkGenerator,
    WindowManager,
    WindowSpec,
)
from windowing.storm.block_buffer import BlockBuffer
from windowing.storm.blocks import Block
from windowing.storm.event_buffer import BufferFactory, EventBuffer
from windowing.storm.expired import Expired

log = logging.getLogger("squall.bolts")

# The final watermark of a bounded run: every event-time window that holds a tuple fires.
END_OF_TIME = 2**63 - 1

WindowObserver = Callable[[TupleWindow[Tuple]], None]

# A batch's timestamps, read up to the first tuple whose timestamp cannot be read, and that tuple's error.
BatchTimestamps = tuple[list[int], Exception | None]
TupleCheck = Callable[[Tuple], object]  # raises TupleError for a tuple the task cannot take

_stream_of = attrgetter("source_component", "stream")


def _itself(segment: Segment) -> Segment:
    return segment


def final_watermark(spec: WindowSpec, held: Callable[[], list[Event[Tuple]]]) -> int | None:
    """The watermark that ends a bounded run: every window holding a tuple fires once.

    Duration windows empty out as the watermark moves on, so the end of time is
    safe. A count window with a duration slide never empties (it keeps its last N
    tuples), so the watermark stops just past the end of the first window that
    holds the newest tuple (that end is below ``newest + slide``) instead of firing
    the same tuples forever; Storm-exact windows fire when the watermark reaches
    their end, so there it stops on ``newest + slide - 1``.
    """
    if isinstance(spec.length, Count) and isinstance(spec.slide, Duration):
        events = held()  # read only here: building every held event is not free
        if not events:
            return None
        return max(e.ts for e in events) + spec.slide.value - (1 if spec.storm_exact else 0)
    return END_OF_TIME


class WindowedBoltTask(BoltTask):
    """What Storm's ``WindowedBoltExecutor`` does for one task, on an injected clock.

    The options' ``input_streams`` are the ``(component, stream)`` pairs the task
    subscribes to; in event time the watermark waits for a tuple on each of them.
    The ``observer``, when given, sees each window just before the bolt does.

    In event time the watermark is emitted every watermark interval of processing
    time, as in Storm. With ``watermark_at_batch_end`` it is also emitted at every
    :meth:`end_batch`, through the same code as the timer, so the windows and late
    tuples of a run depend only on its batches, not on how fast they ran (the
    Spark executor turns it on).

    :meth:`execute_batch` gives exactly what :meth:`execute` of each tuple in
    turn gives, adding the batch at once where no window can fire within it
    (everywhere but a processing-time count slide). A tuple whose timestamp
    cannot be read is rejected (:meth:`BoltTask.reject`) before it reaches a
    window: onto the error stream, or the batch fails.
    """

    def __init__(self, bolt: BaseWindowedBolt, options: TaskOptions) -> None:
        super().__init__(bolt, options)
        component = options.component
        self.config = bolt.window_config
        self.config.validate(component)
        self.output_streams = bolt.output_streams(component)
        self.observer: WindowObserver | None = options.observer
        self.watermark_at_batch_end = options.watermark_at_batch_end
        self.clock = ManualClock(options.start_time_ms)
        self.timers = PeriodicTimers(self.clock)
        self.manager: WindowManager[Tuple] = self.config.spec().build(self, self.clock, self._buffer_factory())
        self.watermarks = (
            WatermarkGenerator(self.input_streams, self.config.lag_ms) if self.config.event_time else None
        )
        self._check = self._input_check()
        self._extract = self._timestamp_reader()
        self._read_batch = self._batch_timestamp_reader()
        self._add_batch = self._batch_path()
        # A spout's columnar segments go into the window unbuilt. Where the window holds rows as arrays (the
        # in-memory duration and count windows), from the start: a bolt that reads tuples gets them built per
        # window, in bulk, which costs less than building, holding and storing one Tuple and one event per row.
        # Elsewhere (Storm-exact and event-time count windows hold row events) once a window has shown that
        # the bolt reads only its to_arrow() (or nothing); a bolt that reads a window's tuples then gets them
        # built as they arrive, for good. Not for windows paged to the store (with_max_events_in_memory):
        # their pages hold built tuples.
        self._can_hold_blocks = (
            self._check is None and self.config.timestamp_extractor is None
            and self.config.max_events_in_memory is None
            and (self.watermarks is not None or not self.config.spec().fires_on_arrival)
        )
        self._holds_arrays = isinstance(getattr(self.manager.eviction, "buffer", None), BlockBuffer)
        self._rows_lazily = self._can_hold_blocks and self._holds_arrays
        self.late_tuples = 0
        self.collector: OutputCollector | None = None

    def _buffer_factory(self) -> BufferFactory:
        """How the window's event buffer is built (stateful tasks may page it to their store)."""
        return EventBuffer

    def _input_check(self) -> TupleCheck | None:
        """A check every input tuple must pass besides its timestamp (stateful tasks check message ids)."""
        return None

    # Life cycle -------------------------------------------------------------------------------
    def prepare(self, conf: dict[str, Any], sink: EmitSink) -> None:
        """Prepare the bolt with a collector that sends emitted tuples to ``sink``, then start."""
        self.prepare_bolt(conf, sink, self.output_streams)
        self.start()

    def start(self) -> None:
        """Start the trigger and, in event time, the watermark timer (from the current time)."""
        self.manager.trigger.start(self.timers)
        if self.watermarks is not None:
            self.timers.every(self.config.watermark_interval_ms, self._emit_watermark)

    def commit(self, batch_id: int) -> bool:
        """``TypeError``: this task keeps its windows in memory only (a task given a store stores them)."""
        msg = (
            f"{self.component}: commit needs a state store: a windowed task built without one keeps its windows "
            "in memory only; pass state=... (for example 'memory://') to the harness"
        )
        raise TypeError(msg)

    def close(self) -> None:
        """End of input: in event time, a final watermark fires every window holding tuples; then cleanup."""
        if self.watermarks is not None:
            final = final_watermark(self.config.spec(), self.manager.held)
            if final is not None and self.watermarks.advance(final):
                self.manager.add_watermark(final)
        self.bolt.cleanup()

    # Input ------------------------------------------------------------------------------------
    def execute(self, tup: Tuple) -> None:
        """Add a tuple to the window, route it as late, or reject it (its timestamp cannot be read)."""
        try:
            ts = self._extract(tup)  # the processing time when there is no event time
        except TupleError as error:
            self.reject(tup, error)
            return
        if self.watermarks is None:
            self._held((self.manager.add(tup, ts),))
            return
        if self.watermarks.track((tup.source_component, tup.stream), ts):
            self._held((self.manager.add(tup, ts),))
        else:
            self._late(tup, ts)

    def execute_batch(self, batch: TaskInput) -> None:
        """Deliver a micro-batch's tuples: exactly what :meth:`execute` of each in turn gives.

        In event time the watermark does not move within a batch, so each tuple's
        lateness is judged against it, the watermark generator takes each stream's
        largest timestamp, and the window's buffer merges the on-time tuples in at
        once. In processing time every tuple gets the batch's time. A processing-time
        count slide can fire on any tuple: its tuples are executed one by one (the
        path is chosen when the task is built).
        """
        schemas = self.manager.arrow_schemas
        for segment in batch.segments:
            if segment.table is not None:
                schemas[tuple(segment.fields)] = segment.table.schema
        if self._rows_lazily and all(self._block_ready(s) for s in batch.segments):
            self._add_blocks(batch.segments)
        else:
            self._add_batch(batch.tuples())

    def _block_ready(self, segment: Segment) -> bool:
        """Whether a segment can go into the window as a columnar block (timestamps read from its column)."""
        table = segment.table
        if table is None:
            return False
        field = self.config.timestamp_field
        return field is None or (field in table.column_names and is_timestamp_column(table.column(field)))

    def _add_blocks(self, segments: list[Segment]) -> None:
        """:meth:`_add_batch` of segments held as columnar blocks: no ``Tuple`` is built for a held row.

        The same events, in the same order, as the tuple path: in event time the
        generator takes each segment's largest timestamp before lateness is judged
        against the (unmoved) watermark, on-time rows are held, and late rows go to
        the late stream after them, in arrival order.
        """
        field = self.config.timestamp_field
        watermarks = self.watermarks
        # Row events (windows that hold no arrays) read a segment's tuples, built once for all its rows.
        source = TableRows.of if self._holds_arrays else _itself
        if watermarks is None:  # processing time: every tuple gets the batch's time
            now = self.clock.now()
            for segment in segments:
                stamps = np.full(len(segment), now, np.int64)
                self._held(self.manager.add_rows(source(segment), None, stamps), stamps)
            return
        stamped = [(segment, column_millis(segment.table.column(field))) for segment in segments]  # type: ignore[union-attr]
        for segment, stamps in stamped:
            watermarks.track_max((segment.source_component, segment.stream), int(stamps.max()))
        watermark = watermarks.watermark
        late: list[tuple[Segment, int, int]] = []
        for segment, stamps in stamped:
            if int(stamps.min()) >= watermark:
                self._held(self.manager.add_rows(source(segment), None, stamps), stamps)
                continue
            on_time = stamps >= watermark
            rows = on_time.nonzero()[0]
            if len(rows):
                self._held(self.manager.add_rows(source(segment), rows, stamps[rows]), stamps[rows])
            late += [(segment, row, int(stamps[row])) for row in (~on_time).nonzero()[0].tolist()]
        for segment, row, ts in late:
            self._late(segment.tuple_at(row), ts)

    def _batch_path(self) -> Callable[[list[Tuple]], None]:
        if self.watermarks is not None:
            return self._add_event_time_batch
        if self.config.spec().fires_on_arrival:
            return self._execute_each
        if self._check is not None:
            return self._add_checked_processing_time_batch
        return self._add_processing_time_batch

    def _execute_each(self, tuples: list[Tuple]) -> None:
        for tup in tuples:
            self.execute(tup)

    def _add_processing_time_batch(self, tuples: list[Tuple]) -> None:
        self._held(self.manager.add_all(tuples, [self.clock.now()] * len(tuples)))

    def _add_checked_processing_time_batch(self, tuples: list[Tuple]) -> None:
        for run, stamps in self._stamped_runs(tuples):
            if run:
                self._held(self.manager.add_all(run, stamps))

    def _stamped_runs(self, tuples: list[Tuple]) -> Iterator[tuple[list[Tuple], list[int]]]:
        """The batch in runs of tuples with their timestamps, each tuple between two runs rejected in turn.

        The watermark does not move within a batch, so adding the runs one after
        the other gives what adding the batch at once would, and the rejected
        tuples are reported in arrival order; when one fails the batch, the
        tuples before it have been processed, as one by one.
        """
        while True:
            stamps, error = self._read_batch(tuples)
            done = len(stamps)
            yield tuples[:done], stamps
            if error is None:
                return
            self.reject(tuples[done], error)
            tuples = tuples[done + 1 :]

    def _add_event_time_batch(self, tuples: list[Tuple]) -> None:
        for run, stamps in self._stamped_runs(tuples):
            if run:
                self._add_stamped(run, stamps)

    def _add_stamped(self, tuples: list[Tuple], stamps: list[int]) -> None:
        watermarks = cast(WatermarkGenerator, self.watermarks)  # this path is chosen in event time only
        start = 0
        for stream, run in groupby(tuples, _stream_of):
            end = start + len(list(run))
            watermarks.track_max(stream, max(stamps[start:end]))
            start = end
        watermark = watermarks.watermark
        if stamps and min(stamps) < watermark:
            late = [(tup, ts) for tup, ts in zip(tuples, stamps, strict=True) if ts < watermark]
            tuples = [tup for tup, ts in zip(tuples, stamps, strict=True) if ts >= watermark]
            stamps = [ts for ts in stamps if ts >= watermark]
        else:
            late = []
        self._held(self.manager.add_all(tuples, stamps))
        for tup, ts in late:
            self._late(tup, ts)

    def _held(self, events: Sequence[Event[Tuple]] | Block, stamps: Any = None) -> None:
        """Tuples were added to the window, in arrival order (stateful tasks record them).

        As events, or as one columnar block with its rows' timestamps ``stamps`` (an array).
        """

    def _late(self, tup: Tuple, ts: int) -> None:
        self.late_tuples += 1
        stream = self.config.late_tuple_stream
        if stream is not None and self.collector is not None:
            self.collector.emit([tup], stream)
        else:
            log.info(
                "%s: late tuple %r with timestamp %d (watermark %d) is not processed",
                self.component, tup, ts, self.watermarks.watermark if self.watermarks else 0,
            )

    def end_batch(self) -> None:
        """The micro-batch is delivered: with ``watermark_at_batch_end``, emit the watermark as its timer would."""
        if self.watermark_at_batch_end:
            self._emit_watermark(self.clock.now())

    def is_late(self, ts: int) -> bool:
        """Whether a tuple with timestamp ``ts`` would be late now."""
        return self.watermarks is not None and ts < self.watermarks.watermark

    def advance_to(self, now_ms: int) -> None:
        """Move processing time to ``now_ms``, firing the timers due on the way, each at its instant."""
        self.timers.advance_to(now_ms)

    def advance_watermark(self, ts: int, stream: tuple[str, str] | None = None) -> None:
        """Take a watermark from upstream: windows it completes fire and older tuples become late.

        Storm-style windows keep one watermark for all inputs, so ``stream`` must be
        None (``WindowedAggregateBolt`` takes per-input watermarks).
        """
        if stream is not None:
            msg = (
                f"advance_watermark: bolt {self.component!r} keeps one watermark for all its inputs; "
                f"got one for {stream!r} (WindowedAggregateBolt takes per-input watermarks)"
            )
            raise ValueError(msg)
        if self.watermarks is None:
            msg = f"advance_watermark: bolt {self.component!r} uses processing time; watermarks need event time"
            raise ValueError(msg)
        if self.watermarks.advance(ts):
            self.manager.add_watermark(ts)

    @property
    def accepts_watermarks(self) -> bool:
        """Only event-time windows take watermarks."""
        return self.watermarks is not None

    @property
    def watermark(self) -> int | None:
        """The current watermark, None in processing time."""
        return self.watermarks.watermark if self.watermarks is not None else None

    def _emit_watermark(self, now: int) -> None:
        ts = self.watermarks.compute() if self.watermarks is not None else None
        if ts is not None:
            self.manager.add_watermark(ts)

    # System state -----------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Everything but the held tuples needed to resume this task exactly, as plain data."""
        return {
            "now": self.clock.now(),
            "late_tuples": self.late_tuples,
            "timers": self.timers.state(),
            "manager": self.manager.state(),
            "watermarks": self.watermarks.state() if self.watermarks is not None else None,
        }

    def restore(
        self, state: dict[str, Any], held: list[Event[Tuple]], expired: list[Event[Tuple]],
        blocks: Sequence[tuple[Block, Any]] = (),
    ) -> None:
        """Resume from :meth:`state` plus the held tuples and those expired but not yet reported.

        Held tuples are events, and columnar ``blocks`` each with its rows' timestamps.

        Call after :meth:`prepare` (which registers the timers this restores).
        """
        self.clock.reset_to(state["now"])
        self.timers.restore(state["timers"])
        self.late_tuples = state["late_tuples"]
        self.manager.restore(state["manager"], held, expired, blocks)
        if self.watermarks is not None and state["watermarks"] is not None:
            self.watermarks.restore(state["watermarks"])

    # Window life cycle ------------------------------------------------------------------------
    def on_activation(self, window: TupleWindow[Tuple]) -> None:
        """Hand the window to the observer, then to the bolt."""
        if self.observer is not None:
            self.observer(window)
        self.bolt.execute(window)
        self.check_failed()
        if window.read_values and not self._holds_arrays:
            self._can_hold_blocks = False
        self._rows_lazily = self._can_hold_blocks

    def on_expiry(self, events: Expired) -> None:
        """Expired tuples are done with (a stored task records them for its next commit)."""

    # Timestamps -------------------------------------------------------------------------------
    def _timestamp_reader(self) -> Callable[[Tuple], int]:
        """Reads a tuple's timestamp (the processing time when there is no event time), after the input check."""
        read = self._plain_timestamp_reader()
        check = self._check
        if check is None:
            return read

        def read_checked(tup: Tuple) -> int:
            check(tup)
            return read(tup)

        return read_checked

    def _plain_timestamp_reader(self) -> Callable[[Tuple], int]:
        return tuple_timestamps(self.config.timestamp_field, self.config.timestamp_extractor, self.clock.now)

    def _batch_timestamp_reader(self) -> Callable[[list[Tuple]], BatchTimestamps]:
        """Reads a batch's timestamps: the errors are :meth:`_timestamp_reader`'s, at the same tuple."""
        read_one = self._extract
        field = self.config.timestamp_field

        def read_each(tuples: list[Tuple]) -> BatchTimestamps:
            stamps: list[int] = []
            for tup in tuples:
                try:
                    stamps.append(read_one(tup))
                except Exception as error:  # the extractor's own errors too: raised once the tuples before it are in
                    return stamps, error
            return stamps, None

        if field is None or self._check is not None:
            return read_each

        def read_column(tuples: list[Tuple]) -> BatchTimestamps:
            stamps: list[int] = []
            append = stamps.append
            fields: Fields | None = None
            index = -1
            for tup in tuples:
                if tup.fields is not fields:
                    fields = tup.fields
                    index = fields.index(field) if field in fields else -1
                value = tup.values[index] if index >= 0 else None
                if type(value) is not int:
                    try:
                        value = read_one(tup)  # an Integral converted, else read_field's TupleError
                    except TupleError as error:
                        return stamps, error
                append(value)
            return stamps, None

        return read_column

