"""A topology whose bolt fails one tuple, once: the query fails naming it; run again, the batch is replayed.

Usable from a test with a classic session and, as ``python -m tests.storm_api.fail_run <json>``, as a Spark
Connect client of its own (a Connect session cannot share a process with the classic one).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from squall import BaseRichBolt, Fields, FileSpout, SparkRunner, TopologyBuilder

FAIL_AT = "fail_at"  # conf key: [value, marker path]: the bolt fails the tuple with that value, the first time only


class FailsOnce(BaseRichBolt):
    """Emits every value doubled; fails the tuple with ``conf[FAIL_AT][0]`` the first time it sees it."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.fail_at = conf[FAIL_AT]

    def execute(self, input):
        value = input.get_long_by_field("value")
        marker = Path(self.fail_at[1])
        if value == self.fail_at[0] and not marker.exists():
            marker.touch()
            self.collector.fail(input)
            return
        self.collector.emit(input, [value * 2])
        self.collector.ack(input)

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("doubled"))


def write_input(directory: Path) -> Path:
    """Three files of values 0..8, a second apart by mtime (Spark reads them in that order)."""
    import os

    directory.mkdir(parents=True, exist_ok=True)
    for i in range(3):
        path = directory / f"part-{i}.json"
        path.write_text("".join(json.dumps({"value": 3 * i + j}) + "\n" for j in range(3)))
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
    return directory


def run(spark, data: Path, work: Path, mode: str, state: str, name: str) -> dict:
    """Run to the end twice over the same checkpoint; what the first run raised and what each run output."""
    b = TopologyBuilder()
    b.set_spout("values", FileSpout(data, "json", ("value",), schema="value BIGINT", max_files_per_trigger=1))
    b.set_bolt("doubler", FailsOnce(), 2).shuffle_grouping("values")
    report = {}
    for attempt in ("first", "second"):
        runner = SparkRunner(spark, mode=mode, state=state, checkpoint_location=work / "ck",
                             conf={FAIL_AT: [4, str(work / "failed-once")]})
        handle = runner.submit(name, b.create_topology(), available_now=True)
        try:
            if not handle.await_termination(300):  # SystemExit: not caught below, so the test sees it
                msg = f"fail_run: the {attempt} run did not end within 300 s"
                raise SystemExit(msg)
            report[f"{attempt}_error"] = None
        except Exception as err:  # the bolt's failure, re-raised by the handle
            report[f"{attempt}_error"] = f"{type(err).__name__}: {err}"
        report[f"{attempt}_outputs"] = sorted(o.values[0] for o in handle.outputs())
    return report


def main(args: dict) -> dict:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(args["url"]).getOrCreate()
    try:
        return run(spark, Path(args["data"]), Path(args["work"]), args["mode"], args["state"], args["name"])
    finally:
        spark.stop()


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
