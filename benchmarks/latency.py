"""Latency: from an event's production to its window's output, through Kafka, in driver mode.

Workload (issue "An honest race"): a producer (``benchmarks/latency_producer.py``,
a process of its own, confluent-kafka) writes ``--rate`` events a second
(default 20,000) for ``--seconds`` (default 120) into a fresh one-partition
topic of a real Kafka broker (KRaft, started by ``scripts/kafka.sh`` unless
``--bootstrap`` names one); each event's Kafka timestamp is the wall clock at
the moment it is produced. squall reads the topic with ``KafkaSpout`` (``local[2]``,
driver mode, memory state) and counts it with ``WindowedAggregateBolt(count())``
in tumbling 1 s event-time windows, lag 0 (a window fires at the end of the
first batch that holds an event at or past its end), under a ``--trigger-ms``
processing-time trigger (default 250). A downstream bolt stamps each pane with
the wall time it reaches it.

Method: an event's latency is its pane's arrival time minus its production
time; the producer counts the events it made in each millisecond, so every
event is measured and none is assumed. Windows starting in the first
``--warmup`` seconds of production (Spark's start, JIT) and the last, partial
second are left out. Every measured window must have fired once and counted
exactly the events the producer made in its second (the run exits 1 if not).
Prints p50, p99 and the maximum over the measured events, the median batch
(Spark's progress: ``latestOffset`` is the Kafka source's planning,
``walCommit`` and ``commitOffsets`` the checkpoint's offset and commit logs,
``addBatch`` the ``foreachBatch`` body), and where an event's time goes, as
five parts that add up to its latency (means over the events; see
``SEGMENTS``): waiting for its window's end (half a second on average, the
price of 1 s windows); from the end to the start of the batch that fires the
window (the trigger's wait, since lag 0 fires a window only in a batch that
holds an event past its end); from that start to the read (Spark's planning
and offset log); the read (the driver placement's ``toArrow``, timed by
wrapping it); and squall's part up to the pane. Also the producer's delivery
time (``--linger-ms`` of batching included) and the machine's load average,
since the run shares 2 cores with a broker, a producer and Spark.
Targets: p50 at most 0.75 s, p99 at most 1.5 s.

``--source rate`` runs the former workload instead: Spark's rate source (no
Kafka), whose rows come in whole seconds of its own, so it cannot show
sub-second latency; its events are taken as spread evenly over each window.

Run: ``python benchmarks/latency.py [--seconds 120] [--rate 20000] [--trigger-ms 250] [--linger-ms 5]
[--source kafka|rate] [--bootstrap HOST:PORT] [--save run.json]``; ``--load run.json`` (with the
run's arguments) reports a saved run again. Needs the broker's and the connector's
jars (``bash scripts/install_services.sh``) and confluent-kafka (squall's ``kafka`` extra).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bolts import BaseBolt, Fields, WindowedAggregateBolt
from topologies import KafkaSpout, RateSpout, SparkRunner, TopologyBuilder
from topologies.spouts import Spout
from windowing import Duration, FixedWindows, aggregators

REPO = Path(__file__).resolve().parent.parent
PRODUCER = Path(__file__).resolve().parent / "latency_producer.py"
WINDOW_MS = 1000
#: The parts of an event's latency, in order; they add up to it.
SEGMENTS = (
    "waiting for its window's end",
    "from the window's end to the start of the batch that fires it (the trigger's wait, or the batch then running)",
    "from that start to reading the records (latestOffset, walCommit, queryPlanning)",
    "reading them into the driver (toArrow: Spark's job over the batch's records; and decoding)",
    "squall, from the read to the pane (routing, count, fire, arrival bolt)",
)
SETTLE_S = 5  # after the producer ends: time for the last batches to fire the last windows


class Arrival(BaseBolt):
    """Stamps each pane with the wall time it arrives here (a benchmark may read the clock; bolts should not)."""

    def execute(self, input):
        self.collector.emit([input["window_start"], input["window_end"], input["value"], time.time_ns() // 1_000_000])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("start", "end", "count", "arrived"))


class Timed:
    """A callable that records when each call began (epoch ms) and how long it took (ms)."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self.calls: list[tuple[int, float]] = []

    def __call__(self, *args: Any) -> Any:
        began, t0 = time.time_ns() // 1_000_000, time.perf_counter()
        try:
            return self.function(*args)
        finally:
            self.calls.append((began, (time.perf_counter() - t0) * 1000))


