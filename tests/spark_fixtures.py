"""Spark for the tests: one local SparkSession for the whole run, and Spark drivers in child processes.

Registered as a pytest plugin by tests/conftest.py. A test that starts Spark takes
one of these fixtures, which marks it (tests/markers.py): ``spark`` (the run's
session), ``spark_process`` (drivers in child processes) or ``local_cluster``
(the master string of two executor processes, for a child driver).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """local[2], two shuffle partitions, no UI, quiet logs, a warehouse of its own; stopped at the end of the run."""
    os.environ.setdefault("PYSPARK_PYTHON", "python")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("squall-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.streaming.minBatchesToRetain", "10")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("warehouse")))
        .config("spark.driver.extraJavaOptions", "-Dlog4j.rootLogger=ERROR")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


REPO = Path(__file__).resolve().parent.parent
LOCAL_CLUSTER = "local-cluster[2,1,1024]"  # two executor processes of one core and 1 GB each


class SparkProcess:
    """Starts processes that start Spark (a driver module, the CLI, spark-submit), from the checkout's root.

    A test gets one from the ``spark_process`` fixture, which marks it ``spark``
    (tests/markers.py); without it the process finds a SPARK_HOME that refuses
    to start. Output is captured as text, and a non-zero exit is the caller's
    to judge.
    """

    def run(self, command: list[str], *, timeout: float, **options: Any) -> subprocess.CompletedProcess[str]:
        """``subprocess.run(command)``: captured text output, ``cwd`` the checkout, no check; ``options`` override."""
        settings: dict[str, Any] = {"cwd": REPO, "capture_output": True, "text": True, "check": False}
        return subprocess.run(command, timeout=timeout, **(settings | options))

    def popen(self, command: list[str], **options: Any) -> subprocess.Popen:
        """``subprocess.Popen(command)`` in the checkout (``options`` as Popen's), for a test that kills it."""
        return subprocess.Popen(command, **({"cwd": REPO} | options))

    def module(self, module: str, args: dict, *, timeout: float) -> subprocess.CompletedProcess[str]:
        """``python -m module '<args as JSON>'``: a test's driver script, which prints its answer as JSON last."""
        return self.run([sys.executable, "-m", module, json.dumps(args)], timeout=timeout)

    def answer(self, module: str, args: dict, *, timeout: float) -> Any:
        """:meth:`module`, which must exit 0 (else the test fails with its stderr); the JSON of its last line."""
        proc = self.module(module, args, timeout=timeout)
        assert proc.returncode == 0, proc.stderr[-6000:]
        return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def spark_process() -> SparkProcess:
    """Runs child processes that start Spark; a test taking it is marked ``spark``."""
    os.environ.setdefault("PYSPARK_PYTHON", "python")
    return SparkProcess()


@pytest.fixture(scope="session")
def local_cluster(spark_process: SparkProcess) -> str:
    """The ``local-cluster[2,1,1024]`` master for a child driver; a test taking it is marked ``spark`` and ``cluster``.

    local-cluster starts executor processes, which a shared in-process session
    cannot have: the driver that uses it runs in a process of its own.
    """
    return LOCAL_CLUSTER
