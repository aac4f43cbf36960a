"""``SparkRunner``: submits a topology as one Structured Streaming query and returns a handle to it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from state_backends import SCHEMES, StateBackend, open_backend, redact
from state_backends.urls import scheme_of
from topologies.config import Config, check_conf, log_settings
from topologies.engine import PLACEMENTS, BatchLayout, BatchLoop, RunSpec, build_loop
from topologies.engine.batch_clock import wall_clock_ms
from topologies.engine.remote.batch_function import BatchFunction
from topologies.engine.remote.carried_code import carried
from topologies.engine.remote.run_files import RunReader
from topologies.engine.ship import check_spouts_travel
from topologies.engine.ship import ship_code as ship_to_executors
from topologies.engine.store_check import check_store_not_behind, last_committed_batch
from topologies.engine.task_store import namespace_name
from topologies.failures import cancelled_by_stop, stopped_by
from topologies.metrics import (
    END_OF_TIME,
    BatchMetrics,
    MetricsHistory,
    ProgressCallback,
    format_watermark,
)
from topologies.sinks.base import Sink
from topologies.sinks.output_log import DEFAULT_OUTPUTS_IN_MEMORY, OutputSink
from topologies.sinks.records import Output, record
from topologies.state_providers import resolve_state
from topologies.storage import is_local, local_path
from topologies.topology import Topology
from windowing import Duration
from windowing.duration import as_duration

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession
    from pyspark.sql.streaming import StreamingQuery

    from topologies.progress_listener import SquallProgressListener

MODES = tuple(PLACEMENTS)
NO_TOTALS = {"batches": 0, "input_rows": 0, "replays": 0, "last_batch_id": None, "watermark": None,
             "windows_fired": 0, "late_tuples": 0}


def is_connect(spark: SparkSession) -> bool:
    """Whether ``spark`` is a Spark Connect session (``SparkSession.builder.remote(...)``)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


@dataclass(frozen=True)
class Progress:
    """A progress report: Spark's last streaming progress plus the bolts' counters.

    ``rows_per_second`` is Spark's ``processedRowsPerSecond`` of the last batch
    (heartbeat rows included); ``watermark`` is the lowest watermark of any bolt
    task (epoch ms, None when no bolt runs in event time; ``END_OF_TIME`` after
    the shutdown flush); ``batches``, ``input_rows``, ``replays``,
    ``windows_fired`` and ``late_tuples`` count the whole run, committed batches
    only (a batch a failure or a stop interrupted counts when it runs again;
    ``replays`` counts the batches Spark ran again, after a failure or in a new
    process). ``last_batch`` is squall's :class:`~topologies.metrics.BatchMetrics` of
    the last batch (per-bolt figures), ``wall_clock_ms`` when this report was
    made (for the watermark's lag).
    """

    batches: int
    last_batch_id: int | None
    input_rows: int
    rows_per_second: float
    watermark: int | None
    windows_fired: int
    late_tuples: int
    replays: int
    last_batch: BatchMetrics | None = None
    wall_clock_ms: int | None = None

    @property
    def watermark_lag_ms(self) -> int | None:
        """How far the watermark is behind the wall clock (None without a watermark, or at the end of time)."""
        if self.watermark is None or self.wall_clock_ms is None or self.watermark >= END_OF_TIME:
            return None
        return self.wall_clock_ms - self.watermark

    def line(self) -> str:
        """One line for a console: the run's totals and watermark, then the last batch's figures, each labelled.

        ``run: batches 12  rows 4800  replays 0  windows fired 31  late tuples 2  watermark ... |
        last batch 11: rows/s 812.0  sum in 400 out 3 ...`` (``last batch 11 (replay)`` when Spark ran it again).
        """
        line = (
            f"run: batches {self.batches}  rows {self.input_rows}  replays {self.replays}  "
            f"windows fired {self.windows_fired}  late tuples {self.late_tuples}  "
            f"watermark {format_watermark(self.watermark, self.wall_clock_ms)}"
        )
        if self.last_batch_id is not None:
            replay = " (replay)" if self.last_batch is not None and self.last_batch.replay else ""
            line += f"  | last batch {self.last_batch_id}{replay}: rows/s {self.rows_per_second:.1f}"
            if self.last_batch is not None and self.last_batch.bolts:
                line += f"  {self.last_batch.bolts_line()}"
        return line


