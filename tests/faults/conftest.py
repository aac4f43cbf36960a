"""The fault suite's fixtures from elsewhere: the Spark session with Kafka's connector, for the broker kills."""

from tests.kafka_fixtures import kafka_spark  # noqa: F401 - a fixture for tests/faults/test_kafka_broker_kills.py
