"""The race: squall's windowed bolts against Spark's own windowed aggregation, on one workload, in one run.

Workload (issue "A columnar executor that scales"): N events (default
2,000,000) of 100 keys, 1 ms apart with up to 2 s of disorder, in 20 Parquet
files read 2 per batch; per key, sliding event-time windows of 10 s every 5 s,
lag 5 s; ``local[2]``. Every engine reads the same files in the same
SparkSession, one after the other:

- ``spark``: ``withWatermark`` + ``groupBy(window(...), key).sum``, append mode;
- ``toArrow ceiling``: a ``foreachBatch`` that only calls ``toArrow()``;
- squall: a Storm ``BaseWindowedBolt`` summing ``window.get()`` per key, the
  same bolt using ``window.to_arrow()`` and pyarrow's ``group_by``, and
  ``WindowedAggregateBolt(sum)`` with ``SlidingWindows``, in driver mode
  (memory state); the Storm bolt and the aggregate bolt in distributed mode
  too (Redis state); 2 tasks, fields grouping.

Spark is measured warm: one Spark run and one ceiling run are made first and
thrown away (a JVM's first query pays class loading, JIT and code generation),
then every engine runs ``--rounds`` times (3), interleaved in a rotating order,
so a slow moment of the machine does not fall on one engine only. Every squall
run is checked: the aggregate bolts' sums equal Spark's on every window Spark
emitted; the Storm bolt's windows, in either mode, equal a ``BoltHarness``
run of the same batches; the columnar bolt's equal the Storm bolt's. Prints each engine's
median and min-max seconds, events/s, and its rate over warm Spark's and over
the ceiling's; with ``--chart PATH`` also a bar chart of the medians (PNG, matplotlib).
Then each engine's first batch apart from the rest (from the query's progress: the
first batch's ``triggerExecution``; a new squall query's first batch builds its
tasks in Spark's Python workers), and the time after the first batch over warm
Spark's time after its first batch.

Run: ``python benchmarks/race.py [--events N | --quick] [--only NAME ...] [--rounds N] [--chart docs/race.png]``.
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.spark_sliding_sum import redis_url
from bolts import BaseWindowedBolt, Fields, WindowedAggregateBolt
from topologies import FileSpout, SparkRunner, TopologyBuilder
from topologies.groupings import FieldsGrouping
from topologies.testing import BoltHarness
from windowing import Duration, SlidingWindows, aggregators

SCHEMA = "key STRING, ts BIGINT, value BIGINT"
FIELDS = ("key", "ts", "value")
KEYS, FILES, FILES_PER_BATCH, TASKS = 100, 20, 2, 2
LENGTH, SLIDE, LAG, DISORDER = 10_000, 5_000, 5_000, 2_000
CLOCK_STEP = 1_000


class StormKeyedSum(BaseWindowedBolt):
    """Per key, the sum of the window's values: one Python pass over ``window.get()``."""

    def execute(self, window):
        sums: dict[str, int] = {}
        for t in window.get():
            sums[t["key"]] = sums.get(t["key"], 0) + t["value"]
        for key in sorted(sums):
            self.collector.emit([key, window.end_timestamp, sums[key]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "window_end", "sum"))


class ColumnarKeyedSum(StormKeyedSum):
    """The same sums from ``window.to_arrow()`` with pyarrow's ``group_by``."""

    def execute(self, window):
        table = window.to_arrow()
        if table.num_rows == 0:
            return
        sums = table.group_by("key").aggregate([("value", "sum")]).sort_by("key").to_pydict()
        for key, total in zip(sums["key"], sums["value_sum"], strict=True):
            self.collector.emit([key, window.end_timestamp, total])


def storm_bolt(cls: type[StormKeyedSum] = StormKeyedSum) -> StormKeyedSum:
    return (cls().with_window(Duration(LENGTH), Duration(SLIDE)).with_timestamp_field("ts").with_lag(Duration(LAG)))


def aggregate_bolt() -> WindowedAggregateBolt:
    return (WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
            .with_windows(SlidingWindows(Duration(LENGTH), Duration(SLIDE))).with_timestamp_field("ts")
            .with_lag(Duration(LAG)))


