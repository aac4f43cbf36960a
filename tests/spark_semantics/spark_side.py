"""Spark's own answer to a :class:`Case`: ``withWatermark`` + ``groupBy(window | session_window, key).agg(sum, count)``.

Each input a Parquet file stream read one file per batch, each query run with
the ``availableNow`` trigger (so it ends after the no-data batch Spark runs
when the input is drained). Several cases run as concurrent queries of one
session: each has its own watermark, as each is its own query. In append
mode the windows go to a Parquet sink, so a case can run again on more files
from its checkpoint (a restart); update mode uses the memory sink.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.spark_semantics.streams import SCHEMA, Case

# (key, start ms, end ms) -> the (sum, count) of each row emitted for the window, in ascending order
Windows = dict[tuple[str, int, int], tuple[tuple[int, int], ...]]


def run_spark(spark: Any, cases: list[Case], root: Path, tag: str, mode: str = "append") -> None:
    """Run each case's query over the files its inputs hold now, resuming from its checkpoint; wait for all."""
    from pyspark.sql import functions as F

    queries = {}
    try:
        for case in sorted(cases, key=lambda c: c.policy):
            # Each query copies the session's settings when it starts: the policy is the case's own.
            spark.conf.set("spark.sql.streaming.multipleWatermarkPolicy", case.policy)
            frames = [
                spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(d))
                .withWatermark("ts", f"{case.delay_ms} milliseconds")
                for d in _dirs(case, root)
            ]
            frame = frames[0]
            for other in frames[1:]:
                frame = frame.union(other)
            if case.kind == "session":
                window = F.session_window("ts", f"{case.size_ms} milliseconds")
            else:
                window = F.window("ts", f"{case.size_ms} milliseconds", f"{case.slide_ms} milliseconds",
                                  f"{case.offset_ms} milliseconds")
            rows = frame.groupBy(window.alias("w"), "key").agg(F.sum("v").alias("s"), F.count("v").alias("n"))
            writer = (rows.writeStream.outputMode(mode).trigger(availableNow=True)
                      .option("checkpointLocation", str(root / "spark-ck" / tag / case.name)))
            if mode == "update":
                writer = writer.format("memory").queryName(_table(tag, case))
            else:
                writer = writer.format("parquet").option("path", str(root / "spark-out" / tag / case.name))
            queries[case.name] = writer.start()
        for query in queries.values():
            query.awaitTermination()
    finally:
        spark.conf.unset("spark.sql.streaming.multipleWatermarkPolicy")
    for name, query in queries.items():
        if query.exception() is not None:
            raise AssertionError(f"Spark's query for {name} failed: {query.exception()}")


def spark_windows(spark: Any, cases: list[Case], root: Path, tag: str, mode: str = "append") -> dict[str, Windows]:
    """Each case's windows as its query (or queries, run again on more files) emitted them, by case name.

    In append mode each window is emitted once (AssertionError otherwise); in
    update mode once per batch that changed it.
    """
    out = {}
    for case in cases:
        if mode == "update":
            table = spark.table(_table(tag, case))
        else:
            table = spark.read.parquet(str(root / "spark-out" / tag / case.name))
        rows: dict[tuple[str, int, int], list[tuple[int, int]]] = {}
        for row in table.collect():
            key = (row["key"], _ms(row["w"]["start"]), _ms(row["w"]["end"]))
            rows.setdefault(key, []).append((int(row["s"]), int(row["n"])))
            if mode == "append" and len(rows[key]) > 1:
                raise AssertionError(f"Spark emitted window {key} of {case.name} twice")
        out[case.name] = {key: tuple(sorted(values)) for key, values in rows.items()}
        if mode == "update":
            spark.sql(f"DROP VIEW IF EXISTS {_table(tag, case)}")
    return out


def _table(tag: str, case: Case) -> str:
    return f"spark_{tag}_{case.name}"


def _dirs(case: Case, root: Path) -> list[Path]:
    return [root / case.name / f"in{n}" for n in range(len(case.inputs))]


def _ms(value: Any) -> int:
    from bolts.timestamps import millis

    ms = millis(value)
    assert ms is not None, value
    return ms
