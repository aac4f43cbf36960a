"""Soak: the rate source through a stateful sliding-window topology on Redis for an hour; memory must stay flat.

Not a test and not in CI: it runs for ``--minutes`` (default 60). Spark's rate
source makes ``--rate`` events a second (default 2,000); a bolt keys them
(``key = value % 100``) and, by a fields grouping on the key:

- ``windows``: a ``BaseStatefulWindowedBolt`` with ``with_persistence()`` (its
  window's tuples in Redis), an event-time sliding window of 60 s every 10 s
  on the source's ``ts`` (epoch ms), lag 5 s; it emits each key's count and sum
  per window, a check tuple per window (count, sum, lowest and highest value)
  and keeps running counts (in all and per key) in its user state;
- ``agg``: a ``WindowedAggregateBolt(count())`` per key over the same sliding
  windows (``SlidingWindows``), its windows in Redis too.

The outputs go to an ``on_output`` sink that only counts and checks them
(bounded memory), with ``outputs_in_memory=1000``. Every ``--every`` seconds
(default 60) one line: elapsed minutes, the driver's (this Python process's)
RSS, the Spark JVM's RSS, its used heap sampled at a random point of the GC
cycle (``heapS``, a sawtooth: it shows no leak nor its absence), then, after a
``System.gc()`` forced through py4j, the live heap (``heapGC``: the G1 old-gen
pool's ``getCollectionUsage()``, what the full collection left; this is the
column that shows a heap leak) and the JVM's non-heap use (``nonHeap``:
metaspace, code cache, compressed class space) and how long the forced
collection took (``gcMs``); Python workers' RSS (distributed mode); in
distributed mode the executors too: how many executor JVMs run (``exe``),
their RSS summed (``exeRSS``) and their live heap summed (``exeGC``: each one's
used heap right after a full collection forced with ``jcmd <pid> GC.run``, read
with ``jstat -gc``, so it includes what the executor allocated between the two
commands; executors start with ``-Xms512m -XX:+AlwaysPreTouch`` like the
driver; the forced collections slow the batch running at that moment);
Redis ``used_memory``, the state's entries (hash fields of the topology's
namespaces) and Redis keys, the period's batches with the median, 99th
percentile and longest ``triggerExecution`` and the mean ``addBatch`` (squall's ``foreachBatch``), input
rows, outputs so far, and how far the lowest bolt watermark is behind the
wall clock; then the memory blocks the driver's Python allocator holds
(``pyblk``, thousands: ``sys.getallocatedblocks()``; uncollected garbage
included) and how many full (generation 2) collections ran so far, to tell
garbage waiting for a collection from a leak.

The driver JVM starts with its heap fixed and committed up front
(``spark.driver.memory=1g`` and ``-Xms1g -XX:+AlwaysPreTouch`` in
``spark.driver.extraJavaOptions``; the header shows ``Runtime.totalMemory()``
to prove it took effect): the JVM's RSS then holds the whole 1 GB heap from
the start, so growth of ``jvmRSS`` is non-heap growth (native memory,
metaspace, threads, direct buffers), not the JVM first touching heap pages
up to ``-Xmx``, nor G1 giving heap back after a collection. The forced
collection each report is a full, stop-the-world G1 collection (tens of ms);
a batch running at that moment is slowed by it.

The checks follow each window: every window's values are
consecutive (count = max - min + 1, sum matches), a full window holds
``rate x 60`` events, the running count equals every value up to the window's
end, and the aggregate's full windows count ``rate x 60`` too. At the end, the
first ten minutes against the last ten (of a shorter run, its first and last
third) and the growth over the second half, in MB per hour, of every memory
column (``heapGC`` included), the state and the batch times.

``--mode distributed`` runs the bolts' tasks on the executors of
``--master`` (default ``local-cluster[2,1,1024]``: two executor JVMs, each a
process of its own with its Python workers); driver mode's default master is
``local[2]``.

``--state`` takes a Redis URL; by default the script starts its own
redis-server (no persistence) on a free port and stops it at the end. A query
that fails prints its error and exits 1; a failed check exits 2.

Run: ``python benchmarks/soak.py [--minutes 60] [--rate 2000] [--every 60] [--state redis://...]
[--mode driver|distributed] [--master M]``; results of 60-minute runs in
``benchmarks/results/soak-60min.txt`` (driver mode) and ``soak-60min-distributed.txt``.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bolts import BaseBolt, BaseStatefulWindowedBolt, Fields, WindowedAggregateBolt  # noqa: E402
from topologies import RateSpout, SparkRunner, TopologyBuilder  # noqa: E402
from windowing import Duration, SlidingWindows, aggregators  # noqa: E402

KEYS = 100
LENGTH_S = 60
SLIDE_S = 10
LAG_S = 5
POLL_S = 5.0  # how often Spark's recent progress is read (it keeps only the last 100 batches)
KEEP_WINDOWS = 30  # windows the sink remembers for its checks (5 minutes of window ends)


class KeyBy(BaseBolt):
    """``(ts, value)`` -> ``(key, ts, value)`` with ``key = value % 100``."""

    def execute(self, input):
        value = input["value"]
        self.collector.emit([value % KEYS, input["ts"], value])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "ts", "value"))


class WindowSums(BaseStatefulWindowedBolt):
    """Per window: each key's count and sum, and a check tuple; running counts in the user state."""

    def execute(self, window):
        per_key: dict[int, list[int]] = {}
        count = total = 0
        low = high = None
        for t in window.get():
            v = t["value"]
            entry = per_key.get(t["key"])
            if entry is None:
                per_key[t["key"]] = [1, v]
            else:
                entry[0] += 1
                entry[1] += v
            count += 1
            total += v
            low = v if low is None or v < low else low
            high = v if high is None or v > high else high
        new = window.get_new()
        running = self.state.get("count", 0) + len(new)
        self.state.put("count", running)
        added: dict[int, int] = {}
        for t in new:
            added[t["key"]] = added.get(t["key"], 0) + 1
        for key, n in added.items():
            self.state.put(f"n/{key}", self.state.get(f"n/{key}", 0) + n)
        end = window.end_timestamp
        for key, (n, s) in sorted(per_key.items()):
            self.collector.emit([key, end, n, s])
        self.collector.emit("check", [end, count, total, low, high, running])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "window_end", "count", "sum"))
        declarer.declare_stream("check", Fields("window_end", "count", "sum", "low", "high", "running"))