def generate(directory: Path, events: int) -> list[Any]:
    """The Parquet files; returns their tables (for the harness check), in file order."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(7)
    per_file = events // FILES
    tables = []
    for f in range(FILES):
        arrival = np.arange(f * per_file, (f + 1) * per_file, dtype=np.int64)  # 1 ms apart, in arrival order
        ts = np.maximum(arrival - rng.integers(0, DISORDER + 1, per_file), 0)
        keys = np.char.add("k", rng.integers(0, KEYS, per_file).astype(str))
        table = pa.table({"key": keys, "ts": ts, "value": rng.integers(0, 100, per_file)})
        path = directory / f"part-{f:04d}.parquet"
        pq.write_table(table, path)
        os.utime(path, (1_700_000_000 + f, 1_700_000_000 + f))  # Spark lists files in mtime order
        tables.append(table)
    return tables


def step_clock() -> Callable[[], int]:
    state = {"t": 0}

    def clock() -> int:
        state["t"] += CLOCK_STEP
        return state["t"]

    return clock


def first_batch_s(query: Any) -> float:
    """The first batch's duration (``triggerExecution`` of batch 0 in the query's progress), in seconds."""
    for progress in query.recentProgress:
        if progress["batchId"] == 0:
            return progress["durationMs"]["triggerExecution"] / 1000
    return 0.0


def run_spark(spark, data: Path) -> tuple[float, dict[tuple[str, int], int], float]:
    from pyspark.sql import functions as F

    df = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", FILES_PER_BATCH).parquet(str(data))
          .withColumn("event_time", F.timestamp_millis("ts")).withWatermark("event_time", f"{LAG} milliseconds"))
    agg = df.groupBy(F.window("event_time", f"{LENGTH} milliseconds", f"{SLIDE} milliseconds"), "key") \
        .agg(F.sum("value").alias("sum"))
    name = f"race_{uuid.uuid4().hex[:8]}"
    start = time.perf_counter()
    query = (agg.writeStream.outputMode("append").format("memory").queryName(name)
             .option("checkpointLocation", tempfile.mkdtemp(prefix="race-spark-ck-"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    elapsed = time.perf_counter() - start
    rows = spark.sql(f"SELECT key, unix_millis(window.end) AS end, sum FROM {name}").collect()
    return elapsed, {(r["key"], r["end"]): r["sum"] for r in rows}, first_batch_s(query)


def run_ceiling(spark, data: Path) -> tuple[float, float]:
    rows = []

    def only_to_arrow(df, batch_id):
        rows.append(df.toArrow().num_rows)

    df = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", FILES_PER_BATCH).parquet(str(data))
    start = time.perf_counter()
    query = (df.writeStream.foreachBatch(only_to_arrow).trigger(availableNow=True)
             .option("checkpointLocation", tempfile.mkdtemp(prefix="race-arrow-ck-")).start())
    query.awaitTermination()
    return time.perf_counter() - start, first_batch_s(query)


def run_squall(spark, data: Path, bolt: Any, mode: str = "driver", state: str = "memory://",
               ) -> tuple[float, list, float]:
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(str(data), "parquet", FIELDS, schema=SCHEMA,
                                          max_files_per_trigger=FILES_PER_BATCH))
    builder.set_bolt("sum", bolt, TASKS).fields_grouping("events", Fields("key"))
    runner = SparkRunner(spark, mode, state, checkpoint_location=tempfile.mkdtemp(prefix="race-ck-"),
                         clock=step_clock(), outputs_in_memory=None)  # every window is checked
    start = time.perf_counter()
    handle = runner.submit(f"race-{uuid.uuid4().hex[:8]}", builder.create_topology(), available_now=True)
    handle.await_termination()
    elapsed = time.perf_counter() - start
    return elapsed, [(o.task, list(o.values)) for o in handle.outputs()], first_batch_s(handle.query)


def harness_windows(bolt: StormKeyedSum, tables: list[Any]) -> list[tuple[int, list]]:
    """What BoltHarness gives for the same batches, routed to the tasks as the fields grouping does."""
    grouping, fields = FieldsGrouping(Fields("key")), Fields(FIELDS)
    harnesses = [BoltHarness(copy.deepcopy(bolt), fields=FIELDS, source_component="events", component="sum",
                             start_time_ms=CLOCK_STEP, watermark_per_batch=True) for _ in range(TASKS)]
    clock = step_clock()
    for b in range(0, len(tables), FILES_PER_BATCH):
        per_task: list[list[list[Any]]] = [[] for _ in range(TASKS)]
        for table in tables[b : b + FILES_PER_BATCH]:
            for row in zip(*(table.column(f).to_pylist() for f in FIELDS), strict=True):
                per_task[grouping.targets(row, fields, TASKS, 0)[0]].append(list(row))
        now = clock()
        for h, rows in zip(harnesses, per_task, strict=True):
            h.advance_to(now)
            h.feed_batch(rows)
    out = []
    for task, h in enumerate(harnesses):
        h.close()
        out += [(task, list(values)) for _, values in h.emitted]
    return out


def check_sums(spark_sums: dict[tuple[str, int], int], outputs: list, name: str) -> None:
    """Every window Spark emitted has the same sum in squall's panes (squall also flushes the rest at the end)."""
    squall_sums = {(v[0], v[2]): v[3] for _, v in outputs}
    wrong = {k: (v, squall_sums.get(k)) for k, v in spark_sums.items() if squall_sums.get(k) != v}
    if wrong:
        raise SystemExit(f"{name}: sums differ from Spark's (spark, squall): {list(wrong.items())[:5]}")