@dataclass
class RemoteRun:
    """A run whose batches run in another process (Spark Connect): its spec and what the client reads of it."""

    spec: RunSpec
    reader: RunReader
    spark: SparkSession
    backend: StateBackend | None  # the client's connection to a shared store; None for a journaled memory://


class TopologyHandle:
    """A submitted topology: wait for it, stop it, read its progress and its outputs.

    In a classic session it reads the batch loop in this process; under Spark
    Connect the batches run beside the server and the handle reads what that
    loop wrote beside the checkpoint (outputs and figures), and runs the
    shutdown flush here, from the state store.
    """

    def __init__(self, name: str, query: StreamingQuery, loop: BatchLoop, available_now: bool,
                 remote: RemoteRun | None = None) -> None:
        self.name = name
        self.query = query
        self.loop = loop
        self.available_now = available_now
        self.remote = remote
        self._flushed = False

    def await_termination(self, timeout: float | None = None) -> bool:
        """Wait until the query ends (or ``timeout`` seconds pass); True when it ended.

        A bounded run (``available_now``) that ends flushes the bolts as Storm does
        at shutdown. When a batch failed, the bolt's error (a ``TupleError`` for a
        bad tuple) is raised here, chained to Spark's ``StreamingQueryException``
        (under Spark Connect, Spark's exception itself, whose message holds the bolt's).
        """
        from pyspark.errors import StreamingQueryException

        try:
            ended = self.query.awaitTermination(timeout) if timeout is not None else self.query.awaitTermination()
        except StreamingQueryException:
            if self.loop.error is None:
                raise
            raise self.loop.error from None  # the bolt's error alone: Spark's holds only its short report
        ended = True if ended is None else bool(ended)
        if ended and self.available_now and self.query.exception() is None:
            self.flush()
        return ended

    def stop(self, flush: bool = True) -> None:
        """Stop the query; with ``flush``, close the bolts (Storm's shutdown flush) after the last complete batch.

        A batch the stop interrupts does not count: it did not commit, and runs
        again when the query restarts. When the query had failed, the error is
        raised (as :meth:`await_termination` raises it) and nothing is flushed.
        """
        self.query.stop()
        error, failure = self.loop.error, self.query.exception()
        if failure is not None and not stopped_by(failure):  # the query failed on its own: its error, whole
            raise error or failure
        if error is not None and not cancelled_by_stop(error):
            raise error
        self.loop.error = None  # only the batch the stop interrupted failed: it runs again on restart
        if flush:
            self.flush()

    def flush(self) -> None:
        """Close the bolts after the last complete batch (Storm's shutdown flush), once; the query must be stopped.

        Under Spark Connect the flush runs in this process, on tasks built from the state store.
        """
        if self.remote is not None and not self.loop.flushed:
            remote = self.remote
            self.loop = build_loop(remote.spec, remote.backend, remote.spark)
        self.loop.flush()
        self._flushed = True

    @property
    def is_active(self) -> bool:
        """Whether the query is running."""
        return bool(self.query.isActive)

    def _history(self) -> MetricsHistory:
        if self.remote is None:
            return self.loop.metrics
        history = MetricsHistory()
        for metrics, _ in self.remote.reader.metrics():
            history.record(metrics)
        return history

    @property
    def progress(self) -> Progress:
        """The current :class:`Progress`."""
        last = self.query.lastProgress or {}
        if self.remote is None:
            totals = self.loop.figures()
        else:
            records = self.remote.reader.metrics()
            totals = records[-1][1] if records else dict(NO_TOTALS)
            if self._flushed:  # the flush ran here: its watermark and windows
                watermark, fired, _ = self.loop.counters()
                totals = {**totals, "watermark": watermark, "windows_fired": totals["windows_fired"] + fired}
        return Progress(
            batches=totals["batches"], last_batch_id=totals["last_batch_id"], input_rows=totals["input_rows"],
            rows_per_second=float(last.get("processedRowsPerSecond") or 0.0),
            watermark=totals["watermark"], windows_fired=totals["windows_fired"], late_tuples=totals["late_tuples"],
            replays=totals["replays"], last_batch=self.metrics(), wall_clock_ms=wall_clock_ms(),
        )

    def metrics(self, batch_id: int | None = None) -> BatchMetrics | None:
        """The figures of batch ``batch_id`` (the last batch when None); None when not among the last 100 kept."""
        return self._history().get(batch_id)

    def metrics_history(self) -> list[BatchMetrics]:
        """The figures squall recorded for the last batches (up to 100), oldest first."""
        return list(self._history())

    def add_progress_listener(
        self, callback: ProgressCallback, spark: SparkSession | None = None,
    ) -> SquallProgressListener:
        """Register a :class:`~topologies.progress_listener.SquallProgressListener` for this query; returns it.

        ``callback(progress, batch_metrics)`` then runs on Spark's listener
        thread for every later batch of this query, with Spark's
        ``StreamingQueryProgress`` and squall's figures of the same batch id
        (to see the first batches too, use :meth:`SparkRunner.add_progress_listener`
        before ``submit``). ``spark``: the session that runs the query (default:
        the active one). Remove it with ``spark.streams.removeListener(listener)``.
        """
        from pyspark.sql import SparkSession

        session = spark if spark is not None else SparkSession.active()
        from topologies.progress_listener import SquallProgressListener

        listener = SquallProgressListener(self._history, callback, query_name=self.name)
        session.streams.addListener(listener)
        return listener

    def outputs(self) -> list[Output]:
        """The tail of what the topology's terminal streams emitted: batches in id order, then the shutdown flush.

        Only the last ``outputs_in_memory`` outputs of the run are kept (10,000 by
        default; see :class:`SparkRunner`), so for a longer run this is its tail:
        :attr:`output_count` says how many there were in all, ``output_dir`` holds
        every batch's, and ``SparkRunner(on_output=...)`` sees each batch's as it ends.
        """
        if self.remote is None:
            return self.loop.log.all()
        outputs = self.remote.reader.outputs(self._flushed)
        keep = self.remote.spec.outputs_in_memory
        return outputs if keep is None else outputs[max(0, len(outputs) - keep):]

    def output_table(self, stream: str) -> pa.Table:
        """The held outputs of ``stream`` (``"component"`` or ``"component:stream"``) as a typed Arrow table.

        Columns are the stream's fields, typed by its ``Fields`` types, else
        inferred from the held values (see :mod:`topologies.sinks.typed_outputs`;
        a sink's schema and the types pinned in the store are the sink's own);
        ``TypeError`` names a value of another type than its column's. Like :meth:`outputs`, it holds the tail
        of the run, and in distributed mode not the streams a ``TableSink`` keeps.
        """
        from topologies.sinks.base import stream_name
        from topologies.sinks.typed_outputs import StreamTypes, parse_type

        name = stream_name(stream, "output_table")
        component, stream_id = name.split(":")
        streams = self.loop.topology.streams
        if component not in streams or stream_id not in streams[component]:
            msg = f"output_table: the topology has no stream {name!r}"
            raise ValueError(msg)
        fields = streams[component][stream_id]
        columns = StreamTypes(component, stream_id, list(fields), {f: parse_type(t) for f, t in fields.types.items()})
        rows = [o.values for o in self.outputs() if o.component == component and o.stream == stream_id]
        columns.observe(rows)
        table: pa.Table = columns.table(rows)
        return table

    @property
    def output_count(self) -> int:
        """How many outputs the run recorded (a replayed batch counted once), whether or not still in memory."""
        if self.remote is None:
            return self.loop.log.count
        return len(self.remote.reader.outputs(self._flushed))

    def output_records(self) -> Iterator[dict[str, Any]]:
        """Every output of the run read back from ``output_dir``'s files as JSON records (needs ``output_dir``)."""
        if (self.loop.files if self.remote is None else self.remote.spec.output_dir) is None:
            msg = "output_records: the outputs were not written to files; give the runner an output_dir"
            raise ValueError(msg)
        if self.remote is None:
            return self.loop.files.records()  # type: ignore[union-attr]
        streams = self.remote.spec.topology.streams
        outputs = self.remote.reader.outputs(self._flushed)
        return iter([record(o, list(streams[o.component][o.stream])) for o in outputs])


