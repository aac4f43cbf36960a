"""Runs ported topologies in distributed mode on a cluster, in a SparkSession of its own; prints their outputs as JSON.

Usage: ``python -m tests.porting.cluster_run '<json>'`` with keys ``master`` (``local-cluster[2,1,1024]``: two
executor processes) and ``runs``, a list of runs made in this session (two at a time, a variant's after the
previous variant's), each with the keys
``topology`` (one of :data:`PORTS`), ``work_dir`` (the port's working directory: its spouts' files, its checkpoint),
``name`` (the topology's name, its ``args[0]``), ``state`` (a Redis URL) and optionally ``variant`` (``registered``,
the default, or ``pickled``: see tests/porting/java_serialization.py), ``clock_start`` (the time of the run's first
batch; the ports' own step follows) and, for ``lambda``, ``outputs`` (how many to wait for before stopping the
endless run). A ``pickled`` run must come before any ``registered`` one: a class registered in this process (and
its executors' Python workers) would travel by its registration. A second SparkSession cannot be made in the test
process, whose shared session is ``local[2]``: see tests/cluster/equivalence_run.py, whose pattern this is. Prints one
JSON line: per run, its outputs as ``[component, task, stream, values]`` in order (a ranking as ``[[word, count],
...]``, PersistentWindowingTopology's averages as ``[global, window]``).
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

PORTS = ("word_count", "rolling_top_words", "skewed_rolling_top_words", "persistent_windowing", "lambda")
TICK, PERSISTENT_STEP = 3_000, 2_000  # the clocks' steps of the rolling top words and persistent windowing tests


def main() -> None:
    args = json.loads(sys.argv[1])
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.topologies.distributed_run import session
    from tests.topologies.helpers import side_by_side

    runs = args["runs"]
    for run in runs:
        if run["topology"] not in PORTS:
            msg = f"cluster_run: `topology` must be one of {', '.join(PORTS)}; got {run['topology']!r}"
            raise SystemExit(msg)
    registered = False
    for run in runs:
        if run.get("variant", "registered") == "registered":
            registered = True
        elif registered:
            raise SystemExit("cluster_run: a `pickled` run must come before every `registered` one")
    # Without delay scheduling a stage's tasks go to whichever executor is free (see equivalence_run.py).
    spark = session(args["master"], {"spark.locality.wait": "0"})
    answers: dict[str, list[list[Any]]] = {}
    # Two runs at a time, and every run of a variant ends before the next variant's first starts.
    for _, group in itertools.groupby(enumerate(runs), key=lambda item: item[1].get("variant", "registered")):
        answers |= side_by_side({f"run {i} ({run['topology']})": run_port(spark, run) for i, run in group})
    print(json.dumps([answers[f"run {i} ({run['topology']})"] for i, run in enumerate(runs)]))
    spark.stop()


def run_port(spark: Any, run: dict[str, Any]) -> Generator[Any, None, list[list[Any]]]:
    """Submits one port in distributed mode and yields its handle; returns its outputs, JSON-ready."""
    from tests.porting.java_serialization import java_serialization_args, ranked
    from tests.porting.persistent_windowing_topology import PersistentWindowingTopology
    from tests.porting.test_rolling_top_words import stepping_clock
    from tests.topologies.helpers import counting_clock
    from topologies.sinks.records import to_json

    topology, work, name, state = run["topology"], Path(run["work_dir"]), run["name"], run["state"]
    variant = run.get("variant", "registered")
    start = run.get("clock_start", 1_700_000_000_000)
    if topology == "word_count":
        from tests.porting.word_count_topology import WordCountTopology

        handle = WordCountTopology.main(spark, work, counting_clock(), [name], mode="distributed", state=state)
    elif topology in ("rolling_top_words", "skewed_rolling_top_words"):
        if topology == "rolling_top_words":
            from tests.porting.rolling_top_words import RollingTopWords as Port
        else:
            from tests.porting.skewed_rolling_top_words import SkewedRollingTopWords as Port
        args = [name, *java_serialization_args(work, variant)]
        handle = Port.main(spark, work, stepping_clock(start, TICK), args, mode="distributed", state=state)
    elif topology == "persistent_windowing":
        url = urlsplit(state)
        jedis = {"host": url.hostname, "port": url.port, "database": int(url.path.strip("/") or 0)}
        handle = PersistentWindowingTopology.main(spark, work, stepping_clock(start, PERSISTENT_STEP), [name],
                                                  jedis_pool_config=jedis, java_serialization=variant == "pickled",
                                                  mode="distributed")
    else:
        return run_lambda(spark, run)  # an endless run, stopped after its outputs: nothing to await
    yield handle
    outputs = handle.outputs()
    if topology.endswith("rolling_top_words"):
        return [[o.component, o.task, o.stream, ranked(o.values[0])] for o in outputs]
    if topology == "persistent_windowing":
        return [[o.component, o.task, o.stream, [o.values[0].global_, o.values[0].window]] for o in outputs]
    return [[o.component, o.task, o.stream, to_json(o.values)] for o in outputs]


def run_lambda(spark: Any, run: dict[str, Any]) -> list[list[Any]]:
    """LambdaTopology with a probe on bolt1, until the probe emitted ``run["outputs"]`` tuples; then stopped."""
    from tests.porting.probe import ProbedLambdaTopology
    from tests.topologies.helpers import counting_clock

    handle = ProbedLambdaTopology.main(spark, Path(run["work_dir"]), counting_clock(), [run["name"]],
                                       mode="distributed", state=run["state"])
    deadline = time.monotonic() + 600
    try:
        while handle.output_count < run["outputs"]:
            if time.monotonic() > deadline or not handle.query.isActive:
                msg = f"LambdaTopology gave {handle.output_count} outputs, not {run['outputs']}, within 600 s"
                raise SystemExit(msg)
            time.sleep(0.5)
    finally:
        handle.stop()
    return [[o.component, o.task, o.stream, list(o.values)] for o in handle.outputs()]


if __name__ == "__main__":
    main()
