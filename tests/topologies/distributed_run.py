"""Runs the distributed case in its own SparkSession (a subprocess of the tests); prints outputs as JSON.

Usage: ``python -m tests.topologies.distributed_run '<json>'`` with keys ``master``,
``data``, ``checkpoint``, ``name``, ``states`` (a list of state URLs; the topology runs
once per URL, as query ``<name>-<i>``) and optionally ``small`` (the argument of
:func:`distributed_case.build`). Prints one JSON line:
``{"<url>": [[component, task, stream, values], ...]}``. With ``"output_dir"`` the
runner also writes the outputs there; ``"clock_start"`` is the time the clock gives the
first batch this run records (default ``helpers.START``). With ``"crash_after"``:
the run stops (exit code 3) after the outputs of that batch id are written, as a
crash before Spark's commit would; a second run with the same checkpoint resumes.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pyspark


def session(master: str, conf: dict[str, str] | None = None):
    """A SparkSession on ``master`` whose executors run this interpreter and can import the repo (and ``conf``)."""
    repo = str(Path(__file__).resolve().parents[2])
    os.environ["SPARK_HOME"] = os.path.dirname(pyspark.__file__)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (repo, os.environ.get("PYTHONPATH")) if p)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    spark = (builder.master(master).appName("squall-distributed-test")
             .config("spark.executorEnv.PYTHONPATH", repo).config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "2")
             .config("spark.executor.memory", "512m").config("spark.sql.session.timeZone", "UTC")
             # C1 only starts fast; its 48 MB code cache fills in long runs of many queries, and a full one
             # turns the compiler off (everything slows down), so it is made larger.
             .config("spark.driver.extraJavaOptions",
                     "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m -XX:+UseSerialGC -XX:-UsePerfData")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main() -> None:
    args = json.loads(sys.argv[1])
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.topologies import distributed_case
    from tests.topologies.helpers import FIELDS, SCHEMA, START, counting_clock
    from topologies import SparkRunner
    from topologies.engine.delivery import SinkDelivery
    from topologies.spouts import FileSpout

    crash_after = args.get("crash_after")
    if crash_after is not None:
        original = SinkDelivery.write

        def write_then_crash(self, batch):
            original(self, batch)  # every sink has the batch's outputs
            if batch.key == crash_after:
                os._exit(3)

        SinkDelivery.write = write_then_crash
    spark = session(args["master"])
    spout = FileSpout(args["data"], "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1)
    topo = distributed_case.build(spout, small=args.get("small", False))
    result = {}
    for i, state in enumerate(args["states"]):
        runner = SparkRunner(spark, mode="distributed", state=state, checkpoint_location=args["checkpoint"],
                             clock=counting_clock(args.get("clock_start", START)), output_dir=args.get("output_dir"))
        handle = runner.submit(f"{args['name']}-{i}", topo, available_now=True)
        if not handle.await_termination(600):
            msg = f"distributed_run: query {args['name']}-{i} did not end within 600 s"
            raise SystemExit(msg)
        result[state] = distributed_case.as_json(handle.outputs())
    print(json.dumps(result))
    spark.stop()


if __name__ == "__main__":
    main()