class SparkRunner:
    """Runs topologies on ``spark`` as Structured Streaming queries.

    ``mode``: ``"driver"`` (each batch comes to the driver as Arrow and the bolts
    run there) or ``"distributed"`` (each bolt task runs on Spark's executors,
    resuming from and committing to the state store every batch).
    ``state``: the state backend URL (``memory://``, ``redis://host:6379/0``,
    ``hbase://host:9090/ns``), opened once, at construction; when None (the
    default), the store that ``conf``'s ``topology.state.provider`` names
    (Storm's in-memory, Redis or HBase provider, see docs/config.md), else
    ``memory://``; when both are given they must name the same store. The tasks of
    stateful windowed bolts and windowed aggregations (in distributed mode, of
    every windowed bolt) keep their state
    there under ``<name>/<component>/<task>``. ``memory://`` is refused in
    distributed mode (executors do not share the driver's memory).
    ``checkpoint_location``: a local directory or a Hadoop-compatible URL
    (``file://``, ``hdfs://``, ``s3a://``); Spark's checkpoint goes to
    ``<it>/<name>/spark``, squall's batch times to ``<it>/<name>/squall``
    (through Hadoop's ``FileSystem`` API for a URL other than ``file:``).
    ``trigger_interval``: the processing-time trigger (ignored with
    ``available_now``); ``Duration(0)`` starts each batch as soon as the last
    one ends, Spark's lowest latency. ``output_dir`` (a path or URL, as
    ``checkpoint_location``): where terminal outputs are also written,
    as JSON lines per batch id that has outputs (no file for an empty batch).
    ``outputs_in_memory``: how many of the latest outputs a handle keeps for
    :meth:`TopologyHandle.outputs` (``None``: all, for short runs only; ``0``:
    none, and a terminal stream that no other sink, ``output_dir`` or
    ``on_output`` takes then goes nowhere: in distributed mode its tuples never
    leave the executors).
    ``on_output(key, outputs)``: called where ``foreachBatch`` runs (the driver;
    under Spark Connect, the server's Python process) after each batch that has
    outputs (``key`` its batch id, ``"final"`` for the shutdown flush), again
    with the same key and outputs when Spark replays the batch, so a sink should
    store by key; an exception fails the batch. ``sinks``: where terminal
    streams are written each batch, exactly once per batch id where the sink
    can (:class:`~topologies.sinks.TableSink` through Spark's writers,
    :class:`~topologies.sinks.KafkaSink`); in distributed mode the streams a
    ``TableSink`` takes stay on the executors and are not among
    :meth:`TopologyHandle.outputs`. ``clock``: the wall clock, in epoch ms, read once
    per new batch (inject one to make processing time repeatable).
    ``conf``: a :class:`~topologies.config.Config` or any mapping; every bolt's
    ``prepare(conf, ...)`` gets a copy of it. Its ``topology.*`` keys are checked
    here (:func:`~topologies.config.check_conf`: a key Storm does not have is
    refused, naming the closest one), and those that have no effect on Spark are
    logged once, on one WARNING line of logger ``squall.config``; other keys are
    the user's own and pass untouched.
    ``heartbeat``: add a one-row-per-trigger source so time moves while the
    input is idle. ``ship_code``: ship squall and the modules defining the
    topology's bolts as a zip at submit, wherever bolts run in other processes:
    in distributed mode (``SparkContext.addPyFile``, never for a ``local[...]``
    master) and under Spark Connect in both modes (``spark.addArtifacts``); see
    ``topologies/engine/ship.py``.

    ``spark`` may be a classic session or a Spark Connect session
    (``SparkSession.builder.remote(...)``). Under Connect ``foreachBatch`` runs
    in a Python process beside the server: the checkpoint (and ``output_dir``)
    must be a location both that process and this one reach (the same machine,
    or a shared filesystem or object store), ``memory://`` state is journaled
    beside the checkpoint, and the handle reads outputs and figures from there.
    """

    def __init__(
        self,
        spark: SparkSession,
        mode: str = "driver",
        state: str | None = None,
        *,
        checkpoint_location: str | Path,
        trigger_interval: Duration | timedelta = Duration.seconds(1),  # noqa: B008 - Duration is immutable
        output_dir: str | Path | None = None,
        conf: Mapping[str, Any] | None = None,
        clock: Callable[[], int] = wall_clock_ms,
        heartbeat: bool = True,
        outputs_in_memory: int | None = DEFAULT_OUTPUTS_IN_MEMORY,
        on_output: OutputSink | None = None,
        ship_code: bool = True,
        sinks: Sequence[Sink] = (),
    ) -> None:
        self.spark = spark
        self.mode = _check_mode(mode)
        self.conf = check_conf(conf, "SparkRunner")
        self.state = _runner_state(state, self.conf, self.mode)
        if not isinstance(checkpoint_location, str | Path) or not str(checkpoint_location):
            msg = f"SparkRunner: `checkpoint_location` must be a directory path; got {checkpoint_location!r} instead"
            raise TypeError(msg)
        self.checkpoint_location = _location(checkpoint_location)
        trigger_interval = as_duration("SparkRunner", "trigger_interval", trigger_interval)  # type: ignore[assignment]
        if not isinstance(trigger_interval, Duration) or trigger_interval.value < 0:
            msg = (f"SparkRunner: `trigger_interval` must be a Duration of 0 or more (0: each batch as soon as the "
                   f"last one ends); got {trigger_interval!r} instead")
            raise ValueError(msg)
        self.trigger_interval = trigger_interval
        self.output_dir = None if output_dir is None else _location(output_dir)
        if not isinstance(ship_code, bool):
            msg = f"SparkRunner: `ship_code` must be True or False; got {ship_code!r} instead"
            raise TypeError(msg)
        self.ship_code = ship_code
        self.clock = clock
        self.heartbeat = heartbeat
        self.outputs_in_memory = _check_outputs_in_memory(outputs_in_memory)
        if on_output is not None and not callable(on_output):
            msg = f"SparkRunner: `on_output` must be callable as on_output(key, outputs); got {on_output!r} instead"
            raise TypeError(msg)
        self.on_output = on_output
        self.sinks = _check_sinks(sinks)
        self.remote = is_connect(spark)
        self._loops: dict[str, BatchLoop] = {}
        self._handles: dict[str, TopologyHandle] = {}
        # Under Spark Connect memory:// is journaled beside each topology's checkpoint, opened per submit.
        self.backend = None if self.remote and scheme_of(self.state) == "memory" else open_backend(self.state)
        log_settings(self.conf)  # once per runner, when the run's settings are final

    def submit(self, name: str, topology: Topology, available_now: bool = False) -> TopologyHandle:
        """Start ``topology`` as the query ``name``; returns at once with a :class:`TopologyHandle`.

        With ``available_now`` the query reads what the sources hold now and ends
        (Spark's ``availableNow`` trigger), and the handle flushes the bolts when it
        ends. Submitting the same name again in this process continues from the
        checkpoint with the same in-memory window state (a replayed batch is exact);
        under Spark Connect every submit resumes from the store (``memory://`` there
        is journaled beside the checkpoint).
        """
        self._check_submit(name, topology, available_now)
        # The bolts run in other processes in distributed mode, and under Spark Connect in every mode.
        elsewhere = self.remote or PLACEMENTS[self.mode].shared_state
        if elsewhere:
            check_spouts_travel(topology)  # a spout that cannot be pickled is named before anything starts
        shipped = None
        if self.ship_code and elsewhere:
            shipped = ship_to_executors(self.spark, topology)  # before any stage, a pending flush's too
        spec = RunSpec(
            name=name, topology=topology, mode=self.mode, state=self.state,
            checkpoint_location=self.checkpoint_location, conf=self.conf, output_dir=self.output_dir,
            outputs_in_memory=self.outputs_in_memory, on_output=self.on_output, clock=self.clock, remote=self.remote,
            sinks=self.sinks,
        )
        backend = self.backend if self.backend is not None else spec.open_state()
        # memory:// too: a new runner (a new process) finds it empty while the checkpoint goes on (store_check.py)
        check_store_not_behind(backend, self.state, name, topology, spec.spark_checkpoint())
        loop = self._loop(spec, backend)
        loop.complete_pending_flush()  # a flush a killed run began is finished before new batches run
        df = BatchLayout(topology).dataframe(self.spark, topology, self.heartbeat and not available_now)
        function: Any = BatchFunction(spec, None if self.remote else loop)
        if self.remote and shipped is not None:  # the server's foreachBatch process does not see the artifacts
            function = carried(function, shipped)
        writer = (
            df.writeStream.queryName(name)
            .foreachBatch(function)
            .option("checkpointLocation", str(spec.spark_checkpoint()))
        )
        if available_now:
            writer = writer.trigger(availableNow=True)
        else:
            writer = writer.trigger(processingTime=f"{self.trigger_interval.value} milliseconds")
        remote = None
        if self.remote:
            first = (last_committed_batch(spec.spark_checkpoint()) or -1) + 1
            remote = RemoteRun(spec, RunReader(spec.squall_dir("run"), first), self.spark, self.backend)
        handle = self._handles[name] = TopologyHandle(name, writer.start(), loop, available_now, remote)
        return handle

    def add_progress_listener(self, name: str, callback: ProgressCallback) -> SquallProgressListener:
        """Register, on this runner's session, a listener of the query ``name``'s progress; returns it.

        Call it before :meth:`submit` to see every batch: ``callback(progress,
        batch_metrics)`` runs on Spark's listener thread with Spark's
        ``StreamingQueryProgress`` of each batch and squall's
        :class:`~topologies.metrics.BatchMetrics` of the same batch id. Remove it
        with ``spark.streams.removeListener(listener)``.
        """
        def history() -> MetricsHistory | None:
            handle = self._handles.get(name)
            return None if handle is None else handle._history()

        from topologies.progress_listener import SquallProgressListener

        listener = SquallProgressListener(history, callback, query_name=name)
        self.spark.streams.addListener(listener)
        return listener

    def _loop(self, spec: RunSpec, backend: StateBackend) -> BatchLoop:
        current = self._loops.get(spec.name)
        if not self.remote and current is not None and current.topology is spec.topology and not current.flushed:
            current.error = None
            return current
        loop = build_loop(spec, backend, self.spark)
        self._loops[spec.name] = loop
        return loop

    def _check_submit(self, name: str, topology: Topology, available_now: bool) -> None:
        if not isinstance(name, str) or not name or not name.replace("-", "").replace("_", "").isalnum():
            msg = f"submit: `name` must be letters, digits, '-' or '_'; got {name!r} instead"
            raise ValueError(msg)
        if not isinstance(topology, Topology):
            msg = f"submit: `topology` must come from TopologyBuilder.create_topology(); got {topology!r} instead"
            raise TypeError(msg)
        for bid, spec in topology.bolts.items():
            namespace_name(name, bid, spec.parallelism - 1)
        if available_now:
            unbounded = [sid for sid, s in topology.spouts.items() if not s.spout.supports_available_now]
            if unbounded:
                msg = (
                    f"submit: available_now=True needs bounded sources, but spout(s) {', '.join(unbounded)} "
                    "cannot run with Spark's availableNow trigger; submit without available_now"
                )
                raise ValueError(msg)


