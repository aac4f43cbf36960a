"""The differential run: random cases through Spark's aggregation and through squall's, every window compared.

``python -m tests.spark_semantics.differential '<json>'`` runs it in a
SparkSession of its own and prints one JSON line of figures; keys: ``master``
(``local[2]``, or ``local-cluster[2,1,1024]`` for separate executor
processes), ``mode`` (``driver`` or ``distributed``), ``state`` (a state URL;
Redis for distributed mode), ``streams`` (how many cases), ``first_seed`` (or
``seeds``, a list), ``per_round`` (cases per squall topology and per round of concurrent Spark
queries), ``root`` (a scratch directory), and optionally ``fail_at`` (squall's
run fails at that batch once and is resubmitted), ``split_at`` (both engines
run on the batches before it, then again on the rest) and ``url`` (a Spark Connect
server to run under, instead of ``master``) and ``in_turn`` (the window kinds
in turn rather than drawn). The test suite calls
:func:`compare_round` with its shared session.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from tests.spark_semantics.spark_side import Windows, run_spark, spark_windows
from tests.spark_semantics.squall_side import SquallRuns
from tests.spark_semantics.streams import Case, cases_in_turn, random_case


def differences(case: Case, spark: Windows, squall: Windows, limit: int = 6) -> list[str]:
    """The windows where the two answers differ, described (at most ``limit``)."""
    lines = []
    for window in sorted(set(spark) | set(squall)):
        a, b = spark.get(window), squall.get(window)
        if a != b:
            lines.append(f"  window {window}: Spark (sum, count) {a}, squall {b}")
    if lines:
        rows = "\n".join(f"  input {n} batch {i}: {list(batch)}" for n, batches in enumerate(case.inputs)
                         for i, batch in enumerate(batches))
        return [case.describe(), *lines[:limit], rows]
    return []


def compare_round(spark: Any, cases: list[Case], root: Path, tag: str, placement: str = "driver",
                  state: str = "memory://", mode: str = "append", fail_at: int | None = None,
                  split_at: int | None = None) -> tuple[list[str], int]:
    """Run ``cases`` both ways in output ``mode``; the differences found, and how many windows were compared.

    ``fail_at``: squall's run fails at that batch once and is resubmitted (see
    :meth:`SquallRuns.run`). ``split_at``: both engines first run on the
    batches before it, then, from their checkpoints, on the rest (a restart
    after a drained ``availableNow`` run, whose end squall marks with its
    shutdown flush).
    """
    squall = SquallRuns(spark, cases, root, tag, placement, state, mode)
    parts = [range(0, 99)] if split_at is None else [range(0, split_at), range(split_at, 99)]
    for number, part in enumerate(parts):
        for case in cases:
            case.write(root, part)
        run_spark(spark, cases, root, tag, mode)
        squall.run(fail_at if number == 0 else None)
    expected = spark_windows(spark, cases, root, tag, mode)
    got = squall.windows()
    found: list[str] = []
    windows = 0
    for case in cases:
        windows += len(expected[case.name])
        found += differences(case, expected[case.name], got[case.name])
    return found, windows


def main() -> None:
    args = json.loads(sys.argv[1])
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    if "url" in args:  # a Spark Connect client
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.remote(args["url"]).getOrCreate()
    else:
        from tests.topologies.distributed_run import session

        spark = session(args["master"])
    root = Path(args["root"])
    first, per_round = args.get("first_seed", 0), args.get("per_round", 25)
    seeds = args.get("seeds") or list(range(first, first + args["streams"]))
    total = len(seeds)
    started, windows, failures, run = time.monotonic(), 0, [], uuid.uuid4().hex[:6]
    for number, low in enumerate(range(0, total, per_round)):
        chosen = seeds[low:low + per_round]
        cases = cases_in_turn(chosen[0], len(chosen)) if args.get("in_turn") else [random_case(s) for s in chosen]
        directory = root / f"r{number}"
        found, compared = compare_round(spark, cases, directory, f"{run}r{number}", args["mode"], args["state"],
                                        fail_at=args.get("fail_at"), split_at=args.get("split_at"))
        windows += compared
        failures += found
        shutil.rmtree(directory, ignore_errors=True)
        print(f"round {number}: {len(cases)} streams, {compared} windows, {len(found)} lines of differences, "
              f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    print(json.dumps({"streams": total, "windows": windows, "differences": failures,
                      "seconds": round(time.monotonic() - started, 1)}))


if __name__ == "__main__":
    main()
