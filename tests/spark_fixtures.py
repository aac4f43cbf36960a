"""One local SparkSession for the whole test run (registered as a pytest plugin by tests/conftest.py)."""

from __future__ import annotations

import os

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