def build_topology(rate: int, tasks: int):
    builder = TopologyBuilder()
    builder.set_spout("rate", RateSpout(rate))
    builder.set_bolt("keyby", KeyBy()).shuffle_grouping("rate")
    windows = (WindowSums().with_window(Duration.seconds(LENGTH_S), Duration.seconds(SLIDE_S))
               .with_timestamp_field("ts").with_lag(Duration.seconds(LAG_S)).with_persistence())
    builder.set_bolt("windows", windows, tasks).fields_grouping("keyby", Fields("key"))
    agg = (WindowedAggregateBolt(aggregators.count(), key_fields=("key",))
           .with_windows(SlidingWindows(Duration.seconds(LENGTH_S), Duration.seconds(SLIDE_S)))
           .with_timestamp_field("ts").with_lag(Duration.seconds(LAG_S)))
    builder.set_bolt("agg", agg, tasks).fields_grouping("keyby", Fields("key"))
    return builder.create_topology()


@dataclass
class Sink:
    """The ``on_output`` sink: counts outputs and checks windows, keeping only the last ``KEEP_WINDOWS`` ends."""

    rate: int
    tasks: int
    submitted_ms: int
    outputs: int = 0
    by_batch: dict = field(default_factory=dict)  # batch key -> outputs counted (the last few), replay-exact
    checks: dict = field(default_factory=dict)  # window end -> {task: (count, sum, low, high, running)}
    agg: dict = field(default_factory=dict)  # (start, end) -> {(task, key): count}
    done: set = field(default_factory=set)  # window ends / agg windows already checked
    checked: int = 0
    full: int = 0
    agg_checked: int = 0
    failures: list = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, key, outputs) -> None:
        with self.lock:
            self.outputs += len(outputs) - self.by_batch.pop(key, 0)  # a replayed batch replaces itself
            self.by_batch[key] = len(outputs)
            while len(self.by_batch) > 10:
                self.by_batch.pop(next(iter(self.by_batch)))
            for o in outputs:
                if o.component == "windows" and o.stream == "check":
                    end, count, total, low, high, running = o.values
                    self.checks.setdefault(end, {})[o.task] = (count, total, low, high, running)
                elif o.component == "agg":
                    v = o.values  # key, window_start, window_end, value, timestamp, pane, is_retraction
                    self.agg.setdefault((v[1], v[2]), {})[(o.task, v[0])] = v[3]
            self.verify()
            for table in (self.checks, self.agg):
                while len(table) > KEEP_WINDOWS:
                    table.pop(min(table))
            while len(self.done) > 4 * KEEP_WINDOWS:
                self.done.discard(min(self.done, key=lambda d: d if isinstance(d, int) else d[1]))

    def fail(self, what: str) -> None:
        if len(self.failures) < 20:
            self.failures.append(what)

    def verify(self) -> None:
        """Check every window both tasks reported (all keys, for the aggregate) that was not checked yet."""
        expected = self.rate * LENGTH_S
        for end, per_task in self.checks.items():
            if end in self.done or len(per_task) < self.tasks:
                continue
            self.done.add(end)
            count = sum(p[0] for p in per_task.values())
            total = sum(p[1] for p in per_task.values())
            low = min(p[2] for p in per_task.values() if p[2] is not None)
            high = max(p[3] for p in per_task.values() if p[3] is not None)
            running = sum(p[4] for p in per_task.values())
            self.checked += 1
            if count != high - low + 1 or 2 * total != (low + high) * count:
                self.fail(f"window ending {end}: {count} values from {low} to {high}, sum {total}: not consecutive")
            if running != high + 1:
                self.fail(f"window ending {end}: running count {running}, but values 0..{high} reached it")
            if low > 0:  # the window started after the source did: it is full
                self.full += 1
                if abs(count - expected) > 2:
                    self.fail(f"window ending {end}: {count} events, expected {expected}")
        for (start, end), counts in self.agg.items():
            if (start, end) in self.done or len(counts) < KEYS:
                continue
            self.done.add((start, end))
            if start < self.submitted_ms + 15_000:  # may start before the source did
                continue
            self.agg_checked += 1
            if abs(sum(counts.values()) - expected) > 2:
                self.fail(f"aggregate window [{start}, {end}): {sum(counts.values())} events, expected {expected}")


