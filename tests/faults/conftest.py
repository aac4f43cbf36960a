"""The fault suite's fixtures: its driver processes, and the Spark session with Kafka's connector from elsewhere."""

from __future__ import annotations

import functools
from collections.abc import Callable

import pytest

from tests.faults.runs import Query

# Fixtures for tests/faults/test_kafka_broker_kills.py:
from tests.kafka_fixtures import kafka_spark, start_kafka_broker  # noqa: F401
from tests.spark_fixtures import SparkProcess


@pytest.fixture(scope="session")
def fault_query(spark_process: SparkProcess) -> Callable[..., Query]:
    """Makes a :class:`Query` (its arguments), whose runs are driver processes: a test taking it is marked spark."""
    return functools.partial(Query, process=spark_process)
