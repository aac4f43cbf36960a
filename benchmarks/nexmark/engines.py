"""One timed run of a query, in Spark or in squall, and its answer.

A run is timed whole, as a user waits for it: from starting the query to its
end (``availableNow``: every file, then for squall the shutdown flush), the
first batch included. Reading the answer afterwards is not timed.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchmarks.nexmark.query import Answer, Query
from benchmarks.nexmark.views import Workload
from squall import SparkRunner

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SPARK, DRIVER, DISTRIBUTED = "spark", "driver", "distributed"
ENGINES = (SPARK, DRIVER, DISTRIBUTED)
MODES = (DRIVER, DISTRIBUTED)


@dataclass(frozen=True)
class Run:
    """A finished run: its seconds and its answer."""

    seconds: float
    answer: Answer


def run_spark(query: Query, spark: SparkSession, workload: Workload) -> Run:
    """Spark's own query of ``query``, to its end."""
    start = time.perf_counter()
    read = query.spark(spark, workload)
    seconds = time.perf_counter() - start
    return Run(seconds, read())


def run_squall(query: Query, spark: SparkSession, workload: Workload, mode: str, state: str) -> Run:
    """squall's topology of ``query`` in ``mode`` (``driver`` or ``distributed``) with ``state``, to its end.

    Every output is kept (``outputs_in_memory=None``): the check reads them all.
    """
    topology = query.topology(workload)
    runner = SparkRunner(spark, mode, state, checkpoint_location=tempfile.mkdtemp(prefix="nexmark-squall-ck-"),
                         outputs_in_memory=None)
    name = f"nexmark-{query.name}-{mode}-{uuid.uuid4().hex[:8]}"
    start = time.perf_counter()
    handle = runner.submit(name, topology, available_now=True)
    handle.await_termination()
    seconds = time.perf_counter() - start
    return Run(seconds, query.answer(handle.outputs()))