def time_reads(handle: Any) -> Timed:
    """Time the driver placement's ``source_of``: Spark's job that brings a batch to the driver as Arrow."""
    placement = handle.loop.placement
    placement.source_of = Timed(placement.source_of)
    return placement.source_of


@dataclass
class Run:
    """What one run left: the panes, what was produced per ms, Spark's progress and squall's batch figures."""

    panes: list[tuple[int, int, int, int]]
    produced: dict[int, int]
    first_ms: int
    last_ms: int
    progress: list[dict[str, Any]]
    squall_ms: dict[int, float]
    reads: list[tuple[int, float]]
    delivery_ms: dict[int, int] = field(default_factory=dict)
    failed: int = 0


def session(kafka: bool) -> Any:
    """``local[2]`` with 2 shuffle partitions, every progress kept, and Spark's Kafka connector for ``kafka``."""
    from pyspark.sql import SparkSession

    from topologies.spouts import connector_jars

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (SparkSession.builder.master("local[2]").config("spark.sql.shuffle.partitions", "2")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.streaming.numRecentProgressUpdates", "100000"))
    if kafka:
        builder = builder.config("spark.jars", ",".join(connector_jars()))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@contextmanager
def broker(bootstrap: str | None) -> Iterator[str]:
    """``bootstrap`` as it is, or a fresh broker started with ``scripts/kafka.sh`` on a free port (stopped after)."""
    if bootstrap is not None:
        yield bootstrap
        return
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    kafka_sh = REPO / "scripts" / "kafka.sh"
    started = subprocess.run(["bash", str(kafka_sh), "start", str(port)], capture_output=True, text=True,
                             timeout=300, check=False)
    try:
        if started.returncode != 0:
            raise SystemExit(f"scripts/kafka.sh start {port} failed:\n{started.stdout}\n{started.stderr}")
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run(["bash", str(kafka_sh), "stop", str(port)], capture_output=True, timeout=120, check=False)


def create_topic(bootstrap: str) -> str:
    """A new one-partition topic, once its partition has a leader."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    name = f"latency-{uuid.uuid4().hex[:10]}"
    admin.create_topics([NewTopic(name, 1, 1)])[name].result(30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        meta = admin.list_topics(name, timeout=10).topics.get(name)
        if meta is not None and meta.error is None and all(p.leader >= 0 for p in meta.partitions.values()):
            return name
        time.sleep(0.1)
    raise SystemExit(f"topic {name} has no leader after 30 s")


def submit(spark: Any, spout: Spout, ts_field: str, trigger_ms: int) -> Any:
    """The spout into a 1 s tumbling count (lag 0) into :class:`Arrival`, started as a query; its handle."""
    builder = TopologyBuilder()
    builder.set_spout("events", spout)
    count = (WindowedAggregateBolt(aggregators.count()).with_windows(FixedWindows(Duration.milliseconds(WINDOW_MS)))
             .with_timestamp_field(ts_field).with_lag(Duration(0)))
    builder.set_bolt("count", count).global_grouping("events")
    builder.set_bolt("arrival", Arrival()).global_grouping("count")
    runner = SparkRunner(spark, checkpoint_location=tempfile.mkdtemp(prefix="latency-ck-"),
                         trigger_interval=Duration.milliseconds(trigger_ms), heartbeat=False, outputs_in_memory=None)
    return runner.submit("latency", builder.create_topology())


def squall_times(handle: Any, into: dict[int, float]) -> None:
    """squall's bolt time of the batches the handle still keeps (the last 100), by batch id."""
    for m in handle.metrics_history():
        into[m.batch_id] = m.batch_ms


def finish(handle: Any, squall_ms: dict[int, float]) -> tuple[list[tuple[int, int, int, int]], list[dict[str, Any]]]:
    """Stop the query; its panes (start, end, count, arrival ms) and its non-empty batches' progress."""
    squall_times(handle, squall_ms)
    progress = [json.loads(p.json) for p in handle.query.recentProgress if p.numInputRows]
    handle.stop(flush=False)
    panes = [tuple(o.values) for o in handle.outputs() if o.component == "arrival"]
    return panes, progress  # type: ignore[return-value]


def run_kafka(spark: Any, args: argparse.Namespace) -> Run:
    """Produce into a fresh topic while squall counts it; the run's figures."""
    with broker(args.bootstrap) as bootstrap:
        topic = create_topic(bootstrap)
        spout = KafkaSpout(topic, bootstrap, value_format="bytes", fields=("timestamp",))
        handle = submit(spark, spout, "timestamp", args.trigger_ms)
        reads = time_reads(handle)
        out = Path(tempfile.mkdtemp(prefix="latency-")) / "produced.json"
        producer = subprocess.Popen(
            [sys.executable, str(PRODUCER), "--bootstrap", bootstrap, "--topic", topic, "--rate", str(args.rate),
             "--seconds", str(args.seconds), "--linger-ms", str(args.linger_ms), "--out", str(out)],
            stdout=subprocess.PIPE, text=True)
        print(producer.stdout.readline().strip(), flush=True)  # type: ignore[union-attr]
        squall_ms: dict[int, float] = {}
        while producer.poll() is None:
            time.sleep(5)
            squall_times(handle, squall_ms)
            if not handle.is_active:
                producer.kill()
                raise SystemExit(f"the query stopped: {handle.query.exception()}")
        if producer.returncode != 0:
            raise SystemExit(f"the producer failed (exit {producer.returncode})")
        time.sleep(SETTLE_S)
        panes, progress = finish(handle, squall_ms)
    made = json.loads(out.read_text())
    return Run(panes, dict(made["per_ms"]), made["first_ms"], made["last_ms"], progress, squall_ms, reads.calls,
               dict(made["delivery_ms"]), made["failed"] + made["undelivered"])


def run_rate(spark: Any, args: argparse.Namespace) -> Run:
    """The rate source for ``--seconds``; its events taken as spread evenly over each window."""
    handle = submit(spark, RateSpout(args.rate), "ts", args.trigger_ms)
    reads = time_reads(handle)
    started = time.time_ns() // 1_000_000
    squall_ms: dict[int, float] = {}
    for _ in range(args.seconds // 5):
        time.sleep(5)
        squall_times(handle, squall_ms)
    panes, progress = finish(handle, squall_ms)
    last = max((e for _, e, _, _ in panes), default=started) + 500  # the last pane's window is whole
    per_ms = args.rate / WINDOW_MS
    produced = {ms: per_ms for s, _, _, _ in panes for ms in range(s, s + WINDOW_MS)}
    return Run(panes, produced, started, last, progress, squall_ms, reads.calls)  # type: ignore[arg-type]


def weighted_percentiles(values: Any, weights: Any, qs: list[float]) -> list[float]:
    """The ``qs`` percentiles of ``values`` each counted ``weights`` times (the lowest value reaching each share)."""
    import numpy as np

    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(np.asarray(weights, dtype=float)[order])
    at = np.searchsorted(cumulative, np.asarray(qs) / 100 * cumulative[-1])
    return [float(v) for v in np.asarray(values)[order][np.minimum(at, len(order) - 1)]]


def check_windows(run: Run, begin: int, end: int) -> tuple[dict[int, int], list[str]]:
    """Each measured window's pane arrival ms by start, and what is wrong: missing, repeated or miscounted panes."""
    made: dict[int, float] = {}
    for ms, n in run.produced.items():
        made[ms - ms % WINDOW_MS] = made.get(ms - ms % WINDOW_MS, 0) + n
    panes: dict[int, list[tuple[int, int, int, int]]] = {}
    for pane in run.panes:
        panes.setdefault(pane[0], []).append(pane)
    arrivals, problems = {}, []
    for start in range(begin, end, WINDOW_MS):
        got = panes.get(start, [])
        if len(got) != 1:
            problems.append(f"window {start}: {len(got)} panes")
        elif got[0][2] != made.get(start, 0):
            problems.append(f"window {start}: counted {got[0][2]}, produced {made.get(start, 0)}")
        if got:
            arrivals[start] = got[-1][3]
    return arrivals, problems


def batch_starts(progress: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """Each batch's start (epoch ms, Spark's trigger time) with its progress, in order."""
    starts = [(int(datetime.fromisoformat(p["timestamp"]).timestamp() * 1000), p) for p in progress]
    return sorted(starts, key=lambda s: s[0])


def parts(run: Run, arrivals: dict[int, int], begin: int) -> dict[str, Any]:
    """Per window, the path from its end to its pane (see :data:`SEGMENTS`), and Spark's batch medians."""
    import numpy as np

    starts = batch_starts(run.progress)
    times = np.array([s for s, _ in starts])
    reads = sorted(run.reads)
    segments, passed = {}, {}
    for start, arrived in arrivals.items():
        at = int(np.searchsorted(times, arrived, side="right")) - 1  # the last batch to start before the pane
        batch = int(times[at])
        read = [(b, ms) for b, ms in reads if batch <= b <= arrived]
        began, took = read[-1] if read else (batch, 0.0)
        segments[start] = (batch - start - WINDOW_MS, began - batch, took, arrived - began - took)
        passed[start] = max(0, at - int(np.searchsorted(times, start + WINDOW_MS)))  # batches after the end, unfired
    measured = [p for s, p in starts if s >= begin]
    durations = {k: float(np.median([p["durationMs"].get(k, 0) for p in measured]))
                 for k in ("triggerExecution", "latestOffset", "getBatch", "queryPlanning", "addBatch", "walCommit",
                           "commitOffsets")}
    squall = [ms for p in measured if (ms := run.squall_ms.get(p["batchId"])) is not None]
    return {"segments": segments, "passed": passed, "durations": durations,
            "squall_ms": float(np.median(squall)) if squall else float("nan"),
            "read_ms": float(np.median([ms for b, ms in reads if b >= begin] or [float("nan")])),
            "interval": float(np.median(np.diff([s for s, _ in starts if s >= begin]))),
            "rows": float(np.median([p["numInputRows"] for p in measured]))}


def latencies(run: Run, arrivals: dict[int, int]) -> tuple[Any, Any, Any]:
    """Every measured millisecond of production: its events' latency, how many events, and its window's start."""
    import numpy as np

    ms = np.array([m for m in run.produced if m - m % WINDOW_MS in arrivals], dtype=np.int64)
    counts = np.array([run.produced[int(m)] for m in ms], dtype=float)
    window = ms - ms % WINDOW_MS
    arrived = np.array([arrivals[int(w)] for w in window], dtype=np.int64)
    return arrived - ms, counts, window


def report(run: Run, args: argparse.Namespace) -> bool:
    """Print the figures; whether every measured window counted what was produced in it."""
    begin = -(-(run.first_ms + args.warmup * 1000) // WINDOW_MS) * WINDOW_MS
    end = run.last_ms - run.last_ms % WINDOW_MS
    if end <= begin:
        raise SystemExit("no window was measured: run longer than --warmup")
    arrivals, problems = check_windows(run, begin, end)
    values, counts, window = latencies(run, arrivals)
    p50, p99, top = weighted_percentiles(values, counts, [50, 99, 100])
    how = f"through Kafka (linger.ms {args.linger_ms:g})" if args.source == "kafka" else "from the rate source"
    print(f"latency: {args.rate:,} events/s for {args.seconds} s {how}, tumbling 1 s windows, "
          f"{args.trigger_ms} ms trigger, lag 0, driver mode")
    checked = "each fired once and counted" if not problems else f"{len(problems)} did NOT count"
    print(f"{len(arrivals)} windows measured, {counts.sum():,.0f} events; {checked} the events produced in its "
          f"second{': ' + '; '.join(problems[:3]) if problems else ''}")
    print(f"p50 {p50 / 1000:.3f} s   p99 {p99 / 1000:.3f} s   max {top / 1000:.3f} s   "
          f"(targets: p50 <= 0.75 s, p99 <= 1.5 s)")
    explain(run, args, parts(run, arrivals, begin), (values, counts, window))
    print(f"load average at the end (1, 5 min): {os.getloadavg()[0]:.2f}, {os.getloadavg()[1]:.2f} on "
          f"{os.cpu_count()} cores (the run's own processes included)")
    return not problems and not run.failed


def explain(run: Run, args: argparse.Namespace, where: dict[str, Any], events: tuple[Any, Any, Any]) -> None:
    """Print where the time goes: Spark's batch parts, and an event's latency in :data:`SEGMENTS` (means)."""
    import numpy as np

    d = where["durations"]
    print(f"median batch {d['triggerExecution']:.0f} ms, in Spark's order: latestOffset {d['latestOffset']:.0f}, "
          f"walCommit {d['walCommit']:.0f}, getBatch {d['getBatch']:.0f}, queryPlanning {d['queryPlanning']:.0f}, "
          f"addBatch {d['addBatch']:.0f} (toArrow {where['read_ms']:.0f}, squall's bolts {where['squall_ms']:.1f}), "
          f"commitOffsets {d['commitOffsets']:.0f}; a batch every {where['interval']:.0f} ms, {where['rows']:,.0f} "
          "rows (medians)")
    values, counts, window = events
    segments = np.array([where["segments"][int(w)] for w in window], dtype=float)
    path = np.column_stack([values - segments.sum(axis=1), segments])
    mean = [float(np.average(path[:, k], weights=counts)) for k in range(path.shape[1])]
    passed = np.array(list(where["passed"].values()))
    print(f"an event's latency, mean over events {float(np.average(values, weights=counts)):.0f} ms: "
          + "; ".join(f"{m:.0f} {what}" for m, what in zip(mean, SEGMENTS, strict=True)))
    print(f"the batch that fired a window was the first to start after its end in {(passed == 0).sum()} of "
          f"{len(passed)} windows, the second in {(passed == 1).sum()}, a later one in {(passed > 1).sum()}")
    if run.delivery_ms:
        d50, d99 = weighted_percentiles(np.array(list(run.delivery_ms)), np.array(list(run.delivery_ms.values())),
                                        [50, 99])
        print(f"producer: delivery (produce to the broker's acknowledgement) p50 {d50:.0f} ms, p99 {d99:.0f} ms; "
              f"{run.failed} events failed or undelivered")


def load(path: str) -> Run:
    """A run saved with ``--save`` (JSON turned the millisecond and batch id keys into strings)."""
    saved = json.loads(Path(path).read_text())
    for name in ("produced", "squall_ms", "delivery_ms"):
        saved[name] = {int(k): v for k, v in saved[name].items()}
    saved["panes"] = [tuple(p) for p in saved["panes"]]
    saved.setdefault("reads", [])
    return Run(**saved)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", choices=("kafka", "rate"), default="kafka")
    p.add_argument("--rate", type=int, default=20_000)
    p.add_argument("--seconds", type=int, default=120)
    p.add_argument("--warmup", type=int, default=15)
    p.add_argument("--trigger-ms", type=int, default=250)
    p.add_argument("--linger-ms", type=float, default=5)
    p.add_argument("--bootstrap", help="a running broker's host:port (default: start one with scripts/kafka.sh)")
    p.add_argument("--save", help="also write the run's raw figures (panes, production, progress) to this JSON file")
    p.add_argument("--load", help="report a run saved with --save (pass the run's arguments) instead of running")
    args = p.parse_args()
    if args.load:
        run = load(args.load)
    else:
        spark = session(args.source == "kafka")
        try:
            run = run_kafka(spark, args) if args.source == "kafka" else run_rate(spark, args)
        finally:
            spark.stop()
    if args.save:
        Path(args.save).write_text(json.dumps(dataclasses.asdict(run)))
    if not report(run, args):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
