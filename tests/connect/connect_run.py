"""Runs equivalence cases under a Spark Connect client session, in a process of its own; prints their outputs.

``python -m tests.connect.connect_run '<json>'`` with ``url`` (the server),
``data`` (the cases' input, written by the test), ``checkpoint``, ``runs``
(``[case, mode, state]`` triples): each run is a new query with the counting
clock the classic reference uses; optional ``name`` (one query name for every
run, to resume a checkpoint), ``output_dir`` and ``tables`` (``{"component:stream": path}``:
each stream also written there by a Parquet ``TableSink``). The last line printed is a JSON object:
``{"case/mode/state": {"outputs": [...], "count": n, "batches": b, "rows": r}}``. Without ``name``, two runs go
side by side (:func:`tests.topologies.helpers.side_by_side`).
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Generator
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from tests.cluster.cases import CASES
from tests.topologies.distributed_case import as_json
from tests.topologies.helpers import counting_clock, side_by_side
from topologies import SparkRunner
from topologies.sinks import TableSink


def main(args: dict) -> dict:
    spark = SparkSession.builder.remote(args["url"]).getOrCreate()
    cases = {c.name: c for c in CASES}

    def run(case: str, mode: str, state: str) -> Generator[Any, None, dict[str, Any]]:
        topology = cases[case].build(Path(args["data"]) / case, spark)
        sinks = [TableSink(stream, path=path) for stream, path in args.get("tables", {}).items()]
        runner = SparkRunner(spark, mode=mode, state=state, checkpoint_location=args["checkpoint"],
                             output_dir=args.get("output_dir"), clock=counting_clock(), sinks=sinks,
                             conf=cases[case].conf())
        handle = runner.submit(args.get("name") or f"c{uuid.uuid4().hex[:8]}", topology, available_now=True)
        yield handle
        progress = handle.progress
        return {"outputs": as_json(handle.outputs()), "count": handle.output_count,
                "batches": progress.batches, "rows": progress.input_rows}

    runs = {f"{case}/{mode}/{state.split(':')[0]}": run(case, mode, state) for case, mode, state in args["runs"]}
    # Runs of one query name resume each other's checkpoint: those go one after another.
    results = side_by_side(runs, width=1 if args.get("name") else 2)
    spark.stop()
    return results


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
