"""Events per second: squall's sliding-window sums against Spark's groupBy(window(...)).

The workload is the Storm docs' sliding-window sum in event time, per key: a
window of 20 s sliding by 10 s on the ``ts`` field, fields grouping on ``key``.
squall runs it as a Storm windowed bolt (driver and distributed mode) and as a
``WindowedAggregateBolt`` (``SlidingWindows``, default trigger: one pane per
window and key when the watermark passes, as Spark's append mode emits), with
its state committed to a state backend every batch (driver and distributed).
All read the same generated Parquet files in the same run and session;
the ratio is each rate over Spark's. Distributed mode keeps the windows in
Redis: ``--redis-url`` (a server of yours; the benchmark uses fresh namespaces)
or, by default, a redis-server the script starts on a free port and stops.
Run: ``python benchmarks/spark_sliding_sum.py [--events N] [--redis-url URL]``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bolts import BaseWindowedBolt, Fields, WindowedAggregateBolt
from topologies import FileSpout, SparkRunner, TopologyBuilder
from windowing import Duration, SlidingWindows, aggregators

SCHEMA = "key STRING, ts BIGINT, value BIGINT"


class KeyedSlidingSum(BaseWindowedBolt):
    def execute(self, window):
        sums = {}
        for t in window.get():
            sums[t["key"]] = sums.get(t["key"], 0) + t["value"]
        for key, total in sums.items():
            self.collector.emit([key, window.end_timestamp, total])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "window_end", "sum"))


def generate(spark, directory: Path, events: int, files: int, keys: int) -> None:
    rng = random.Random(7)
    per_file = events // files
    for f in range(files):
        rows = [(f"k{rng.randrange(keys)}", (f * per_file + i) * 10, rng.randrange(100)) for i in range(per_file)]
        spark.createDataFrame(rows, SCHEMA).coalesce(1).write.mode("overwrite").parquet(str(directory / f"p{f:04d}"))


def storm_bolt() -> KeyedSlidingSum:
    return (KeyedSlidingSum().with_window(Duration.seconds(20), Duration.seconds(10)).with_timestamp_field("ts")
            .with_lag(Duration.seconds(1)).with_watermark_interval(Duration.milliseconds(100)))


def aggregate_bolt() -> WindowedAggregateBolt:
    return (WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
            .with_windows(SlidingWindows(Duration.seconds(20), Duration.seconds(10))).with_timestamp_field("ts")
            .with_lag(Duration.seconds(1)).with_watermark_interval(Duration.milliseconds(100)))


def run_squall(spark, data: Path, parallelism: int, mode: str = "driver", state: str = "memory://",
               bolt: BaseWindowedBolt | WindowedAggregateBolt | None = None) -> tuple[float, list[list[object]]]:
    bolt = bolt if bolt is not None else storm_bolt()
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(str(data / "*"), "parquet", ("key", "ts", "value"), schema=SCHEMA,
                                          max_files_per_trigger=1))
    builder.set_bolt("sum", bolt, parallelism).fields_grouping("events", Fields("key"))
    runner = SparkRunner(spark, mode, state, checkpoint_location=tempfile.mkdtemp(prefix="bench-ck-"),
                         clock=_step_clock(), outputs_in_memory=None)  # every window is checked
    start = time.perf_counter()
    handle = runner.submit(f"bench-{uuid.uuid4().hex[:8]}", builder.create_topology(), available_now=True)
    handle.await_termination()
    elapsed = time.perf_counter() - start
    outputs = [o.values for o in handle.outputs()]
    assert outputs, "squall produced no windows"
    return elapsed, outputs


def _step_clock():
    state = {"t": 0}

    def clock() -> int:
        state["t"] += 1000
        return state["t"]

    return clock


@contextmanager
def redis_url(given: str | None) -> Iterator[str]:
    """``given``, or the URL of a redis-server started on a free port for the run (stopped at the end)."""
    if given:
        yield given
        return
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("distributed mode needs Redis: install redis-server or pass --redis-url")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


def run_spark(spark, data: Path) -> tuple[float, dict[tuple[str, int], int]]:
    from pyspark.sql import functions as F

    df = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(data / "*"))
          .withColumn("event_time", F.timestamp_millis("ts")).withWatermark("event_time", "1 second"))
    agg = df.groupBy(F.window("event_time", "20 seconds", "10 seconds"), "key").agg(F.sum("value").alias("sum"))
    start = time.perf_counter()
    query = (agg.writeStream.outputMode("append").format("memory").queryName("bench_spark")
             .option("checkpointLocation", tempfile.mkdtemp(prefix="bench-spark-ck-"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    elapsed = time.perf_counter() - start
    query.stop()
    rows = spark.sql("SELECT key, unix_millis(window.end) AS end, sum FROM bench_spark").collect()
    return elapsed, {(r["key"], r["end"]): r["sum"] for r in rows}


def check_same_sums(spark_sums: dict[tuple[str, int], int], panes: list[list[object]]) -> None:
    """Every window Spark emitted has the same sum in squall's panes (squall also flushes the rest at the end)."""
    squall_sums = {(p[0], p[2]): p[3] for p in panes}
    wrong = {k: (v, squall_sums.get(k)) for k, v in spark_sums.items() if squall_sums.get(k) != v}
    assert not wrong, f"sums differ from Spark's (spark, squall): {list(wrong.items())[:5]}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--events", type=int, default=200_000)
    p.add_argument("--files", type=int, default=10)
    p.add_argument("--keys", type=int, default=100)
    p.add_argument("--parallelism", type=int, default=2)
    p.add_argument("--redis-url", default=None, help="Redis for distributed mode (default: start one)")
    args = p.parse_args()
    from pyspark.sql import SparkSession

    repo = str(Path(__file__).resolve().parent.parent)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["PYTHONPATH"] = os.pathsep.join(x for x in (repo, os.environ.get("PYTHONPATH")) if x)
    spark = (SparkSession.builder.master("local[2]").config("spark.sql.shuffle.partitions", "2")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    data = Path(tempfile.mkdtemp(prefix="bench-data-"))
    generate(spark, data, args.events, args.files, args.keys)
    events = args.events // args.files * args.files
    runs = {"squall windowed bolt, driver": run_squall(spark, data, args.parallelism),
            "squall aggregate bolt, driver": run_squall(spark, data, args.parallelism, bolt=aggregate_bolt())}
    with redis_url(args.redis_url) as url:
        runs["squall windowed bolt, distr."] = run_squall(spark, data, args.parallelism, "distributed", url)
        runs["squall aggregate bolt, distr."] = run_squall(spark, data, args.parallelism, "distributed", url,
                                                           aggregate_bolt())
    spark_s, spark_sums = run_spark(spark, data)
    for name in ("squall aggregate bolt, driver", "squall aggregate bolt, distr."):
        check_same_sums(spark_sums, runs[name][1])
    rows = [(name, seconds) for name, (seconds, _) in runs.items()] + [("spark groupBy(window)", spark_s)]
    print(f"sliding-window sum, event time, {events} events, {args.keys} keys, {args.files} batches; "
          f"the aggregate bolt's sums equal Spark's for all {len(spark_sums)} windows Spark emitted")
    print(f"{'engine':<32}{'seconds':>10}{'events/s':>14}{'ratio':>8}")
    for name, seconds in rows:
        print(f"{name:<32}{seconds:>10.2f}{events / seconds:>14,.0f}{spark_s / seconds:>8.2f}")
    spark.stop()


if __name__ == "__main__":
    main()
