"""One local SparkSession for the whole test run (registered as a pytest plugin by tests/conftest.py)."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def spark():
    """local[2], two shuffle partitions, no UI, quiet logs; stopped at the end of the run."""
    os.environ.setdefault("PYSPARK_PYTHON", "python")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("squall-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.streaming.minBatchesToRetain", "10")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.extraJavaOptions", "-Dlog4j.rootLogger=ERROR")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