def check_same(expected: list, got: list, name: str, against: str) -> None:
    per_task_expected, per_task_got = defaultdict(list), defaultdict(list)
    for task, values in expected:
        per_task_expected[task].append(values)
    for task, values in got:
        per_task_got[task].append(values)
    if per_task_expected != per_task_got:
        raise SystemExit(f"{name}: windows differ from {against}'s")


VARIANTS = ("storm-driver", "columnar-driver", "aggregate-driver", "storm-distributed", "aggregate-distributed")
NAMES = {
    "storm-driver": "squall Storm bolt, driver",
    "storm-distributed": "squall Storm bolt, distributed",
    "columnar-driver": "squall columnar bolt, driver",
    "aggregate-driver": "squall aggregate bolt, driver",
    "aggregate-distributed": "squall aggregate bolt, distributed",
}
SPARK, CEILING = "spark groupBy(window)", "toArrow ceiling"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", type=int, default=2_000_000)
    p.add_argument("--quick", action="store_true", help="200,000 events, for development")
    p.add_argument("--only", nargs="*", choices=VARIANTS, default=list(VARIANTS), help="squall variants to run")
    p.add_argument("--rounds", type=int, default=3, help="rounds of every engine, interleaved (default 3)")
    p.add_argument("--redis-url", default=None, help="Redis for distributed mode (default: start one)")
    p.add_argument("--no-harness", action="store_true", help="skip the BoltHarness check of the Storm bolt")
    p.add_argument("--chart", type=Path, default=None, help="write a bar chart PNG here")
    args = p.parse_args()
    events = 200_000 if args.quick else args.events
    from pyspark.sql import SparkSession

    repo = str(Path(__file__).resolve().parent.parent)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["PYTHONPATH"] = os.pathsep.join(x for x in (repo, os.environ.get("PYTHONPATH")) if x)
    spark = (SparkSession.builder.master("local[2]").config("spark.sql.shuffle.partitions", "2")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    data = Path(tempfile.mkdtemp(prefix="race-data-"))
    tables = generate(data, events)
    events = sum(t.num_rows for t in tables)
    with redis_url(args.redis_url) as url:
        seconds, firsts, checks = race(spark, data, tables, args, url)
    spark.stop()
    report(seconds, checks, events)
    report_first_batches(seconds, firsts)
    if args.chart is not None:
        chart({name: statistics.median(s) for name, s in seconds.items()}, events, args.chart)


def race(spark, data: Path, tables: list[Any], args: argparse.Namespace, url: str) -> tuple[dict, dict, list[str]]:
    """Every engine ``args.rounds`` times, in a rotating order, after a discarded warm-up.

    Returns each engine's seconds per run, its first batch's seconds per run,
    and the checks made.

    A JVM's first query pays class loading, JIT and code generation: the warm-up
    (one Spark run and one ceiling run, thrown away) pays them for every engine,
    so no engine is measured cold. Each run's answers are checked.
    """
    _, spark_sums, _ = run_spark(spark, data)  # the warm-up, discarded
    run_ceiling(spark, data)
    checks = [f"Spark emitted {len(spark_sums):,} windows"]
    wants_harness = {"storm-driver", "columnar-driver", "storm-distributed"}.intersection(args.only)
    harness = None if args.no_harness or not wants_harness else harness_windows(storm_bolt(), tables)

    def spark_run() -> tuple[float, float]:
        elapsed, sums, first = run_spark(spark, data)
        if sums != spark_sums:
            raise SystemExit("Spark's own windows differ from run to run")
        return elapsed, first

    def squall_run(variant: str) -> Callable[[], tuple[float, float]]:
        def run() -> tuple[float, float]:
            if variant == "storm-driver":
                elapsed, out, first = run_squall(spark, data, storm_bolt())
                if harness is not None:
                    check_same(harness, out, "Storm bolt", "BoltHarness")
            elif variant == "columnar-driver":
                elapsed, out, first = run_squall(spark, data, storm_bolt(ColumnarKeyedSum))
                check_same(harness if harness is not None else run_squall(spark, data, storm_bolt())[1], out,
                           "columnar bolt", "Storm bolt")
            elif variant == "storm-distributed":
                elapsed, out, first = run_squall(spark, data, storm_bolt(), "distributed", url)
                check_same(harness if harness is not None else run_squall(spark, data, storm_bolt())[1], out,
                           "Storm bolt, distributed", "BoltHarness" if harness is not None else "driver mode")
            elif variant == "aggregate-driver":
                elapsed, out, first = run_squall(spark, data, aggregate_bolt())
                check_sums(spark_sums, out, "aggregate bolt, driver")
            else:
                elapsed, out, first = run_squall(spark, data, aggregate_bolt(), "distributed", url)
                check_sums(spark_sums, out, "aggregate bolt, distributed")
            return elapsed, first
        return run

    Run = Callable[[], tuple[float, float]]  # a run's seconds and its first batch's
    engines: dict[str, Run] = {SPARK: spark_run, CEILING: lambda: run_ceiling(spark, data)}
    engines.update({NAMES[v]: squall_run(v) for v in VARIANTS if v in args.only})
    seconds: dict[str, list[float]] = {name: [] for name in engines}
    firsts: dict[str, list[float]] = {name: [] for name in engines}
    names = list(engines)
    for round_ in range(args.rounds):
        order = names[round_ % len(names):] + names[: round_ % len(names)]
        for name in order:
            elapsed, first = engines[name]()
            seconds[name].append(elapsed)
            firsts[name].append(first)
            print(f"round {round_ + 1}: {name} {elapsed:.2f} s (first batch {first:.2f} s)", flush=True)
    if harness is not None:
        checks.append("the Storm bolt's windows equal BoltHarness's")
    if "columnar-driver" in args.only:
        checks.append("the columnar bolt's equal the Storm bolt's")
    checks += [f"the aggregate bolt's sums equal Spark's ({v.split('-')[1]})" for v in args.only
               if v.startswith("aggregate")]
    return seconds, firsts, checks


def report(seconds: dict[str, list[float]], checks: list[str], events: int) -> None:
    """Median and spread per engine, as seconds, events/s, and ratios to warm Spark and to the ceiling."""
    spark_s, ceiling_s = statistics.median(seconds[SPARK]), statistics.median(seconds[CEILING])
    rounds = len(seconds[SPARK])
    print(f"race: {events:,} events, {KEYS} keys, {FILES} files, {FILES_PER_BATCH} per batch, "
          f"sliding {LENGTH // 1000} s / {SLIDE // 1000} s windows per key, lag {LAG // 1000} s, local[2]; "
          f"Spark warmed up first, then {rounds} interleaved rounds (median, min-max)")
    print("checks: " + "; ".join(checks))
    print(f"{'engine':<38}{'median s':>9}{'min-max s':>13}{'events/s':>12}{'x Spark':>9}{'x ceiling':>11}")
    for name, runs in seconds.items():
        s = statistics.median(runs)
        print(f"{name:<38}{s:>9.2f}{f'{min(runs):.2f}-{max(runs):.2f}':>13}{events / s:>12,.0f}"
              f"{spark_s / s:>9.2f}{ceiling_s / s:>11.2f}")


def report_first_batches(seconds: dict[str, list[float]], firsts: dict[str, list[float]]) -> None:
    """Per engine, the first batch apart from the rest: medians, min-max, and the rest over warm Spark's rest.

    "After the first batch" is a run's time less its first batch (so it keeps
    the query's start, the other batches and, for squall, the shutdown flush);
    warm Spark's is measured the same way.
    """
    after = {name: [s - f for s, f in zip(seconds[name], firsts[name], strict=True)] for name in seconds}
    spark_after = statistics.median(after[SPARK])
    print("\nthe first batch apart (median, min-max; after the first batch over warm Spark's after its first)")
    print(f"{'engine':<38}{'1st batch s':>12}{'min-max s':>13}{'after 1st s':>12}{'min-max s':>13}{'x Spark':>9}")
    for name in seconds:
        first, rest = firsts[name], after[name]
        print(f"{name:<38}{statistics.median(first):>12.2f}{f'{min(first):.2f}-{max(first):.2f}':>13}"
              f"{statistics.median(rest):>12.2f}{f'{min(rest):.2f}-{max(rest):.2f}':>13}"
              f"{spark_after / statistics.median(rest):>9.2f}")


def chart(seconds: dict[str, float], events: int, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(seconds)
    rates = [events / seconds[n] / 1000 for n in names]
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(names) + 1.2))
    bars = ax.barh(names[::-1], rates[::-1], color=["#888" if not n.startswith("squall") else "#1f77b4"
                                                    for n in names[::-1]])
    ax.bar_label(bars, [f"{r:,.0f}k" for r in rates[::-1]], padding=3)
    ax.set_xlabel("thousand events per second (higher is better)")
    ax.set_title(f"sliding 10 s / 5 s windows per key, {events:,} events, local[2]")
    ax.set_xlim(0, max(rates) * 1.2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"chart: {path}")


if __name__ == "__main__":
    main()
