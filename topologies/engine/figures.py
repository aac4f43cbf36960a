"""What tasks report after a batch and what the batch loop makes of it: watermarks, event times, figures.

Every task, in every placement, answers a batch with one :class:`TaskStatus`.
From them the batch loop takes, once for every placement: each bolt's lowest
watermark (what its downstream bolts are given, :func:`lowest_watermark`), the
bolts' largest event times (:func:`gather_event_times`), each bolt's
:class:`~topologies.metrics.BoltMetrics` (:func:`bolt_metrics`) and the run's
totals (:class:`RunTotals`), where a batch Spark runs again replaces its
earlier count instead of adding to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bolts.codecs.value_codec import pack_value, unpack_value
from topologies.metrics import BoltMetrics

Stream = tuple[str, str]  # (component, stream)
EventTimes = dict[str, dict[Stream, int]]  # bolt -> input stream -> largest event time seen
KEEP_ROWS = 100  # batches whose row counts are kept; a replay needs only the last one


@dataclass(frozen=True)
class TaskStatus:
    """What one task reports after one batch (or the flush): figures, watermark, and its shuffle counters' ends.

    ``counters``: ``(stream, bolt, counter at the end)`` of every shuffle
    counter its emissions moved; ``types``: ``(kept stream, the DDL of the
    types its values showed)`` of the streams a sink keeps on the executors;
    ``event_times``: ``(component, stream, largest event time)`` when the task
    keeps Spark's watermark, else None; ``received``: ``(spout, stream, rows)``
    of the spout rows the task was given; ``built``: whether the task was built
    from its store for this batch (not kept warm from an earlier one); ``run_ms``:
    the wall time of the task's step (run, commit, routing of its emissions).
    """

    task: int
    watermark: int | None
    fired: int
    late: int
    state_bytes: int
    tuples_in: int
    tuples_out: int
    counters: tuple[tuple[str, str, int], ...] = ()
    types: tuple[tuple[str, str], ...] = ()
    event_times: tuple[tuple[str, str, int], ...] | None = None
    received: tuple[tuple[str, str, int], ...] = ()
    built: bool = False
    run_ms: float = 0.0

    def pack(self) -> bytes:
        """The status as bytes (it travels from a Spark worker to the batch loop)."""
        times = None if self.event_times is None else [list(t) for t in self.event_times]
        return pack_value([self.task, self.watermark, self.fired, self.late, self.state_bytes, self.tuples_in,
                           self.tuples_out, [list(c) for c in self.counters], [list(t) for t in self.types], times,
                           [list(r) for r in self.received], self.built, self.run_ms])

    @classmethod
    def unpack(cls, data: bytes) -> TaskStatus:
        """The status :meth:`pack` made ``data`` from."""
        (task, watermark, fired, late, written, tuples_in, tuples_out, counters, types, times, received, built,
         run_ms) = unpack_value(data)
        return cls(task, watermark, fired, late, written, tuples_in, tuples_out,
                   tuple((s, b, n) for s, b, n in counters), tuple((s, t) for s, t in types),
                   None if times is None else tuple((c, s, ts) for c, s, ts in times),
                   tuple((c, s, n) for c, s, n in received), built, run_ms)

    def event_time_maxima(self) -> dict[Stream, int] | None:
        """The task's largest event times per input stream (None when it keeps none)."""
        return None if self.event_times is None else {(c, s): ts for c, s, ts in self.event_times}


def lowest_watermark(marks: Iterable[int | None]) -> int | None:
    """The minimum of ``marks``; None when there are none or one is None (that task has no watermark yet)."""
    values = list(marks)
    if not values or any(m is None for m in values):
        return None
    return min(m for m in values if m is not None)


def gather_event_times(into: EventTimes, bolt: str, maxima: Iterable[Mapping[Stream, int] | None]) -> None:
    """Fold the tasks' largest event times (None for a task that keeps none) into ``into[bolt]``, keeping the largest.

    Spark's watermark (``with_spark_semantics``) is one per query: the largest
    event time seen on an input, over every partition, minus the delay. A
    bolt's tasks each see part of a stream, so after each batch the loop
    gathers every task's into one value per bolt and stream, and gives them to
    each task of the bolt in the next batch before it moves its watermark. The
    loop commits what each batch started and ended with (with the shuffle
    counters), so a replayed batch, or the first batch after a restart, starts
    where its first run started.
    """
    for task_maxima in maxima:
        if task_maxima is None:
            continue
        seen = into.setdefault(bolt, {})
        for stream, ts in task_maxima.items():
            key = (stream[0], stream[1])
            seen[key] = max(seen.get(key, ts), ts)


def bolt_metrics(statuses: Iterable[TaskStatus], batch_ms: float) -> BoltMetrics:
    """A bolt's figures of one batch from its tasks' statuses; ``batch_ms``: the wall time of the layer it ran in."""
    done = list(statuses)
    return BoltMetrics(
        tuples_in=sum(s.tuples_in for s in done), tuples_out=sum(s.tuples_out for s in done),
        windows_fired=sum(s.fired for s in done), late_tuples=sum(s.late for s in done),
        state_bytes=sum(s.state_bytes for s in done), batch_ms=batch_ms,
        watermark=lowest_watermark(s.watermark for s in done), tasks_built=sum(s.built for s in done),
    )


@dataclass
class RunTotals:
    """The run's figures so far, committed batches only: batches, input rows, replays, windows fired, late tuples.

    A batch counts once it ran through. Spark runs a batch id again after a
    failure or in a new process: its figures then replace the ones it was
    counted with (a task that committed it reports its committed figures), and
    it counts as a replay. The shutdown flush adds its windows.
    """

    batches: int = 0
    input_rows: int = 0
    replays: int = 0
    windows_fired: int = 0
    late_tuples: int = 0
    last_batch_id: int | None = None
    last_time_ms: int | None = None
    counted: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # the last KEEP_ROWS batches' figures

    def record(self, batch_id: int | None, rows: int, fired: int, late: int, replay: bool = False) -> None:
        """Count a batch that ran through (``batch_id`` None: the flush, which adds its windows and late tuples)."""
        if batch_id is not None:
            before = self.counted.pop(batch_id, None)
            if before is not None:  # a completed batch run again counts once
                self.batches -= 1
                self.input_rows, self.windows_fired, self.late_tuples = (
                    self.input_rows - before[0], self.windows_fired - before[1], self.late_tuples - before[2])
            self.counted[batch_id] = (rows, fired, late)
            self.counted.pop(batch_id - KEEP_ROWS, None)
            self.batches += 1
            self.input_rows += rows
            self.replays += replay
        self.windows_fired += fired
        self.late_tuples += late
