"""``squall run path/to/topology.py``: run a topology on Spark from the command line, printing progress.

The module is loaded from its path and must define ``build_topology()`` (called
with no arguments) returning a :class:`~topologies.topology.Topology`, or a
module-level ``topology``. It may define the topology's conf the same way:
``build_conf()`` or a module-level ``conf`` (a :class:`~topologies.config.Config`
or a dict), which ``-c/--conf KEY=VALUE`` options override key by key, as
``storm jar ... -c`` does. The session is built first (so a file that opens a
session while it loads gets this one); ``--jars`` go into its ``spark.jars``, and
when the topology has a :class:`~topologies.spouts.KafkaSpout` and the session no
Kafka source, Spark's Kafka connector jars (:func:`~topologies.spouts.connector_jars`)
are added to it with ``ADD JAR``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import re
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any

from topologies import config, state_providers
from topologies.engine import PLACEMENTS
from topologies.engine.ship import SQUALL_PACKAGES
from topologies.metrics import format_watermark
from topologies.plot import add_plot_command
from topologies.runner import SparkRunner, TopologyHandle
from topologies.storage import join
from topologies.topology import Topology
from windowing import Duration

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_UNITS = {"ms": Duration.milliseconds, "s": Duration.seconds, "m": Duration.minutes}
KAFKA_SOURCE = "org.apache.spark.sql.kafka010.KafkaSourceProvider"  # the class Spark's Kafka connector provides
LOG_LEVELS = ("ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF")
INTERRUPTED = 130  # the exit status of a run stopped by Ctrl-C (128 + SIGINT), as shells report it


def parse_interval(text: str) -> Duration:
    """``"500ms"``, ``"2s"``, ``"1m"`` or ``"0ms"`` (back-to-back batches) as a Duration; ``ArgumentTypeError`` else."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)", text.strip())
    if not match:
        msg = f"--trigger-interval: expected a duration such as 500ms, 2s, 1m or 0ms; got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    amount = float(match.group(1))
    return _UNITS[match.group(2)](int(amount) if amount.is_integer() else amount)


def parse_jars(text: str) -> tuple[str, ...]:
    """``"a.jar,b.jar"`` as its jars, blanks dropped; ``argparse.ArgumentTypeError`` when it names none."""
    jars = tuple(j.strip() for j in text.split(",") if j.strip())
    if not jars:
        msg = f"--jars: expected comma-separated jar paths such as a.jar,b.jar; got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return jars


def parse_conf_option(text: str) -> tuple[str, Any]:
    """``"KEY=VALUE"`` as ``(KEY, VALUE)``, the value read as JSON when it is JSON, else kept as text.

    As Storm's ``-c`` reads it: ``topology.debug=true`` gives True,
    ``topology.workers=2`` gives 2, ``my.name=abc`` gives ``"abc"``.
    ``argparse.ArgumentTypeError`` when there is no ``=`` or no key.
    """
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        msg = f"--conf: expected KEY=VALUE such as topology.debug=true; got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    try:
        return key.strip(), json.loads(value)
    except json.JSONDecodeError:
        return key.strip(), value


def load_topology(path: str) -> Topology:
    """The topology a module file defines (``build_topology()`` or ``topology``); see :func:`load_file`."""
    return load_file(path)[0]


def load_file(path: str) -> tuple[Topology, dict[str, Any]]:
    """The topology a module file defines (``build_topology()`` or ``topology``) and its conf.

    The conf is what ``build_conf()`` returns, or the module-level ``conf`` (a
    ``Config`` or any mapping), as a new dict; ``{}`` when the file defines
    neither. ``SystemExit`` naming the file when either is of the wrong kind.
    As ``python file.py`` would, the file's directory comes first on ``sys.path``,
    so the file imports its sibling modules and packages. In distributed mode
    the runner ships those modules to the executors with the bolts'
    (:mod:`topologies.engine.ship`).
    """
    module = _load_module(path)
    build = getattr(module, "build_topology", None)
    topology = build() if callable(build) else getattr(module, "topology", None)
    if not isinstance(topology, Topology):
        msg = (
            f"squall run: {path} must define build_topology() returning TopologyBuilder.create_topology(), "
            "or a module-level `topology`"
        )
        raise SystemExit(msg)
    build_conf = getattr(module, "build_conf", None)
    conf = build_conf() if callable(build_conf) else getattr(module, "conf", None)
    if conf is not None and not isinstance(conf, Mapping):
        msg = (f"squall run: {path} defines {'build_conf() returning' if callable(build_conf) else '`conf` as'} "
               f"{conf!r}; the conf must be a Config or a dict")
        raise SystemExit(msg)
    return topology, dict(conf or {})


