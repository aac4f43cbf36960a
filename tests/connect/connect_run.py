"""Runs equivalence cases under a Spark Connect client session, in a process of its own; prints their outputs.

``python -m tests.connect.connect_run '<json>'`` with ``url`` (the server),
``data`` (the cases' input, written by the test), ``checkpoint``, ``runs``
(``[case, mode, state]`` triples): each run is a new query with the counting
clock the classic reference uses; optional ``name`` (one query name for every
run, to resume a checkpoint), ``output_dir`` and ``tables`` (``{"component:stream": path}``:
each stream also written there by a Parquet ``TableSink``). The last line printed is a JSON object:
``{"case/mode/state": {"outputs": [...], "count": n, "batches": b, "rows": r}}``.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

from pyspark.sql import SparkSession

from tests.cluster.cases import CASES
from tests.topologies.distributed_case import as_json
from tests.topologies.helpers import counting_clock
from topologies import SparkRunner
from topologies.sinks import TableSink


def main(args: dict) -> dict:
    spark = SparkSession.builder.remote(args["url"]).getOrCreate()
    cases = {c.name: c for c in CASES}
    results = {}
    for case, mode, state in args["runs"]:
        topology = cases[case].build(Path(args["data"]) / case, spark)
        sinks = [TableSink(stream, path=path) for stream, path in args.get("tables", {}).items()]
        runner = SparkRunner(spark, mode=mode, state=state, checkpoint_location=args["checkpoint"],
                             output_dir=args.get("output_dir"), clock=counting_clock(), sinks=sinks,
                             conf=cases[case].conf())
        handle = runner.submit(args.get("name") or f"c{uuid.uuid4().hex[:8]}", topology, available_now=True)
        if not handle.await_termination(600):
            raise SystemExit(f"{case} {mode} {state}: the query did not end within 600 s")
        progress = handle.progress
        results[f"{case}/{mode}/{state.split(':')[0]}"] = {
            "outputs": as_json(handle.outputs()), "count": handle.output_count,
            "batches": progress.batches, "rows": progress.input_rows,
        }
    spark.stop()
    return results


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
