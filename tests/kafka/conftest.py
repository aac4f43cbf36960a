"""The Kafka tests' fixtures: the run's broker, a client for it, the Spark session with the connector, and a
broker of SCRAM users (``secured``, one per module that asks for it)."""

from tests.kafka.secured_broker import secured  # noqa: F401 - fixtures for tests/kafka
from tests.kafka_fixtures import kafka, kafka_bootstrap, kafka_spark, start_kafka_broker  # noqa: F401
