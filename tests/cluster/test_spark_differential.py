"""``with_spark_semantics()`` against Spark itself off the driver: in distributed mode under ``local-cluster``, and
under Spark Connect.

The random streams and the comparison are tests/spark_semantics/test_differential.py's (driver mode on a classic
session): here in distributed mode under ``local-cluster[2,1,1024]`` with Redis, after a failed batch and a resubmit
and a second run on more files, and in driver mode through a Spark Connect server. Each runs
tests/spark_semantics/differential.py in a child process. ``SQUALL_SPARK_DIFF_CLUSTER_STREAMS`` sets how many streams
the distributed one runs (4); the long runs set it to 1000.
"""

from __future__ import annotations

import os

from tests.spark_fixtures import SparkProcess
from tests.spark_semantics.test_differential import check

CLUSTER_STREAMS = int(os.environ.get("SQUALL_SPARK_DIFF_CLUSTER_STREAMS", "4"))


def _run(process: SparkProcess, args: dict, timeout: float = 1500 + 20 * CLUSTER_STREAMS) -> dict:
    """tests/spark_semantics/differential.py with ``args``, in a process of ``process`` (``spark_process``)."""
    return process.answer("tests.spark_semantics.differential", args, timeout=timeout)


def test_distributed_mode_on_a_cluster_gives_spark_s_windows_after_a_failed_batch_and_a_rerun(redis_url, tmp_path,
                                                                                              spark_process,
                                                                                              local_cluster):
    result = _run(spark_process, {"master": local_cluster, "mode": "distributed", "state": redis_url,
                   "first_seed": 300, "streams": CLUSTER_STREAMS, "per_round": 25, "root": str(tmp_path),
                   "fail_at": 1, "split_at": 3, "in_turn": True})
    check(result["differences"], result["windows"])
    print(f"{CLUSTER_STREAMS} streams, {result['windows']} windows in {result['seconds']} s, all equal to Spark's")


def test_spark_connect_gives_spark_s_windows(connect_url, tmp_path, spark_process):
    result = _run(spark_process, {"url": connect_url, "mode": "driver", "state": "memory://", "first_seed": 400,
                                  "streams": 4, "per_round": 4, "root": str(tmp_path), "in_turn": True})
    check(result["differences"], result["windows"])