# ---------------------------------------------------------------- processes and memory


def rss_mb(pid: int | str = "self") -> float | None:
    """VmRSS of a process in MB (None if it is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def children() -> dict[int, list[tuple[int, str]]]:
    """ppid -> [(pid, comm)] of every process."""
    out: dict[int, list[tuple[int, str]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        out.setdefault(ppid, []).append((int(entry), comm))
    return out


def descendants(tree: dict[int, list[tuple[int, str]]], pid: int) -> list[tuple[int, str]]:
    found, todo = [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.append(child)
            todo.append(child[0])
    return found


def jvm_and_workers() -> tuple[int | None, list[int]]:
    """The Spark driver JVM (a java descendant of this process) and the Python processes under it."""
    tree = children()
    javas = [pid for pid, comm in descendants(tree, os.getpid()) if comm == "java"]
    if not javas:
        return None, []
    jvm = javas[0]
    return jvm, [pid for pid, comm in descendants(tree, jvm) if comm.startswith("python")]


def executor_jvms(jvm: int | None) -> list[int]:
    """The executor JVMs under the driver JVM (``local-cluster``'s workers start them as its children)."""
    if jvm is None:
        return []
    found = []
    for pid, comm in descendants(children(), jvm):
        if comm != "java":
            continue
        try:
            if b"CoarseGrainedExecutorBackend" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


def executor_heap_after_gc(pid: int) -> float | None:
    """An executor JVM's used heap (MB) right after a full collection (``jcmd GC.run``, then ``jstat -gc``).

    None if the JVM is gone or the JDK tools are missing (a JRE has neither).
    """
    if shutil.which("jcmd") is None or shutil.which("jstat") is None:
        return None
    try:
        subprocess.run(["jcmd", str(pid), "GC.run"], capture_output=True, timeout=60, check=True)
        out = subprocess.run(["jstat", "-gc", str(pid)], capture_output=True, text=True, timeout=60, check=True)
        names, values = out.stdout.split("\n")[:2]
        row = dict(zip(names.split(), values.split(), strict=True))
        return sum(float(row[c]) for c in ("S0U", "S1U", "EU", "OU")) / 1024
    except (subprocess.SubprocessError, OSError, ValueError, KeyError):  # gone, or output of another JDK's form
        return None


def percentile(values: list[float], q: int) -> float:
    """The ``q``-th percentile (0 for no values)."""
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def jvm_memory(jvm) -> tuple[float, float, float, float]:
    """The driver JVM's heap: used (sampled now), live after a forced ``System.gc()``, non-heap used, in MB;
    and the forced collection's milliseconds.

    The live heap is the G1 old-gen pool's ``getCollectionUsage()`` (what the last collection of that pool,
    the forced full one, left; a full G1 collection compacts everything live into old regions); if no such pool
    exists (another collector), the used heap right after the collection.
    """
    runtime = jvm.java.lang.Runtime.getRuntime()
    sampled = (runtime.totalMemory() - runtime.freeMemory()) / 2**20
    t0 = time.perf_counter()
    jvm.java.lang.System.gc()
    gc_ms = (time.perf_counter() - t0) * 1000
    mf = jvm.java.lang.management.ManagementFactory
    after = None
    for pool in mf.getMemoryPoolMXBeans():
        if "Old Gen" in pool.getName() or "Tenured" in pool.getName():
            usage = pool.getCollectionUsage()
            if usage is not None:
                after = usage.getUsed() / 2**20
                break
    if after is None:
        after = (runtime.totalMemory() - runtime.freeMemory()) / 2**20
    non_heap = mf.getMemoryMXBean().getNonHeapMemoryUsage().getUsed() / 2**20
    return sampled, after, non_heap, gc_ms


def start_redis() -> tuple[str, subprocess.Popen]:
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not installed: run scripts/install_services.sh or pass --state")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"redis-server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return f"redis://127.0.0.1:{port}/0", proc
        except OSError:
            time.sleep(0.05)
    proc.terminate()
    raise SystemExit(f"redis-server did not listen on port {port} within 10 s")


def state_size(client, name: str) -> tuple[float, int, int]:
    """Redis used_memory (MB), the fields of the topology's state hashes, and DBSIZE."""
    used = client.info("memory")["used_memory"] / 2**20
    entries = sum(client.hlen(k) for k in client.scan_iter(match=f"squall:{{{name}/*}}:data", count=1000))
    return used, entries, client.dbsize()


# ---------------------------------------------------------------- the run


@dataclass
class Report:
    minute: float
    driver: float
    jvm: float
    heap: float  # used heap sampled at a random point of the GC cycle
    heap_gc: float  # live heap after a forced full collection
    non_heap: float
    gc_ms: float
    workers: float
    executors: int  # executor JVMs running (distributed mode)
    exe_rss: float  # their RSS, summed
    exe_gc: float  # their live heap after a forced full collection, summed
    redis: float
    entries: int
    keys: int
    batches: int
    batch_p50: float
    batch_p99: float
    batch_max: float
    add_mean: float
    rows: int
    outputs: int
    lag_s: float | None
    pyblocks: int  # memory blocks pymalloc holds (sys.getallocatedblocks)
    gen2: int


HEADER = (f"{'min':>6} {'drvRSS':>7} {'jvmRSS':>7} {'heapS':>6} {'heapGC':>6} {'nonHeap':>7} {'gcMs':>5} "
          f"{'pyWrk':>6} {'exe':>3} {'exeRSS':>7} {'exeGC':>6} {'redis':>7} {'entries':>8} "
          f"{'keys':>5} {'batch':>6} {'p50':>6} {'p99':>6} {'max':>6} {'add':>6} {'rows':>8} {'outputs':>8} "
          f"{'wmLag':>6} {'pyblk':>6} {'gc2':>4}")
UNITS = (f"{'':>6} {'MB':>7} {'MB':>7} {'MB':>6} {'MB':>6} {'MB':>7} {'ms':>5} {'MB':>6} {'':>3} {'MB':>7} "
         f"{'MB':>6} {'MB':>7} {'':>8} {'':>5} {'s':>6} {'ms':>6} {'ms':>6} {'ms':>6} {'ms':>6} {'':>8} {'':>8} "
         f"{'s':>6} {'k':>6} {'':>4}")


def line(r: Report) -> str:
    lag = "-" if r.lag_s is None else f"{r.lag_s:.1f}"
    return (f"{r.minute:>6.1f} {r.driver:>7.1f} {r.jvm:>7.1f} {r.heap:>6.0f} {r.heap_gc:>6.1f} "
            f"{r.non_heap:>7.1f} {r.gc_ms:>5.0f} {r.workers:>6.0f} {r.executors:>3} {r.exe_rss:>7.1f} "
            f"{r.exe_gc:>6.1f} {r.redis:>7.1f} {r.entries:>8,} {r.keys:>5} {r.batches:>6} {r.batch_p50:>6.0f} "
            f"{r.batch_p99:>6.0f} {r.batch_max:>6.0f} {r.add_mean:>6.0f} {r.rows:>8,} {r.outputs:>8,} {lag:>6} "
            f"{r.pyblocks // 1000:>6} {r.gen2:>4}")


def slope_per_hour(reports: list[Report], attr: str) -> float:
    xs = [r.minute / 60 for r in reports]
    ys = [getattr(r, attr) for r in reports]
    if len(xs) < 2 or len(set(xs)) < 2:
        return 0.0
    return statistics.linear_regression(xs, ys).slope


def summary(reports: list[Report], minutes: float, every: float, distributed: bool) -> None:
    span = min(10.0, minutes / 3)
    n = max(1, min(len(reports), round(span * 60 / every)))  # the reports of the first and of the last `span` minutes
    first, last = reports[:n], reports[-n:]
    second_half = [r for r in reports if r.minute >= reports[-1].minute / 2]
    print(f"\nsummary: the first {span:.3g} minutes ({len(first)} reports) against the last {span:.3g} "
          f"({len(last)} reports); growth: least-squares slope over the second half ({len(second_half)} reports)",
          flush=True)
    print(f"{'':>22}{'first':>10}{'last':>10}{'last/first':>12}{'growth/h':>12}")
    rows = [("driver RSS (MB)", "driver"), ("JVM RSS (MB)", "jvm"), ("heap sampled (MB)", "heap"),
            ("heap after GC (MB)", "heap_gc"), ("JVM non-heap (MB)", "non_heap"), ("Python workers (MB)", "workers")]
    if distributed:
        rows += [("executors' RSS (MB)", "exe_rss"), ("executors' heap GC (MB)", "exe_gc")]
    rows += [("Redis used (MB)", "redis"), ("state entries", "entries"), ("batch p50 (ms)", "batch_p50"),
             ("batch p99 (ms)", "batch_p99"), ("addBatch mean (ms)", "add_mean"), ("Python blocks", "pyblocks")]
    for label, attr in rows:
        a = statistics.fmean(getattr(r, attr) for r in first)
        b = statistics.fmean(getattr(r, attr) for r in last)
        ratio = b / a if a else float("nan")
        print(f"{label:>22}{a:>10.1f}{b:>10.1f}{ratio:>12.3f}{slope_per_hour(second_half, attr):>+12.1f}", flush=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=60)
    p.add_argument("--rate", type=int, default=2000, help="events a second from the rate source")
    p.add_argument("--every", type=float, default=60, help="seconds between report lines")
    p.add_argument("--state", default=None, help="a redis:// URL (default: start a redis-server here)")
    p.add_argument("--mode", choices=("driver", "distributed"), default="driver")
    p.add_argument("--master", default=None,
                   help="Spark master (default: local[2] in driver mode, local-cluster[2,1,1024] in distributed)")
    p.add_argument("--tasks", type=int, default=2, help="tasks of each windowed bolt")
    p.add_argument("--trigger-ms", type=int, default=1000)
    args = p.parse_args()

    import pyspark
    import redis
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["PYTHONPATH"] = os.pathsep.join(x for x in (str(REPO), os.environ.get("PYTHONPATH")) if x)
    own_redis = None
    url = args.state
    if url is None:
        url, own_redis = start_redis()
    name = f"soak-{int(time.time())}"
    checkpoint = Path(tempfile.mkdtemp(prefix="soak-ck-"))
    client = redis.Redis.from_url(url)
    spark = handle = None
    status = 0
    master = args.master or ("local-cluster[2,1,1024]" if args.mode == "distributed" else "local[2]")
    if master.startswith("local-cluster"):
        os.environ["SPARK_HOME"] = os.path.dirname(pyspark.__file__)  # local-cluster starts executors from it
    try:
        spark = (SparkSession.builder.master(master).appName("squall-soak")
                 .config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false").config("spark.sql.session.timeZone", "UTC")
                 .config("spark.executorEnv.PYTHONPATH", str(REPO))
                 # the heap fixed and committed (touched) up front: JVM RSS growth is then non-heap growth
                 .config("spark.driver.memory", "1g")
                 .config("spark.driver.extraJavaOptions", "-Xms1g -XX:+AlwaysPreTouch")
                 .config("spark.executor.memory", "512m")
                 .config("spark.executor.extraJavaOptions", "-Xms512m -XX:+AlwaysPreTouch").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        runtime = spark.sparkContext._jvm.java.lang.Runtime.getRuntime()
        committed = runtime.totalMemory() / 2**20
        sink = Sink(args.rate, args.tasks, time.time_ns() // 1_000_000)
        runner = SparkRunner(spark, mode=args.mode, state=url, checkpoint_location=checkpoint,
                             trigger_interval=Duration.milliseconds(args.trigger_ms), outputs_in_memory=1000,
                             on_output=sink)
        topology = build_topology(args.rate, args.tasks)
        print(f"soak: {args.minutes:g} min, rate source {args.rate:,} events/s, {args.mode} mode on {master}, "
              f"state {url}, "
              f"trigger {args.trigger_ms} ms; rate -> keyby -> windows (BaseStatefulWindowedBolt, persistent, "
              f"sliding {LENGTH_S} s / {SLIDE_S} s, lag {LAG_S} s, {args.tasks} tasks) + agg "
              f"(WindowedAggregateBolt count, same windows, {args.tasks} tasks), fields grouping on value % {KEYS}",
              flush=True)
        print(f"command: python {' '.join(sys.argv)}; started {time.strftime('%Y-%m-%d %H:%M:%S %Z')}", flush=True)
        print(f"python {sys.version.split()[0]}, pyspark {spark.version}, pid {os.getpid()}, "
              f"JVM max heap {runtime.maxMemory() / 2**20:.0f} MB, committed {committed:.0f} MB (-Xms1g "
              f"-XX:+AlwaysPreTouch: the heap is in jvmRSS from the start, so jvmRSS growth is non-heap growth), "
              f"checkpoint {checkpoint}", flush=True)
        if committed < 0.95 * runtime.maxMemory() / 2**20:
            print(f"soak: warning: the heap is not committed up front ({committed:.0f} of "
                  f"{runtime.maxMemory() / 2**20:.0f} MB): was the JVM already running?", flush=True)
        handle = runner.submit(name, topology)
        started = time.monotonic()
        print(HEADER, flush=True)
        print(UNITS, flush=True)
        reports: list[Report] = []
        seen: set[int] = set()
        period: list[tuple[float, float]] = []  # (triggerExecution, addBatch) of the batches of this period
        rows_before = 0
        next_report = started + args.every
        end = started + args.minutes * 60
        while True:
            now = time.monotonic()
            time.sleep(max(0.0, min(POLL_S, next_report - now, end - now)))
            if not handle.query.isActive or handle.query.exception() is not None:
                error = handle.loop.error or handle.query.exception()
                print(f"soak: the query stopped after {(time.monotonic() - started) / 60:.1f} min: {error!r}",
                      flush=True)
                if handle.loop.error is not None:
                    traceback.print_exception(handle.loop.error, file=sys.stdout)
                return 1
            if own_redis is not None and own_redis.poll() is not None:
                print(f"soak: redis-server exited with {own_redis.returncode}", flush=True)
                return 1
            for prog in handle.query.recentProgress:
                if prog["batchId"] not in seen:
                    seen.add(prog["batchId"])
                    d = prog["durationMs"]
                    period.append((d.get("triggerExecution", 0), d.get("addBatch", 0)))
            while len(seen) > 500:
                seen.discard(min(seen))
            now = time.monotonic()
            if now < next_report - 0.01 and now < end - 0.01:
                continue
            jvm, workers = jvm_and_workers()
            executors = executor_jvms(jvm)
            exe_heaps = [executor_heap_after_gc(e) for e in executors]
            heap, heap_gc, non_heap, gc_ms = jvm_memory(spark.sparkContext._jvm)
            used, entries, keys = state_size(client, name)
            progress = handle.progress
            wall = time.time_ns() // 1_000_000
            with sink.lock:
                outputs = sink.outputs
            r = Report(
                minute=(now - started) / 60, driver=rss_mb() or 0.0, jvm=(rss_mb(jvm) or 0.0) if jvm else 0.0,
                heap=heap, heap_gc=heap_gc, non_heap=non_heap, gc_ms=gc_ms,
                workers=sum(rss_mb(w) or 0.0 for w in workers), executors=len(executors),
                exe_rss=sum(rss_mb(e) or 0.0 for e in executors), exe_gc=sum(h or 0.0 for h in exe_heaps),
                redis=used, entries=entries, keys=keys,
                batches=len(period),
                batch_p50=percentile([t for t, _ in period], 50), batch_p99=percentile([t for t, _ in period], 99),
                batch_max=max((t for t, _ in period), default=0.0),
                add_mean=statistics.fmean(a for _, a in period) if period else 0.0,
                rows=progress.input_rows - rows_before, outputs=outputs,
                lag_s=(wall - progress.watermark) / 1000 if progress.watermark else None,  # 0: none yet
                # Not len(gc.get_objects()): it hands out tuples that another thread is still building, whose
                # resize then fails (SystemError in tupleobject.c) in the foreachBatch thread.
                pyblocks=sys.getallocatedblocks(), gen2=gc.get_stats()[2]["collections"],
            )
            reports.append(r)
            print(line(r), flush=True)
            period, rows_before = [], progress.input_rows
            next_report += args.every
            if now >= end - 0.01:
                break
        progress = handle.progress
        handle.stop(flush=False)
        print(f"\nsoak: {progress.batches:,} batches, {progress.input_rows:,} rows "
              f"({progress.input_rows / (args.minutes * 60):,.0f}/s), {progress.windows_fired:,} windows fired, "
              f"{progress.late_tuples} late tuples, {progress.replays} replays, {sink.outputs:,} outputs "
              f"(handle.output_count {handle.output_count:,})", flush=True)
        summary(reports, args.minutes, args.every, any(r.executors for r in reports))
        ok = not sink.failures and sink.checked > 0 and progress.late_tuples == 0
        ok = ok and (sink.full > 0 and sink.agg_checked > 0 if args.minutes * 60 > LENGTH_S + 30 else True)
        print(f"\ncheck: {'OK' if ok else 'FAILED'}: {sink.checked} windows of 'windows' checked (values consecutive, "
              f"running count = highest value + 1), {sink.full} of them full with {args.rate * LENGTH_S:,} events; "
              f"{sink.agg_checked} full 'agg' windows counting {args.rate * LENGTH_S:,}; "
              f"{progress.late_tuples} late tuples", flush=True)
        for f in sink.failures:
            print(f"  {f}", flush=True)
        status = 0 if ok else 2
    except Exception as err:  # a soak reports what broke and exits 1
        print(f"soak: failed: {err!r}", flush=True)
        traceback.print_exc(file=sys.stdout)
        status = 1
    finally:
        if handle is not None and handle.is_active:
            handle.query.stop()
        if spark is not None:
            spark.stop()
        if own_redis is not None:
            own_redis.terminate()
            own_redis.wait(10)
        else:
            for k in client.scan_iter(match=f"squall:{{{name}*", count=1000):
                client.delete(k)
        shutil.rmtree(checkpoint, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
