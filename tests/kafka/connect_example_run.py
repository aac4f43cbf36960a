"""Runs a docs block under a Spark Connect client session, in a process of its own; prints the lines it printed.

``python -m tests.kafka.connect_example_run '<json>'`` with ``url`` (the
server) and ``source`` (the block): ``spark`` is a Connect session when the
block runs, as the docs' classic examples find it. The last line printed is
the JSON list of the lines the block printed.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys

from pyspark.sql import SparkSession

if __name__ == "__main__":
    args = json.loads(sys.argv[1])
    spark = SparkSession.builder.remote(args["url"]).getOrCreate()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(args["source"], "docs/spark.md", "exec"), {"__name__": "docs_spark_connect", "spark": spark})
    spark.stop()
    print(json.dumps(printed.getvalue().splitlines()))
