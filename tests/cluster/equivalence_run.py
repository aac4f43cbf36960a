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
values]`` in order. Two queries run at a time (:func:`tests.topologies.helpers.side_by_side`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any


def main() -> None:
    args = json.loads(sys.argv[1])
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.cluster.cases import CASES, PROBE_DIR
    from tests.topologies.distributed_case import as_json
    from tests.topologies.distributed_run import session
    from tests.topologies.helpers import counting_clock, side_by_side
    from topologies import SparkRunner
    from topologies.sinks import TableSink

    # A task should go to whichever executor is free, so tasks move between executors from batch to batch. Two
    # settings keep a task to the executor holding its input: delay scheduling (spark.locality.wait, 3 s by
    # default) and, for a stage after a shuffle, the reduce tasks' preference for the executor holding most of
    # their map output (spark.shuffle.reduceLocality.enabled); with the second alone the probe's tasks each
    # kept to one executor for a whole run.
    spark = session(args["master"], {"spark.locality.wait": "0", "spark.shuffle.reduceLocality.enabled": "false"})
    cases = {c.name: c for c in CASES}


    def run(case: str, state: str, checkpoint: str, name: str, conf: dict, sinks: list) -> Generator[Any, None, list]:
        runner = SparkRunner(spark, mode="distributed", state=state, clock=counting_clock(),
                             checkpoint_location=Path(args["checkpoint"]) / checkpoint, conf=conf, sinks=sinks)
        handle = runner.submit(f"{args['name']}-{name}", cases[case].build(Path(args["data"]) / case, spark),
                               available_now=True)
        yield handle
        return as_json(handle.outputs())

    runs = {}
    for n in range(args["runs"]):
        probe = Path(args["probe"]) / str(n)
        probe.mkdir(parents=True, exist_ok=True)
        for case in CASES:
            runs[f"case {case.name} run {n}"] = run(case.name, args["state"], str(n),
                                                    f"{case.name.replace('_', '-')}-{n}",
                                                    {**case.conf(), PROBE_DIR: str(probe)}, [])
    for name, state in args.get("more", []):
        scheme = state.split(":")[0]
        runs[f"{name}/{scheme}"] = run(name, state, "more", f"{name.replace('_', '-')}-{scheme}", cases[name].conf(),
                                       [])
    table = TableSink("printer", path=args["table"], schema="source string, value double")
    runs["table_outputs"] = run("sliding_window", args["state"], "table", "table", {}, [table])

    # Two queries at a time: tasks of both share the executors, as an application's queries would.
    got = side_by_side(runs)
    result: dict[str, Any] = {case.name: [got[f"case {case.name} run {n}"] for n in range(args["runs"])]
                              for case in CASES}
    result |= {key: outputs for key, outputs in got.items() if not key.startswith("case ")}
    print(json.dumps(result))
    spark.stop()


if __name__ == "__main__":
    main()
