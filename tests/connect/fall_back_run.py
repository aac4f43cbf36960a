"""Under a Spark Connect session, in a client process of its own: the fall-back key and lambda spouts; prints JSON.

``python -m tests.connect.fall_back_run '<json>'`` with ``url`` (the Connect server), ``work`` (a directory) and
``states`` (``{"memory": ..., "redis": ..., "hbase": ..., "lambda": ...}``, the last a Redis URL for LambdaTopology,
whose name is fixed). It runs, in both placements:

- ``rolling/<mode>/<store>``: RollingTopWords with its plain classes and topology.fall.back.on.java.serialization
  instead of registrations (none are made in this process), over the first files, then, submitted again by a new
  runner, over the rest: the final rankings, tick by tick, as ``[[word, count], ...]``;
- ``lambda/<mode>``: a LambdaSpout of a counter (``v0``, ``v1``, ...) with ``count=6`` and 4 a second, available
  now, then again on the same checkpoint with ``count=10``: the values of each run, which go on from where the
  first stopped (the count is in the offsets; the supplier, a new one, starts again at ``v0``);
- ``lambda-topology``: storm-starter's LambdaTopology (probed) in distributed mode until it gave as many outputs as
  tests/porting/test_lambda_topology.py waits for, then stopped.

The last line printed is the JSON object of these results.
"""

from __future__ import annotations

import itertools
import json
import random
import sys
import time
import uuid
from collections.abc import Generator
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from tests.topologies.helpers import side_by_side

RUNS = [("driver", "memory"), ("driver", "redis"), ("distributed", "hbase")]


def rolling(spark: SparkSession, work: Path, mode: str, state: str) -> Generator[Any, None, list[list[list[Any]]]]:
    from tests.porting.java_serialization import java_serialization_args, ranked
    from tests.porting.rolling_top_words import RollingTopWords
    from tests.porting.spout import TestWordSpout
    from tests.porting.test_rolling_top_words import WORDS_PER_FILE, stepping_clock

    t0, tick, first, rand = 1_700_000_000_000, 3_000, 5, random.Random(5)
    args = [f"c-{uuid.uuid4().hex[:8]}", *java_serialization_args(work, "pickled")]
    got = []
    for files, start in ((WORDS_PER_FILE[:first], t0), (WORDS_PER_FILE[first:], t0 + first * tick)):
        TestWordSpout.emit(work / "wordGenerator", files, rand)
        handle = RollingTopWords.main(spark, work, stepping_clock(start, tick), args, mode=mode, state=state)
        yield handle
        got += [ranked(o.values[0]) for o in handle.outputs()]
    return got


def counted(spark: SparkSession, work: Path, mode: str, state: str) -> Generator[Any, None, list[list[str]]]:
    from squall import LambdaSpout, SparkRunner, TopologyBuilder

    got = []
    for count in (6, 10):
        numbers = itertools.count()
        b = TopologyBuilder()
        b.set_spout("numbers", LambdaSpout(lambda numbers=numbers: f"v{next(numbers)}", rows_per_second=4, count=count))
        b.set_bolt("echo", lambda t, c: c.emit([t.get_string_by_field("lambda")]), "value").shuffle_grouping("numbers")
        runner = SparkRunner(spark, mode, state, checkpoint_location=work / "ck")
        handle = runner.submit("counted", b.create_topology(), available_now=True)
        yield handle
        got.append([o.values[0] for o in handle.outputs()])
    return got


def lambda_topology(spark: SparkSession, work: Path, state: str) -> list[list[Any]]:
    from tests.porting.probe import ProbedLambdaTopology
    from tests.porting.test_lambda_topology import OUTPUTS
    from tests.topologies.helpers import counting_clock

    handle = ProbedLambdaTopology.main(spark, work, counting_clock(), [], mode="distributed", state=state)
    deadline = time.monotonic() + 600
    try:
        while handle.output_count < OUTPUTS:
            if time.monotonic() > deadline:
                msg = f"lambda: {handle.output_count} outputs of {OUTPUTS} after 600 s"
                raise SystemExit(msg)
            time.sleep(0.5)
    finally:
        handle.stop()
    return [list(o.values) for o in handle.outputs()]


def main(args: dict[str, Any]) -> dict[str, Any]:
    spark = SparkSession.builder.remote(args["url"]).getOrCreate()
    work, states = Path(args["work"]), args["states"]
    runs = {f"rolling/{mode}/{store}": rolling(spark, work / f"rolling-{mode}-{store}", mode, states[store])
            for mode, store in RUNS}
    runs |= {f"lambda/{mode}": counted(spark, work / f"lambda-{mode}", mode, states[store])
             for mode, store in (("driver", "memory"), ("distributed", "redis"))}
    results: dict[str, Any] = side_by_side(runs)  # two at a time; a run's restart after its first query
    results["lambda-topology"] = lambda_topology(spark, work / "lambda-topology", states["lambda"])
    spark.stop()
    return results


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