def _load_module(path: str) -> ModuleType:
    file = Path(path)
    if not file.is_file():
        msg = f"squall run: no such file {path!r}"
        raise SystemExit(msg)
    directory = file.resolve().parent
    refuse_shadowing(directory, path)
    if sys.path[:1] != [str(directory)]:
        sys.path.insert(0, str(directory))
    spec = importlib.util.spec_from_file_location(f"squall_topology_{file.stem}", file)
    module: ModuleType = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def refuse_shadowing(directory: Path, path: str) -> None:
    """``SystemExit`` when a module beside the topology file has the name of one of squall's packages.

    squall's packages are imported before the file, so ``from bolts import MyBolt`` would find squall's
    ``bolts``, not the file's neighbour. The same package itself (a file beside a squall checkout) is fine.
    """
    root = Path(__file__).resolve().parents[1]  # where squall's packages are installed, side by side
    for name in SQUALL_PACKAGES:
        ours = root / name / "__init__.py"
        for candidate in (directory / f"{name}.py", directory / name / "__init__.py"):
            if candidate.exists() and candidate.resolve() != ours:
                msg = (f"squall run: {candidate} beside {path} has the name of squall's package {name!r}, which "
                       f"squall imports first; rename it (for example to {name}_{Path(path).stem})")
                raise SystemExit(msg)


def parser() -> argparse.ArgumentParser:
    """The command-line parser: one subcommand per ``add_*_command`` function."""
    p = argparse.ArgumentParser(prog="squall", description="Storm-style topologies on Spark Structured Streaming")
    sub = p.add_subparsers(dest="command", required=True)
    add_run_command(sub)
    add_plot_command(sub)
    return p


