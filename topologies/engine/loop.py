"""The batch loop: the ``foreachBatch`` body of every topology, whatever its placement.

:class:`BatchLoop` owns a micro-batch from the call Spark makes to the commit:

- its processing time, from the batch clock (recorded the first time the batch
  runs, reused when Spark runs it again);
- the shuffle counters and the bolts' largest event times it starts from
  (those it started from before, if it was committed:
  :class:`~topologies.engine.task_store.RouterCounters`), so a replayed batch
  routes as its first run did;
- the walk: the spouts' rows to the placement
  (:meth:`~topologies.engine.placements.base.StageEngine.begin`), then each
  layer of bolts (:func:`~topologies.engine.stage.layers`), each bolt told the
  lowest watermark of the bolts it reads (:class:`~topologies.engine.stage.StageSpec`),
  its tasks' statuses folded into the counters, watermarks, event times and figures;
  a placement that runs every layer at once (one Spark job) gets every stage
  first, each bolt's tasks taking that watermark from their upstream tasks' marks;
- every output: the placement's :class:`~topologies.sinks.base.OutputBatch`
  goes to every sink, the run's own (outputs in memory, ``output_dir``,
  ``on_output``) among them;
- the counters' commit, the run's totals (a batch run again replaces its
  count) and the batch's figures;
- the shutdown flush: the same walk, closing every task, once per last batch
  (:class:`~topologies.engine.flush_record.FlushRecord`).

Replay: Spark runs a batch id again when the query stopped after some of the
batch's tasks committed but before Spark's commit; each task whose store
holds the batch re-sends its committed emissions instead of running, and
every other task is rebuilt from its store before it runs.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from bolts.codecs.value_codec import register_from_conf
from bolts.task_input import collector_paused
from topologies.engine.batch_clock import BatchClock
from topologies.engine.batch_layout import BatchLayout
from topologies.engine.delivery.output_types import output_streams
from topologies.engine.delivery.sink_delivery import SinkDelivery
from topologies.engine.figures import EventTimes, RunTotals, TaskStatus, bolt_metrics, gather_event_times
from topologies.engine.figures import lowest_watermark as lowest
from topologies.engine.flush_record import FlushRecord, cut_off
from topologies.engine.placements.base import LayerResult, SpoutCounts, StageEngine
from topologies.engine.routing import CounterKey, RoutingTable, moved_by_spouts
from topologies.engine.stage import StageSpec, layers
from topologies.engine.task_store import RouterCounters, task_namespaces
from topologies.failures import reported_to_spark
from topologies.metrics import BatchMetrics, BoltMetrics, MetricsHistory
from topologies.sinks.output_log import OutputFiles, OutputLog
from topologies.sinks.records import FINAL
from topologies.sinks.typed_outputs import parse_schema
from topologies.topology import Topology

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from state_backends import StateBackend
    from topologies.engine.remote.run_files import RunWriter


@dataclass
class Walk:
    """What one walk of the layers gave: the counters and event times it ended with, rows, figures, marks."""

    counters: dict[CounterKey, int]
    event_times: EventTimes
    rows: int = 0
    bolts: dict[str, BoltMetrics] = field(default_factory=dict)

    @property
    def fired(self) -> int:
        """Windows fired by every bolt."""
        return sum(m.windows_fired for m in self.bolts.values())

    @property
    def late(self) -> int:
        """Late tuples of every bolt."""
        return sum(m.late_tuples for m in self.bolts.values())


class BatchLoop:
    """The ``foreachBatch`` function of a topology (see the module docstring).

    Call it as ``loop(df, batch_id)`` (what Spark does) or :meth:`run` with
    rows already in this process. A bolt error (a :class:`bolts.TupleError`
    for a bad tuple) fails the batch; it is kept in :attr:`error` for the
    handle to re-raise. The shuffle counters and the flush record live in
    ``backend`` under ``<name>/__router`` and ``<name>/__flush``; ``state_url``
    names the same store for tasks that open it themselves (on Spark's
    executors). ``sinks`` take every batch's outputs, ``log`` among them (the
    outputs :meth:`TopologyHandle.outputs` reads), ``files`` too when the run
    has an ``output_dir``; ``run_writer`` writes each batch's figures for a
    client in another process (Spark Connect). A backend with a ``hold()``
    context (a journaled store) makes each batch's commits durable together
    when the batch ends.
    """

    def __init__(
        self, topology: Topology, conf: Mapping[str, Any], clock: BatchClock, placement: StageEngine,
        backend: StateBackend, *, name: str = "topology", state_url: str = "memory://",
        sinks: SinkDelivery, log: OutputLog, files: OutputFiles | None = None, run_writer: RunWriter | None = None,
    ) -> None:
        register_from_conf(conf)  # outputs read here may hold registered objects (Spark Connect's server too)
        self.topology = topology
        self.conf = dict(conf)
        self.clock = clock
        self.placement = placement
        self.backend = backend
        self.name = name
        self.state_url = state_url
        self.sinks = sinks
        self.log = log
        self.files = files
        self.run_writer = run_writer
        self.layout = BatchLayout(topology)
        self.routing = RoutingTable.of(topology)
        self.layers = layers(topology)
        read = sinks.read(output_streams(topology))
        # Per bolt, its output streams no sink reads: their tuples go nowhere (nothing comes back for them).
        self.dropped = {bolt: frozenset(s for s in streams if f"{bolt}:{s}" not in read and (bolt, s) not in
                                        topology.subscribers) for bolt, streams in topology.streams.items()}
        self.generation = uuid.uuid4().hex  # a Spark worker's warm task of another submission is rebuilt
        self.counters_store = RouterCounters(backend, name)
        self.flush_record = FlushRecord(backend, name)
        self.totals = RunTotals()
        self.metrics = MetricsHistory()  # the figures of the last batches, by batch id
        self.marks: dict[str, list[int | None]] = {}  # each bolt's task watermarks after the last walk
        self.error: BaseException | None = None
        self.flushed = False
        self._lock = threading.Lock()

    # A batch ------------------------------------------------------------------------------------
    def __call__(self, df: DataFrame, batch_id: int) -> None:
        """Run one Spark micro-batch."""
        self.sinks.spark = df.sparkSession  # the sinks write with the session of the batches
        try:
            self._run(batch_id, self.placement.source_of(df))
        except BaseException as err:
            self.error = err  # raised by the handle; Spark gets a short report (see topologies.failures)
            raise reported_to_spark(err, batch_id) from None

    def run(self, batch_id: int, rows: Mapping[str, Any] | pa.Table) -> None:
        """Run batch ``batch_id`` (again, if it ran before) on rows in this process.

        ``rows``: each spout's rows (value lists or Arrow tables), read as if in
        one Spark partition, number 0; or the spouts' unioned rows as
        :class:`~topologies.engine.batch_layout.BatchLayout` lays them out, with
        the partition each was read in.
        """
        table = rows if isinstance(rows, pa.Table) else self.layout.encode(rows)
        self._run(batch_id, self.placement.source_of_table(table))

    def _run(self, batch_id: int, source: Any) -> None:
        register_from_conf(self.conf)  # this topology's classes and fall-back key, whichever ran last in the process
        with self._lock, self._held():
            started = self.clock.started(batch_id)  # by this process or an earlier one (then Spark runs it again)
            now = self.clock.time_of(batch_id, self.totals.last_time_ms)
            last = self.totals.last_batch_id
            replay = started or (last is not None and batch_id <= last)  # counted once the batch completes
            # From here the placement may run part of the batch: if it fails, Spark runs it again.
            self.totals.last_batch_id, self.totals.last_time_ms = batch_id, now
            start = self.counters_store.start_of(batch_id)
            times = self.counters_store.event_times_of(batch_id)
            after_flush = self.flush_record.done_after(batch_id - 1)
            # The cyclic collector waits for the batch's end, as it does while a task runs: by then most of the
            # batch's objects (tuples, emissions, routed rows) are freed, and it never rescans them in between.
            with collector_paused(), self._walked(batch_id, source, now, start, times, after_flush) as (walk, batch):
                self.sinks.write(batch)
            self.counters_store.commit(batch_id, start, walk.counters, times, walk.event_times)
            self.totals.record(batch_id, walk.rows, walk.fired, walk.late, replay)
            metrics = BatchMetrics(batch_id=batch_id, input_rows=walk.rows, time_ms=now,
                                   watermark=self.counters()[0], bolts=walk.bolts, replay=replay)
            self.metrics.record(metrics)
            if self.run_writer is not None:
                self.run_writer.write_metrics(metrics, self.figures())

    @contextlib.contextmanager
    def _walked(self, batch_id: int | None, source: Any, now: int | None, start: Mapping[CounterKey, int],
                times: EventTimes, after_flush: bool = False) -> Iterator[tuple[Walk, Any]]:
        """Walk the layers (closing every task when ``batch_id`` is None); the walk and its outputs, until released."""
        walk = Walk(dict(start), {bid: dict(seen) for bid, seen in times.items()})
        self.placement.begin(source, start)
        try:
            if self.placement.fuses_layers:  # every layer at once: each bolt's tasks take their watermark from marks
                stages = [[self._stage(bid, batch_id, now, times, after_flush) for bid in layer]
                          for layer in self.layers]
                started = time.perf_counter()
                results = self.placement.run_layers(stages, start) if stages else []
                walked = [(layer, result, (time.perf_counter() - started) * 1000)
                          for layer, result in zip(stages, results, strict=True)]
            else:
                walked = self._walk_layers(batch_id, now, times, after_flush, start)
            for layer, result, elapsed in walked:
                self._count_spouts(result.spouts, walk)
                for spec in layer:
                    own = result.elapsed_ms.get(spec.component, elapsed)
                    self._fold(spec, result.statuses.get(spec.component, []), own, walk)
            batch, counts = self.placement.end(FINAL if batch_id is None else batch_id, self.sinks)
            self._count_spouts(counts, walk)
            yield walk, batch
        finally:
            self.placement.release()

    def _walk_layers(self, batch_id: int | None, now: int | None, times: EventTimes, after_flush: bool,
                     start: Mapping[CounterKey, int]) -> Iterator[tuple[list[StageSpec], LayerResult, float]]:
        """Each layer in turn, made when the layers before it have reported (their watermarks): stages, result, ms."""
        for layer in self.layers:
            stages = [self._stage(bid, batch_id, now, times, after_flush) for bid in layer]
            started = time.perf_counter()
            result = self.placement.run_layer(stages, start)
            yield stages, result, (time.perf_counter() - started) * 1000

    def _stage(self, bolt: str, batch_id: int | None, now: int | None, times: EventTimes,
               after_flush: bool) -> StageSpec:
        spec = self.topology.bolts[bolt]
        ups = [up for up in self.topology.upstream(bolt) if up in self.topology.bolts]
        fused = self.placement.fuses_layers
        kept = {} if not self.placement.keeps_on_executors else {
            s.split(":")[1]: self.sinks.types.of(s) for s in sorted(self.sinks.kept) if s.split(":")[0] == bolt}
        return StageSpec(
            topology=self.name, generation=self.generation, component=bolt, bolt=spec.bolt,
            parallelism=spec.parallelism, inputs=tuple((s.component, s.stream) for s in spec.subscriptions),
            conf=self.conf, state_url=self.state_url, batch_id=batch_id, now_ms=now,
            watermark=None if fused and ups else lowest(m for up in ups for m in self.marks.get(up, [None])),
            event_times=dict(times.get(bolt, {})), after_flush=after_flush, kept=kept,
            dropped=self.dropped.get(bolt, frozenset()),
            watermark_from={up: self.topology.bolts[up].parallelism for up in ups} if fused else {},
            marks_to=tuple((b, self.topology.bolts[b].parallelism) for b in self.topology.order
                           if bolt in self.topology.upstream(b)) if fused else (),
        )

    def _fold(self, spec: StageSpec, statuses: list[TaskStatus], elapsed_ms: float, walk: Walk) -> None:
        """What a bolt's tasks reported: watermarks, event times, figures, counters, and the kept streams' types."""
        bolt = spec.component
        statuses = sorted(statuses, key=lambda s: s.task)
        if [s.task for s in statuses] != list(range(spec.parallelism)):
            missing = sorted(set(range(spec.parallelism)) - {s.task for s in statuses})
            msg = f"bolt {bolt!r}: tasks {missing} gave no answer"
            raise RuntimeError(msg)
        self.marks[bolt] = [s.watermark for s in statuses]
        gather_event_times(walk.event_times, bolt, (s.event_time_maxima() for s in statuses))
        walk.bolts[bolt] = bolt_metrics(statuses, elapsed_ms)
        for status in statuses:
            for stream, target, counter in status.counters:
                walk.counters[bolt, status.task, stream, target] = counter
            for stream, shown in status.types:  # the kept streams' types, as the values showed them
                if shown:
                    self.sinks.types.of(f"{bolt}:{stream}").learn(dict(parse_schema(shown)))

    def _count_spouts(self, counts: SpoutCounts, walk: Walk) -> None:
        walk.rows += moved_by_spouts(self.routing, counts, walk.counters)

    def _held(self) -> contextlib.AbstractContextManager[Any]:
        hold = getattr(self.backend, "hold", None)
        return hold() if callable(hold) else contextlib.nullcontext()

    # Figures ------------------------------------------------------------------------------------
    def counters(self) -> tuple[int | None, int, int]:
        """The lowest task watermark (None if none has one), windows fired, and late tuples, so far."""
        marks = [m for ms in self.marks.values() for m in ms if m is not None]
        return (min(marks) if marks else None), self.totals.windows_fired, self.totals.late_tuples

    def figures(self) -> dict[str, Any]:
        """The run's figures so far: batches, input rows, replays, lowest watermark, windows fired, late tuples."""
        watermark, fired, late = self.counters()
        t = self.totals
        return {"batches": t.batches, "input_rows": t.input_rows, "replays": t.replays,
                "last_batch_id": t.last_batch_id, "watermark": watermark, "windows_fired": fired,
                "late_tuples": late}

    # The shutdown flush -------------------------------------------------------------------------
    def flush(self) -> None:
        """End of input: close every task (Storm's shutdown flush) and write what they emit as ``"final"``.

        Runs once per loop, and once per last batch: the flush after a batch
        whose flush is done does nothing, and a topology that never committed a
        batch has nothing to flush. The flush commits no task state; the next
        batch resumes the tasks from the store, as the last batch left them.

        A batch cut off (by ``stop()``) after some of its tasks committed it
        leaves those tasks' state past the last batch: closing them would fire
        the cut-off batch's tuples in the flush, and again when Spark runs the
        batch again. Then nothing is flushed, as after a killed driver: the
        next submit runs the batch again and goes on, and the windows fire
        then (a warning on ``squall.engine`` says so).
        """
        with self._lock:
            if not self.flushed:
                self._flush_after(self.counters_store.last_batch())
            self.flushed = True

    def complete_pending_flush(self) -> None:
        """Complete a flush an earlier process began after its last batch and did not finish (``submit`` calls it)."""
        with self._lock:
            pending = self.flush_record.pending()
            if pending is not None:
                self._flush_after(pending)

    def _flush_after(self, last: int | None) -> None:
        """Mark the flush after ``last`` begun, close every task, write the outputs as final, mark it done.

        A task that committed a batch after ``last``, before the flush begins or
        once the tasks are closed (a task of a cancelled job can still commit
        while the stop returns), means nothing is written (:func:`cut_off`).
        """
        if last is None or cut_off(last, self._tasks_ahead_of(last)) or not self.flush_record.begin(last):
            return
        register_from_conf(self.conf)
        now = self.clock.time_of(last, None)
        start, times = self.counters_store.at_end(), self.counters_store.event_times_at_end()
        with self._held(), self._walked(None, None, now, start, times) as (walk, batch):
            if cut_off(last, self._tasks_ahead_of(last)):
                return  # begun and not done: a later submit finds it pending, and a task ahead, and leaves it
            self.sinks.write(batch)
            self.totals.record(None, 0, walk.fired, walk.late)
        self.flush_record.done(last)

    def _tasks_ahead_of(self, last: int) -> list[str]:
        ahead = []
        for namespace in task_namespaces(self.name, self.topology.bolts):
            committed = self.backend.namespace(namespace).committed_batch_id()
            if committed is not None and committed > last:
                ahead.append(namespace)
        return ahead
