"""Events per second: squall's sliding-window sum (driver mode) against Spark's groupBy(window(...)).

The workload is the Storm docs' sliding-window sum in event time, per key: a
window of 20 s sliding by 10 s on the ``ts`` field, fields grouping on ``key``.
Both sides read the same generated Parquet files in the same run and session;
the ratio is squall's rate over Spark's. Run: ``python benchmarks/spark_sliding_sum.py [--events N]``.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from bolts import BaseWindowedBolt, Fields
from topologies import FileSpout, SparkRunner, TopologyBuilder
from windowing import Duration

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


def run_squall(spark, data: Path, parallelism: int) -> float:
    bolt = (KeyedSlidingSum().with_window(Duration.seconds(20), Duration.seconds(10)).with_timestamp_field("ts")
            .with_lag(Duration.seconds(1)).with_watermark_interval(Duration.milliseconds(100)))
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(str(data / "*"), "parquet", ("key", "ts", "value"), schema=SCHEMA,
                                          max_files_per_trigger=1))
    builder.set_bolt("sum", bolt, parallelism).fields_grouping("events", Fields("key"))
    runner = SparkRunner(spark, checkpoint_location=tempfile.mkdtemp(prefix="bench-ck-"), clock=_step_clock())
    start = time.perf_counter()
    handle = runner.submit("bench", builder.create_topology(), available_now=True)
    handle.await_termination()
    elapsed = time.perf_counter() - start
    assert handle.outputs(), "squall produced no windows"
    return elapsed


def _step_clock():
    state = {"t": 0}

    def clock() -> int:
        state["t"] += 1000
        return state["t"]

    return clock


def run_spark(spark, data: Path) -> float:
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
    return elapsed


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--events", type=int, default=200_000)
    p.add_argument("--files", type=int, default=10)
    p.add_argument("--keys", type=int, default=100)
    p.add_argument("--parallelism", type=int, default=2)
    args = p.parse_args()
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").config("spark.sql.shuffle.partitions", "2")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    data = Path(tempfile.mkdtemp(prefix="bench-data-"))
    generate(spark, data, args.events, args.files, args.keys)
    events = args.events // args.files * args.files
    squall_s = run_squall(spark, data, args.parallelism)
    spark_s = run_spark(spark, data)
    rows = [("squall driver mode", squall_s), ("spark groupBy(window)", spark_s)]
    print(f"sliding-window sum, event time, {events} events, {args.keys} keys, {args.files} batches")
    print(f"{'engine':<24}{'seconds':>10}{'events/s':>14}{'ratio':>8}")
    for name, seconds in rows:
        print(f"{name:<24}{seconds:>10.2f}{events / seconds:>14,.0f}{spark_s / seconds:>8.2f}")
    spark.stop()


if __name__ == "__main__":
    main()
