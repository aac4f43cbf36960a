"""Runs the equivalence cases in distributed mode on a cluster, in a SparkSession of its own; prints JSON.

Usage: ``python -m tests.cluster.equivalence_run '<json>'`` with keys ``master``
(``local-cluster[2,1,1024]``: two executor processes), ``data`` (the directory
holding one input directory per case), ``checkpoint``, ``state`` (a Redis or
HBase URL), ``runs`` (how many times each case runs, each as a new query, so
placement differs from run to run), ``name`` (a prefix for the query names) and
``probe`` (where :class:`tests.cluster.cases.Probe` records processes, one
directory per run), and ``table``: a directory where one more run of the
``sliding_window`` case writes its printer's stream with a Parquet
``TableSink``, from the executors; optional ``more``: ``[[case, state URL], ...]``,
one more run of each case over that store (``<case>/<scheme>`` in the answer).
Prints one JSON line: ``{"<case>": [outputs of run 0, ...], "table_outputs":
[outputs of the table run], ...}`` with outputs as ``[component, task, stream,
values]`` in order.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    args = json.loads(sys.argv[1])
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.cluster.cases import CASES, PROBE_DIR
    from tests.topologies.distributed_case import as_json
    from tests.topologies.distributed_run import session
    from tests.topologies.helpers import counting_clock
    from topologies import SparkRunner
    from topologies.sinks import TableSink

    # A task should go to whichever executor is free, so tasks move between executors from batch to batch. Two
    # settings keep a task to the executor holding its input: delay scheduling (spark.locality.wait, 3 s by
    # default) and, for a stage after a shuffle, the reduce tasks' preference for the executor holding most of
    # their map output (spark.shuffle.reduceLocality.enabled); with the second alone the probe's two tasks each
    # kept to one executor for a whole run.
    spark = session(args["master"], {"spark.locality.wait": "0", "spark.shuffle.reduceLocality.enabled": "false"})
    result: dict[str, list] = {case.name: [] for case in CASES}
    for run in range(args["runs"]):
        probe = Path(args["probe"]) / str(run)
        probe.mkdir(parents=True, exist_ok=True)
        for case in CASES:
            runner = SparkRunner(spark, mode="distributed", state=args["state"], clock=counting_clock(),
                                 checkpoint_location=Path(args["checkpoint"]) / str(run),
                                 conf={**case.conf(), PROBE_DIR: str(probe)})
            handle = runner.submit(f"{args['name']}-{case.name.replace('_', '-')}-{run}",
                                   case.build(Path(args["data"]) / case.name, spark), available_now=True)
            if not handle.await_termination(600):
                msg = f"case {case.name} run {run} did not end within 600 s"
                raise SystemExit(msg)
            result[case.name].append(as_json(handle.outputs()))
    cases = {c.name: c for c in CASES}
    for name, state in args.get("more", []):
        runner = SparkRunner(spark, mode="distributed", state=state, clock=counting_clock(),
                             checkpoint_location=Path(args["checkpoint"]) / "more", conf=cases[name].conf())
        handle = runner.submit(f"{args['name']}-{name.replace('_', '-')}-{state.split(':')[0]}",
                               cases[name].build(Path(args["data"]) / name, spark), available_now=True)
        if not handle.await_termination(600):
            raise SystemExit(f"case {name} on {state.split(':')[0]} did not end within 600 s")
        result[f"{name}/{state.split(':')[0]}"] = as_json(handle.outputs())
    case = cases["sliding_window"]
    runner = SparkRunner(spark, mode="distributed", state=args["state"], clock=counting_clock(),
                         checkpoint_location=Path(args["checkpoint"]) / "table",
                         sinks=[TableSink("printer", path=args["table"], schema="source string, value double")])
    handle = runner.submit(f"{args['name']}-table", case.build(Path(args["data"]) / case.name, spark),
                           available_now=True)
    if not handle.await_termination(600):
        raise SystemExit("the table run did not end within 600 s")
    result["table_outputs"] = as_json(handle.outputs())
    print(json.dumps(result))
    spark.stop()


if __name__ == "__main__":
    main()