def _location(location: str | Path) -> str | Path:
    """An absolute local Path for a path or ``file:`` URL; a Hadoop URL (``hdfs://``, ``s3a://``) kept as it is.

    A relative path is made absolute against Python's working directory when the
    runner is built: Spark would resolve it against the directory its JVM started
    in, squall's own files against Python's, and the two can differ.
    """
    return local_path(location).absolute() if is_local(location) else str(location)


def _check_mode(mode: str) -> str:
    if mode not in MODES:
        msg = f"SparkRunner: `mode` must be one of {', '.join(MODES)}; got {mode!r} instead"
        raise ValueError(msg)
    return mode


def _check_sinks(sinks: Sequence[Sink]) -> tuple[Sink, ...]:
    if isinstance(sinks, str) or not isinstance(sinks, Sequence):
        msg = f"SparkRunner: `sinks` must be a list of sinks (TableSink, KafkaSink, ...); got {sinks!r} instead"
        raise TypeError(msg)
    for sink in sinks:
        if not isinstance(sink, Sink):
            msg = (f"SparkRunner: `sinks` holds {sink!r}, which is not a sink (a sink has name, streams, schemas, "
                   "keeps_on_executors and write(batch))")
            raise TypeError(msg)
    names = [sink.name for sink in sinks]
    if len(set(names)) != len(names):
        msg = f"SparkRunner: `sinks` must have distinct names; got {names}"
        raise ValueError(msg)
    return tuple(sinks)


