"""FileSpout(where=...) under Spark Connect, in both placements: the rows it keeps; malformed records still out.

Classic Spark: tests/topologies/spark/test_file_spout_where.py. Run as
``python -m tests.connect.test_connect_file_spout_where <json>``, this module is
the Connect client (a process of its own) and prints what the run output.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

LINES = ['{"kind": "bid", "ts": 1000, "value": 5}', '{"kind": "person", "ts": 2000, "value": 6}',
         '{"kind": "bid", "ts": ', '{"kind": "bid", "ts": 3000, "value": 7}']


@pytest.mark.parametrize("mode", ["driver", "distributed"])
def test_where_keeps_the_same_rows_under_spark_connect(connect_url, redis_url, tmp_path, mode):
    from tests.connect_fixtures import run_connect

    data = tmp_path / "events"
    data.mkdir()
    (data / "part.json").write_text("\n".join(LINES) + "\n", encoding="utf-8")
    report = run_connect("tests.connect.test_connect_file_spout_where", {
        "url": connect_url, "data": str(data), "work": str(tmp_path), "mode": mode, "state": redis_url,
        "name": f"cwhere-{uuid.uuid4().hex[:6]}"})
    assert report == {"default": [["bid", 1000, 5], ["bid", 3000, 7]], "errors": [LINES[2]]}


def main(args: dict) -> dict:
    from pyspark.sql import SparkSession

    from squall import FileSpout, SparkRunner, TopologyBuilder

    spark = SparkSession.builder.remote(args["url"]).getOrCreate()
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(args["data"], "json", ("kind", "ts", "value"),
                                          schema="kind STRING, ts BIGINT, value BIGINT", where="kind = 'bid'"))
    runner = SparkRunner(spark, mode=args["mode"], state=args["state"],
                         checkpoint_location=str(Path(args["work"]) / "ck"))
    handle = runner.submit(args["name"], builder.create_topology(), available_now=True)
    if not handle.await_termination(300):
        msg = "the run did not end within 300 s"
        raise SystemExit(msg)
    outputs = handle.outputs()
    return {"default": sorted(o.values for o in outputs if o.stream == "default"),
            "errors": [o.values[0] for o in outputs if o.stream == "errors"]}


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
