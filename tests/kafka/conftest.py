"""The Kafka tests' fixtures: the run's broker, a client for it, and the Spark session with the connector."""

from tests.kafka_fixtures import kafka, kafka_bootstrap, kafka_spark  # noqa: F401 - fixtures for tests/kafka
