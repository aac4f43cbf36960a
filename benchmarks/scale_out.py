"""Distributed mode on 1 and 2 executors: events/s, and what reaches the driver per batch.

The race's workload (``benchmarks/race.py``: keyed sliding 10 s / 5 s windows,
lag 5 s, 20 Parquet files read 2 per batch) through
``WindowedAggregateBolt(sum)`` in distributed mode on Redis, 2 tasks, fields
grouping, under ``local-cluster[E,1,2048]`` for E = 1 and 2 (separate
executor JVMs and Python workers), beside Spark's own ``groupBy(window)`` on
the same cluster. Each cluster runs in a child process of its own (a JVM
holds one SparkContext). In each, Spark is measured warm: one Spark run is
made first and thrown away (class loading, JIT, code generation), then Spark,
squall, and squall with a table sink run ``--rounds`` times (3), interleaved in
a rotating order, as in ``benchmarks/race.py``. It prints each one's median and
min-max seconds and its rate over warm Spark's, and the first batch apart from
the rest (the first batch of a new squall query builds its tasks in the
executors' Python workers, which start with the first squall run).

Per batch it prints the rows and bytes of the batch's input and the rows and
bytes the driver received from the stages (terminal outputs and one status
row per task and spout partition): in distributed mode they follow the
outputs, not the inputs. The same run again with the windows going to a
Parquet ``TableSink`` shows what the driver receives then: status rows only,
the windows going from the executors to the table. The squall sums (from the
outputs, then read back from the table) are checked against Spark's on every
window Spark emitted.

Run: ``python benchmarks/scale_out.py [--events N | --quick] [--rounds N] [--executors 1 2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
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
    first_batch_s,
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


def measure(executors: int, data: Path, state: str, rounds: int) -> dict[str, Any]:
    """One cluster, in the child process: warm Spark, then every engine ``rounds`` times, interleaved.

    Returns per engine the seconds and the first batch's seconds of every run,
    the driver's rows and bytes per batch (of the last squall runs), and counts
    for the checks.
    """
    from topologies.engine.placements import frames

    spark = session(executors)
    _, spark_sums, _ = run_spark(spark, data)  # the warm-up, discarded
    received: list[tuple[int, int]] = []
    original = frames.SparkFrames.driver_rows

    def counted(self: Any, frame: Any, mixed: bool = True) -> Any:
        rows = original(self, frame, mixed)
        received.append((rows.num_rows, rows.nbytes))
        return rows

    frames.SparkFrames.driver_rows = counted  # type: ignore[method-assign]
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(str(data), "parquet", FIELDS, schema=SCHEMA,
                                          max_files_per_trigger=FILES_PER_BATCH))
    builder.set_bolt("sum", aggregate_bolt(), TASKS).fields_grouping("events", Fields("key"))
    topology = builder.create_topology()
    facts: dict[str, Any] = {"executors": executors, "windows": len(spark_sums)}

    def spark_run() -> tuple[float, float]:
        elapsed, sums, first = run_spark(spark, data)
        if sums != spark_sums:
            raise SystemExit("Spark's own windows differ from run to run")
        return elapsed, first

    def squall_run() -> tuple[float, float]:
        received.clear()
        runner = SparkRunner(spark, "distributed", state, checkpoint_location=tempfile.mkdtemp(prefix="scale-ck-"),
                             clock=step_clock(), outputs_in_memory=None)
        start = time.perf_counter()
        handle = runner.submit(f"scale-{uuid.uuid4().hex[:8]}", topology, available_now=True)
        handle.await_termination()
        elapsed = time.perf_counter() - start
        outputs = [(o.task, list(o.values)) for o in handle.outputs()]
        check_sums(spark_sums, outputs, f"aggregate bolt, distributed, {executors} executors")
        facts.update(driver=per_batch(received), outputs=len(outputs))
        facts.setdefault("built", []).append(tasks_built(handle))
        return elapsed, first_batch_s(handle.query)

    def sink_run() -> tuple[float, float]:
        received.clear()
        table = tempfile.mkdtemp(prefix="scale-table-")
        runner = SparkRunner(spark, "distributed", state, checkpoint_location=tempfile.mkdtemp(prefix="scale-ck-"),
                             clock=step_clock(), sinks=[TableSink("sum", path=table)])
        start = time.perf_counter()
        handle = runner.submit(f"scale-{uuid.uuid4().hex[:8]}", topology, available_now=True)
        handle.await_termination()
        elapsed = time.perf_counter() - start
        if handle.outputs():
            raise SystemExit("the table sink's stream reached the driver")
        rows = spark.read.parquet(table).toArrow().to_pylist()
        rows.sort(key=lambda r: (r["batch_id"] < 0, r["batch_id"], r["pane"]["index"]))  # the flush comes last
        check_sums(spark_sums, [(0, [r["key"], r["window_start"], r["window_end"], r["value"]]) for r in rows],
                   f"aggregate bolt to a table, distributed, {executors} executors")
        facts.update(sink_driver=per_batch(received), table_rows=len(rows))
        return elapsed, first_batch_s(handle.query)

    engines: dict[str, Callable[[], tuple[float, float]]] = {"spark": spark_run, "squall": squall_run,
                                                             "table": sink_run}
    runs: dict[str, list[list[float]]] = {name: [] for name in engines}
    names = list(engines)
    for round_ in range(rounds):
        for name in names[round_ % len(names):] + names[: round_ % len(names)]:
            runs[name].append(list(engines[name]()))
            print(f"{executors} executor(s), round {round_ + 1}: {name} {runs[name][-1][0]:.2f} s "
                  f"(first batch {runs[name][-1][1]:.2f} s)", file=sys.stderr, flush=True)
    spark.stop()
    return {**facts, "runs": runs}


def tasks_built(handle: Any) -> list[int]:
    """How many of the bolt's tasks were built from the store in each batch (the rest were kept warm by a worker)."""
    return [m.bolts["sum"].tasks_built for m in handle.metrics_history() if "sum" in m.bolts]


