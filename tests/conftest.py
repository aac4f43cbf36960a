"""Shared test configuration: one Spark session and one server of each kind per test run."""

import importlib.util

# Fixture plugins: the real servers (Redis, HBase) and the shared SparkSession.
PLUGINS = ("tests.service_fixtures", "tests.spark_fixtures", "tests.connect_fixtures")
pytest_plugins = [name for name in PLUGINS if importlib.util.find_spec(name) is not None]