def _check_outputs_in_memory(value: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        msg = f"SparkRunner: `outputs_in_memory` must be an int or None; got {value!r} ({type(value).__name__}) instead"
        raise TypeError(msg)
    if value < 0:
        msg = f"SparkRunner: `outputs_in_memory` must not be negative; got {value} instead"
        raise ValueError(msg)
    return value


def _runner_state(state: str | None, conf: Mapping[str, Any], mode: str) -> str:
    """The checked state URL: ``state`` as given, else the store of ``conf``'s state provider, else ``memory://``."""
    if state is not None:
        _check_state(state, mode)  # its own errors first: a bad URL is named as the user wrote it
    resolved = resolve_state(state, conf)
    provider = conf.get(Config.TOPOLOGY_STATE_PROVIDER)
    if state is not None or provider is None:
        return _check_state(resolved, mode)
    try:
        return _check_state(resolved, mode)
    except ValueError as exc:  # say where the URL came from: the user never wrote it
        msg = f"{exc} (the state comes from conf[{Config.TOPOLOGY_STATE_PROVIDER!r}] = {provider!r})"
    raise ValueError(msg)


def _check_state(state: str, mode: str) -> str:
    if not isinstance(state, str):
        msg = f"SparkRunner: `state` must be a URL such as 'memory://' (a str); got a {type(state).__name__} instead"
        raise TypeError(msg)
    scheme = SCHEMES.get(scheme_of(state))  # no urlparse: its errors can quote the password
    if scheme is None or "://" not in state:
        choices = ", ".join(f"{s}://" for s in SCHEMES)
        msg = f"SparkRunner: `state` must be a URL with one of the schemes {choices}; got {redact(state)!r} instead"
        raise ValueError(msg)
    if not scheme.shared and PLACEMENTS[mode].shared_state:
        msg = (
            f"SparkRunner: mode={mode!r} runs bolt tasks in Spark's executor processes, which cannot share "
            f"the driver's memory, so state={redact(state)!r} cannot work; use a shared store such as "
            "state='redis://host:6379/0' or state='hbase://host:9090/squall'"
        )
        raise ValueError(msg)
    return state
