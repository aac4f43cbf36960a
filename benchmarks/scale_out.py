"""Distributed mode on 1 and 2 executors: events/s, and what reaches the driver per batch.

The race's workload (``benchmarks/race.py``: keyed sliding 10 s / 5 s windows,
lag 5 s, 20 Parquet files read 2 per batch) through
``WindowedAggregateBolt(sum)`` in distributed mode on Redis, 2 tasks, fields
grouping, under ``local-cluster[E,1,2048]`` for E = 1 and 2 (separate
executor JVMs and Python workers), beside Spark's own ``groupBy(window)`` on
the same cluster. Each cluster runs in a child process of its own (a JVM
holds one SparkContext).

Per batch it prints the rows and bytes of the batch's input and the rows and
bytes the driver received from the stages (terminal outputs and one status
row per task and spout partition): in distributed mode they follow the
outputs, not the inputs. The same run again with the windows going to a
Parquet ``TableSink`` shows what the driver receives then: status rows only,
the windows going from the executors to the table. The squall sums (from the
outputs, then read back from the table) are checked against Spark's on every
window Spark emitted.

Run: ``python benchmarks/scale_out.py [--events N | --quick]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.race import (
    FIELDS,
    FILES,
    FILES_PER_BATCH,
    SCHEMA,
    TASKS,
    aggregate_bolt,
    check_sums,
    generate,
    run_spark,
    step_clock,
)
from benchmarks.spark_sliding_sum import redis_url
from bolts import Fields
from topologies import FileSpout, SparkRunner, TopologyBuilder
from topologies.sinks import TableSink


def session(executors: int) -> Any:
    """A SparkSession on ``local-cluster[executors,1,2048]`` whose executors import this repo."""
    import pyspark
    from pyspark.sql import SparkSession

    repo = str(Path(__file__).resolve().parent.parent)
    os.environ["SPARK_HOME"] = os.path.dirname(pyspark.__file__)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join(x for x in (repo, os.environ.get("PYTHONPATH")) if x)
    spark = (SparkSession.builder.master(f"local-cluster[{executors},1,2048]").appName("squall-scale-out")
             .config("spark.executorEnv.PYTHONPATH", repo).config("spark.executor.memory", "1536m")
             .config("spark.sql.shuffle.partitions", str(executors)).config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.sql.session.timeZone", "UTC")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def measure(executors: int, data: Path, state: str) -> dict[str, Any]:
    """One cluster: Spark's time, squall's time, and per batch the driver's rows and bytes (in the child process)."""
    from topologies.executor import stage_engines

    spark = session(executors)
    spark_s, spark_sums = run_spark(spark, data)
    received: list[tuple[int, int]] = []
    original = stage_engines.SparkStages.driver_rows

    def counted(self: Any, frame: Any) -> Any:
        rows = original(self, frame)
        received.append((rows.num_rows, rows.nbytes))
        return rows

    stage_engines.SparkStages.driver_rows = counted  # type: ignore[method-assign]
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(str(data), "parquet", FIELDS, schema=SCHEMA,
                                          max_files_per_trigger=FILES_PER_BATCH))
    builder.set_bolt("sum", aggregate_bolt(), TASKS).fields_grouping("events", Fields("key"))
    runner = SparkRunner(spark, "distributed", state, checkpoint_location=tempfile.mkdtemp(prefix="scale-ck-"),
                         clock=step_clock(), outputs_in_memory=None)
    start = time.perf_counter()
    handle = runner.submit(f"scale-{uuid.uuid4().hex[:8]}", builder.create_topology(), available_now=True)
    handle.await_termination()
    squall_s = time.perf_counter() - start
    outputs = [(o.task, list(o.values)) for o in handle.outputs()]
    check_sums(spark_sums, outputs, f"aggregate bolt, distributed, {executors} executors")
    batches = per_batch(received)

    received.clear()
    table = tempfile.mkdtemp(prefix="scale-table-")
    runner = SparkRunner(spark, "distributed", state, checkpoint_location=tempfile.mkdtemp(prefix="scale-ck-"),
                         clock=step_clock(), sinks=[TableSink("sum", path=table)])
    start = time.perf_counter()
    handle = runner.submit(f"scale-{uuid.uuid4().hex[:8]}", builder.create_topology(), available_now=True)
    handle.await_termination()
    sink_s = time.perf_counter() - start
    assert not handle.outputs(), "the table sink's stream reached the driver"
    rows = spark.read.parquet(table).toArrow().to_pylist()
    rows.sort(key=lambda r: (r["batch_id"] < 0, r["batch_id"], r["pane"]["index"]))  # the flush comes last
    check_sums(spark_sums, [(0, [r["key"], r["window_start"], r["window_end"], r["value"]]) for r in rows],
               f"aggregate bolt to a table, distributed, {executors} executors")
    spark.stop()
    return {"executors": executors, "spark_s": spark_s, "squall_s": squall_s, "windows": len(spark_sums),
            "outputs": len(outputs), "driver": batches, "sink_s": sink_s, "sink_driver": per_batch(received),
            "table_rows": len(rows)}