def add_run_command(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``run`` subcommand's parser."""
    run = sub.add_parser("run", help="run a topology defined in a Python file")
    run.add_argument("path", help="a .py file defining build_topology() or `topology`, and maybe build_conf() "
                                  "or `conf`")
    run.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    run.add_argument(
        "--remote",
        help="run under Spark Connect: the server's URL (sc://host:15002), or local[2] for a server in this "
             "process; --master, --jars and --log-level then belong to the server",
    )
    run.add_argument(
        "--mode", choices=tuple(PLACEMENTS), default="driver",
        help="where bolt tasks run: where foreachBatch runs (driver, the default) or Spark executors "
             "(distributed; needs a redis:// or hbase:// --state)",
    )
    run.add_argument(
        "--state",
        help="state backend URL (default: the store of the conf's topology.state.provider, else memory://)",
    )
    run.add_argument(
        "-c", "--conf", action="append", type=parse_conf_option, metavar="KEY=VALUE",
        help="a conf entry, over the file's conf; the value is read as JSON when it is JSON (topology.debug=true, "
             "topology.workers=2), else as text; repeat for more",
    )
    run.add_argument(
        "--jars", type=parse_jars, default=(),
        help="comma-separated jar paths or URLs for the session's spark.jars; a topology with a KafkaSpout gets "
             "Spark's Kafka connector jars without it",
    )
    run.add_argument(
        "--checkpoint",
        help="checkpoint location (default: ./squall-checkpoints with a redis:// or hbase:// --state, so a second "
             "run of the same name resumes; a new temporary directory with memory://)",
    )
    run.add_argument("--output", help="directory for the outputs, JSON lines per batch (default <checkpoint>/output)")
    run.add_argument("--trigger-interval", type=parse_interval, default=Duration.seconds(1),
                     help="e.g. 500ms, 2s; 0ms: each batch as soon as the last ends")
    run.add_argument("--available-now", action="store_true", help="bounded run: read what is there, flush, stop")
    run.add_argument("--name", help="query name (default: the file's name)")
    run.add_argument("--progress-every", type=float, default=2.0, help="seconds between progress lines")
    run.add_argument(
        "--log-level", type=str.upper, choices=LOG_LEVELS, default="ERROR",
        help="Spark's log level (default ERROR; WARN or INFO to see more)",
    )
    run.add_argument(
        "--print-outputs", action="store_true",
        help="print every output of this run as a JSON line at the end (read back from --output)",
    )
    run.set_defaults(handler=run_command)
    return run


class StopRequest:
    """A SIGINT handler that only records the request: the main loop stops the query between two polls.

    It replaces PySpark's handler (which cancels every Spark job and raises
    ``KeyboardInterrupt`` inside whatever py4j call is waiting), so Ctrl-C never
    interrupts the JVM half-way through a call.
    """

    def __init__(self) -> None:
        self.event = threading.Event()

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        """Record the request (a second Ctrl-C while stopping changes nothing)."""
        self.event.set()

    @property
    def requested(self) -> bool:
        """Whether Ctrl-C was pressed."""
        return self.event.is_set()


@contextmanager
def stop_on_sigint() -> Iterator[StopRequest]:
    """Install a :class:`StopRequest` as the SIGINT handler for the block (main thread only)."""
    request = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return
    previous = signal.signal(signal.SIGINT, request)
    try:
        yield request
    finally:
        signal.signal(signal.SIGINT, previous)


def watch(handle: TopologyHandle, every: float, stop: StopRequest | None = None) -> bool:
    """Print a progress line every ``every`` seconds until the query ends or ``stop`` is requested.

    Returns True when stopped by a request: the query is then stopped and the
    bolts flushed after the last complete batch. A batch error is raised.
    """
    poll = max(0.05, min(every, 0.25))
    waited = 0.0
    while not handle.await_termination(poll):
        if stop is not None and stop.requested:
            _stop_and_flush(handle)
            return True
        waited += poll
        if waited >= every:
            waited = 0.0
            print(f"[{handle.name}] {handle.progress.line()}", flush=True)
    return False


def _stop_and_flush(handle: TopologyHandle) -> None:
    """Stop the query, then flush the bolts; a batch error (not the stop's own interruption) is raised."""
    print(f"[{handle.name}] stopping: flushing the bolts", flush=True)
    handle.stop()


def summary(handle: TopologyHandle, output: str | Path, how: str) -> str:
    """The one line printed when a run ends: how, batches, rows, counters, watermark and where the outputs are."""
    p = handle.progress
    return (
        f"[{handle.name}] {how}: run: batches {p.batches}  rows {p.input_rows}  replays {p.replays}  "
        f"windows fired {p.windows_fired}  late tuples {p.late_tuples}  "
        f"watermark {format_watermark(p.watermark, p.wall_clock_ms)}  {handle.output_count} outputs in "
        f"{join(output, handle.name)}"
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``squall`` command."""
    args = parser().parse_args(argv)
    return int(args.handler(args))


def run_command(args: argparse.Namespace) -> int:
    """``squall run``: 0 when the query ended, 130 when Ctrl-C stopped it (after a flush)."""
    try:
        spark = _connect(args.remote) if args.remote else _spark(args.master, args.log_level, args.jars)
        # Installed after the SparkContext, which sets its own SIGINT handler (cancel every job, raise
        # KeyboardInterrupt inside the waiting py4j call: the tracebacks this replaces).
        with stop_on_sigint() as stop:
            return _run(spark, args, stop)
    except KeyboardInterrupt:  # Ctrl-C before the query started: nothing ran, nothing to flush
        print("squall run: interrupted before the topology started", file=sys.stderr, flush=True)
        return INTERRUPTED


def _spark(master: str, log_level: str, jars: tuple[str, ...] = ()) -> SparkSession:
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName("squall").config("spark.ui.showConsoleProgress", "false")
    if jars:
        builder = builder.config("spark.jars", ",".join(jars))
    spark = builder.getOrCreate()
    set_log_level(spark, log_level)
    return spark


def set_log_level(spark: SparkSession, level: str) -> None:
    """Spark's log level, as ``setLogLevel``; below WARN the console shows it too.

    A session built from Python counts as a shell: Spark's console appender
    drops records below WARN (its shell threshold) for every logger at the
    root's level. ``setLogLevel`` lifts the threshold only when it changes the
    root's level, which is INFO already, so INFO alone would print nothing
    more. The threshold is lifted here for such a level.
    """
    spark.sparkContext.setLogLevel(level)
    if level in ("INFO", "DEBUG", "TRACE", "ALL"):
        logging_object = getattr(getattr(spark._jvm.org.apache.spark.internal, "Logging$"), "MODULE$")  # type: ignore[union-attr]
        getattr(logging_object, "sparkShellThresholdLevel_$eq")(None)


def _connect(url: str) -> SparkSession:
    """A Spark Connect session to ``url`` (``sc://host:port``, or ``local[...]`` for a server in this process)."""
    from pyspark.sql import SparkSession

    return SparkSession.builder.remote(url).getOrCreate()


def uses_kafka(topology: Topology) -> bool:
    """Whether a spout of ``topology`` is a :class:`~topologies.spouts.KafkaSpout`."""
    from topologies.spouts import KafkaSpout

    return any(isinstance(spec.spout, KafkaSpout) for spec in topology.spouts.values())


def has_class(spark: SparkSession, name: str) -> bool:
    """Whether the session's driver can load the JVM class ``name`` (from its classpath or an ``ADD JAR``)."""
    from py4j.protocol import Py4JJavaError

    jvm = spark._jvm  # type: ignore[attr-defined]
    try:
        jvm.java.lang.Class.forName(name, False, jvm.java.lang.Thread.currentThread().getContextClassLoader())
    except Py4JJavaError:
        return False
    return True


def add_kafka_connector(spark: SparkSession, path: str) -> list[str]:
    """Add Spark's Kafka connector jars to ``spark`` unless it has the Kafka source already; the jars added.

    ``ADD JAR`` puts them on the driver's class loader (for this thread, which
    starts the query) and ships them to the executors. ``SystemExit`` saying
    how to get them when :func:`~topologies.spouts.connector_jars` finds none.
    """
    from topologies.spouts import connector_jars

    if has_class(spark, KAFKA_SOURCE):
        return []
    try:
        jars = connector_jars()
    except FileNotFoundError as err:
        msg = f"squall run: {path} reads Kafka (a KafkaSpout), but the session has no Kafka source: {err}; " \
              "or name the connector's jars with --jars"
        raise SystemExit(msg) from None
    for jar in jars:
        spark.sql(f"ADD JAR '{jar}'")
    return jars


def default_checkpoint(state: str) -> str:
    """Where a run keeps its checkpoint when ``--checkpoint`` is not given.

    With a store that outlives the process (Redis, HBase) the checkpoint must
    outlive it too, or the next run of the same name would meet a store ahead of
    a new, empty checkpoint: ``./squall-checkpoints``, made absolute. With
    ``memory://`` nothing survives the process, so a new temporary directory.
    """
    if state.startswith("memory:"):
        return tempfile.mkdtemp(prefix="squall-ck-")
    return str(Path("squall-checkpoints").absolute())


def run_conf(
    file_conf: Mapping[str, Any], options: list[tuple[str, Any]] | None, state: str | None,
) -> tuple[dict[str, Any], str]:
    """The run's conf (the file's, ``--conf`` options over it) and its state URL; ``SystemExit`` when refused.

    The conf is checked as ``SparkRunner`` checks it (:func:`~topologies.config.check_conf`),
    and ``--state`` and the conf's state provider must agree
    (:func:`~topologies.state_providers.resolve_state`).
    """
    conf = {**file_conf, **dict(options or ())}
    try:
        checked = config.check_conf(conf, "squall run")
        return checked, state_providers.resolve_state(state, conf, "squall run", "--state")
    except (TypeError, ValueError) as err:
        raise SystemExit(str(err)) from None


@contextmanager
def _quiet(logger: logging.Logger) -> Iterator[None]:
    """Drop what ``logger`` logs in the block: the CLI has printed it already, its own way."""

    def drop(record: logging.LogRecord) -> bool:
        return False

    logger.addFilter(drop)
    try:
        yield
    finally:
        logger.removeFilter(drop)


def _run(spark: SparkSession, args: argparse.Namespace, stop: StopRequest) -> int:
    name = args.name or re.sub(r"[^A-Za-z0-9_-]", "_", Path(args.path).stem)
    topology, file_conf = load_file(args.path)
    conf, state = run_conf(file_conf, args.conf, args.state)
    for line in (config.no_effect_message(conf), config.fall_back_message(conf)):
        if line is not None:
            print(f"[{name}] {line}", file=sys.stderr, flush=True)
    checkpoint = args.checkpoint or default_checkpoint(state)
    # A Hadoop URL (hdfs://nn/ck) stays a URL: Path would fold it into a local hdfs:/nn/ck.
    output = args.output or join(checkpoint if "://" in checkpoint else Path(checkpoint), "output")
    with _quiet(config.log):  # the runner would log the same line again
        runner = SparkRunner(
            spark, mode=args.mode, state=state, checkpoint_location=checkpoint,
            trigger_interval=args.trigger_interval, output_dir=str(output), conf=conf,
        )
    if uses_kafka(topology) and not args.remote and (added := add_kafka_connector(spark, args.path)):
        print(f"[{name}] added Spark's Kafka connector: {len(added)} jars from {Path(added[0]).parent}", flush=True)
    handle = runner.submit(name, topology, available_now=args.available_now)
    print(f"[{name}] running; checkpoint {checkpoint}", flush=True)
    try:
        stopped = watch(handle, args.progress_every, stop)
    except Exception as exc:  # a batch failed: one line naming the error, not py4j's traceback
        error = handle.loop.error or exc
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        print(f"[{name}] failed: {type(error).__name__}: {first}", file=sys.stderr, flush=True)
        return 1
    if stopped:
        print(summary(handle, output, "stopped by Ctrl-C"), flush=True)
        return INTERRUPTED
    print(f"[{name}] done: {handle.progress.line()}", flush=True)
    print(f"[{name}] {handle.output_count} outputs written to {join(output, name)}", flush=True)
    if args.print_outputs:  # read back from the files: the handle keeps only the latest outputs in memory
        for record in handle.output_records():
            print(json.dumps({"component": record["component"], "task": record["task"], "stream": record["stream"],
                              "values": record["values"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