def per_batch(received: list[tuple[int, int]]) -> list[dict[str, int]]:
    """The driver's rows and bytes per batch: one collect per batch (the bolt's stage brings the spouts' rows)."""
    return [{"rows": rows, "bytes": size} for rows, size in received]


def spread(values: list[float]) -> str:
    """``median (min-max)`` of ``values``, in seconds."""
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def print_times(results: list[dict[str, Any]], events: int) -> None:
    """Per cluster and engine: medians and min-max, whole runs and after the first batch, and x warm Spark."""
    labels = {"spark": "Spark groupBy(window)", "squall": "squall, outputs", "table": "squall, table sink"}
    print(f"{'executors':>9}  {'engine':<22}{'run s, median (min-max)':>26}{'x Spark':>9}{'events/s':>12}"
          f"{'1st batch s':>20}{'after 1st s':>20}{'x Spark':>9}")
    for r in results:
        whole = {n: [run[0] for run in runs] for n, runs in r["runs"].items()}
        first = {n: [run[1] for run in runs] for n, runs in r["runs"].items()}
        after = {n: [a - b for a, b in zip(whole[n], first[n], strict=True)] for n in whole}
        spark_s, spark_after = statistics.median(whole["spark"]), statistics.median(after["spark"])
        for name, label in labels.items():
            s = statistics.median(whole[name])
            print(f"{r['executors']:>9}  {label:<22}{spread(whole[name]):>26}{spark_s / s:>9.2f}{events / s:>12,.0f}"
                  f"{spread(first[name]):>20}{spread(after[name]):>20}"
                  f"{spark_after / statistics.median(after[name]):>9.2f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", type=int, default=2_000_000)
    p.add_argument("--quick", action="store_true", help="200,000 events, for development")
    p.add_argument("--redis-url", default=None, help="Redis for the state (default: start one)")
    p.add_argument("--rounds", type=int, default=3, help="rounds of every engine, interleaved (default 3)")
    p.add_argument("--executors", type=int, nargs="+", default=[1, 2], help="cluster sizes (default: 1 2)")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child is not None:
        spec = json.loads(args.child)
        print(json.dumps(measure(spec["executors"], Path(spec["data"]), spec["state"], spec["rounds"])))
        return
    events = 200_000 if args.quick else args.events
    data = Path(tempfile.mkdtemp(prefix="scale-data-"))
    tables = generate(data, events)
    events = sum(t.num_rows for t in tables)
    inputs = [sum(t.num_rows for t in tables[i : i + FILES_PER_BATCH]) for i in range(0, FILES, FILES_PER_BATCH)]
    input_bytes = [sum(t.nbytes for t in tables[i : i + FILES_PER_BATCH]) for i in range(0, FILES, FILES_PER_BATCH)]
    results = []
    with redis_url(args.redis_url) as url:
        for executors in args.executors:
            child = json.dumps({"executors": executors, "data": str(data), "state": url, "rounds": args.rounds})
            proc = subprocess.run([sys.executable, __file__, "--child", child], capture_output=True,
                                  text=True, check=False)
            print("\n".join(line for line in proc.stderr.splitlines() if " round " in line), flush=True)
            if proc.returncode != 0:
                raise SystemExit(f"the run on {executors} executor(s) failed:\n{proc.stderr[-3000:]}")
            results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(f"scale-out: {events:,} events, WindowedAggregateBolt(sum) in distributed mode on Redis, {TASKS} tasks, "
          f"local-cluster[E,1,2048]; sums equal Spark's on all {results[0]['windows']:,} windows; Spark warmed up "
          f"first, then {args.rounds} interleaved rounds; x Spark: warm Spark's median over the engine's")
    print_times(results, events)
    for r in results:
        for i, built in enumerate(r.get("built", [])):
            print(f"{r['executors']} executor(s), squall run {i + 1}: tasks built from the store per batch {built} "
                  f"({sum(built)} of {TASKS * len(built)} task-batches; the others were kept by a warm worker)")
    last = results[-1]
    print(f"\nper batch, {last['executors']} executor(s): the batch's input, and what the driver received from "
          "the stages,")
    print("with the windows as outputs and with the windows going to a Parquet TableSink")
    print(f"{'batch':>5}{'input rows':>12}{'input bytes':>13}{'driver rows':>13}{'driver bytes':>14}"
          f"{'rows, table':>13}{'bytes, table':>14}")
    for i, (got, sunk) in enumerate(zip(last["driver"], last["sink_driver"], strict=False)):
        rows, size = (inputs[i], input_bytes[i]) if i < len(inputs) else (0, 0)
        label = str(i) if i < len(inputs) else "flush"
        print(f"{label:>5}{rows:>12,}{size:>13,}{got['rows']:>13,}{got['bytes']:>14,}{sunk['rows']:>13,}"
              f"{sunk['bytes']:>14,}")
    total_in = sum(input_bytes)
    total_driver = sum(b["bytes"] for b in last["driver"])
    total_sunk = sum(b["bytes"] for b in last["sink_driver"])
    print(f"driver bytes / input bytes: {total_driver / total_in:.4f} ({last['outputs']:,} outputs); "
          f"with the table sink {total_sunk / total_in:.4f} ({last['table_rows']:,} rows in the table)")


if __name__ == "__main__":
    main()