def per_batch(received: list[tuple[int, int]]) -> list[dict[str, int]]:
    """The driver's rows and bytes per batch: each batch collects the bolt's frame, then the spouts'."""
    pairs = [received[i : i + 2] for i in range(0, len(received), 2)]
    return [{"rows": sum(r for r, _ in b), "bytes": sum(n for _, n in b)} for b in pairs]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", type=int, default=2_000_000)
    p.add_argument("--quick", action="store_true", help="200,000 events, for development")
    p.add_argument("--redis-url", default=None, help="Redis for the state (default: start one)")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child is not None:
        spec = json.loads(args.child)
        print(json.dumps(measure(spec["executors"], Path(spec["data"]), spec["state"])))
        return
    events = 200_000 if args.quick else args.events
    data = Path(tempfile.mkdtemp(prefix="scale-data-"))
    tables = generate(data, events)
    events = sum(t.num_rows for t in tables)
    inputs = [sum(t.num_rows for t in tables[i : i + FILES_PER_BATCH]) for i in range(0, FILES, FILES_PER_BATCH)]
    input_bytes = [sum(t.nbytes for t in tables[i : i + FILES_PER_BATCH]) for i in range(0, FILES, FILES_PER_BATCH)]
    results = []
    with redis_url(args.redis_url) as url:
        for executors in (1, 2):
            child = json.dumps({"executors": executors, "data": str(data), "state": url})
            proc = subprocess.run([sys.executable, __file__, "--child", child], capture_output=True, text=True,
                                  check=False)
            if proc.returncode != 0:
                raise SystemExit(f"the run on {executors} executor(s) failed:\n{proc.stderr[-3000:]}")
            results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(f"scale-out: {events:,} events, WindowedAggregateBolt(sum) in distributed mode on Redis, {TASKS} tasks, "
          f"local-cluster[E,1,2048]; sums equal Spark's on all {results[0]['windows']:,} windows")
    print(f"{'executors':>9}{'Spark s':>9}{'squall s':>10}{'squall events/s':>17}{'x Spark':>9}"
          f"{'with table s':>14}")
    for r in results:
        print(f"{r['executors']:>9}{r['spark_s']:>9.2f}{r['squall_s']:>10.2f}{events / r['squall_s']:>17,.0f}"
              f"{r['spark_s'] / r['squall_s']:>9.2f}{r['sink_s']:>14.2f}")
    print("\nper batch, 2 executors: the batch's input, and what the driver received from the stages,")
    print("with the windows as outputs and with the windows going to a Parquet TableSink")
    print(f"{'batch':>5}{'input rows':>12}{'input bytes':>13}{'driver rows':>13}{'driver bytes':>14}"
          f"{'rows, table':>13}{'bytes, table':>14}")
    for i, (got, sunk) in enumerate(zip(results[1]["driver"], results[1]["sink_driver"], strict=False)):
        rows, size = (inputs[i], input_bytes[i]) if i < len(inputs) else (0, 0)
        label = str(i) if i < len(inputs) else "flush"
        print(f"{label:>5}{rows:>12,}{size:>13,}{got['rows']:>13,}{got['bytes']:>14,}{sunk['rows']:>13,}"
              f"{sunk['bytes']:>14,}")
    total_in = sum(input_bytes)
    total_driver = sum(b["bytes"] for b in results[1]["driver"])
    total_sunk = sum(b["bytes"] for b in results[1]["sink_driver"])
    print(f"driver bytes / input bytes: {total_driver / total_in:.4f} ({results[1]['outputs']:,} outputs); "
          f"with the table sink {total_sunk / total_in:.4f} ({results[1]['table_rows']:,} rows in the table)")


if __name__ == "__main__":
    main()
