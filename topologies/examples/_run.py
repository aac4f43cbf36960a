"""Shared plumbing of the examples: generated JSON-lines data and a bounded local run."""

from __future__ import annotations

import json
import os
import random
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from topologies.topology import Topology

if TYPE_CHECKING:
    from topologies.sinks.records import Output

MTIME_BASE = 1_700_000_000


def write_json_files(directory: Path, files: Iterable[list[Mapping[str, Any]]]) -> Path:
    """Write each list as a JSON-lines file ``part-<n>.json``, with increasing mtimes; returns ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    for n, records in enumerate(files):
        text = "".join(json.dumps(r) + "\n" for r in records)
        path = directory / f"part-{n:05d}.json"
        path.write_text(text, encoding="utf-8")
        os.utime(path, (MTIME_BASE + n, MTIME_BASE + n))  # Spark's file source reads files in mtime order
    return directory


def data_dir(name: str, generate: Callable[[Path, random.Random], None], path: str | None) -> Path:
    """``path``, or a new temporary directory filled by ``generate`` (seeded, so runs are repeatable)."""
    if path is not None:
        return Path(path)
    directory = Path(tempfile.mkdtemp(prefix=f"squall-{name}-")) / "input"
    generate(directory, random.Random(42))
    return directory


def run_bounded(
    name: str, topology: Topology, show: int = 10, describe: Callable[[Output], str] | None = None
) -> None:
    """Run ``topology`` once over the generated files on local Spark in driver mode and print the outputs.

    Without ``describe``, the last ``show`` outputs are printed as they are; with it, every
    output is printed as the line ``describe(output)`` says.
    """
    from pyspark.sql import SparkSession

    from topologies.runner import SparkRunner

    spark = (
        SparkSession.builder.master("local[2]").appName(name)
        .config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false").getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    runner = SparkRunner(spark, checkpoint_location=tempfile.mkdtemp(prefix=f"squall-{name}-ck-"))
    handle = runner.submit(name, topology, available_now=True)
    handle.await_termination()
    outputs = handle.outputs()
    print(f"{name}: {handle.progress.line()}")
    if describe is not None:
        for o in outputs:
            print(f"  {describe(o)}")
    else:
        print(f"{name}: {len(outputs)} outputs; the last {min(show, len(outputs))}:")
        for o in outputs[-show:]:
            print(f"  {o.component}:{o.stream} task {o.task} -> {o.values}")
    spark.stop()
