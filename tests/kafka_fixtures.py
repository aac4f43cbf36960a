"""A real Kafka broker for the test run (KRaft, started by scripts/kafka.sh), and a small client for the tests.

Imported by ``tests/kafka/conftest.py``. ``kafka_bootstrap`` starts one broker
on a free port the first time a test needs it and stops it when the run ends;
it skips, saying what to run, when the broker's jars are not fetched. The
tests talk to the broker with confluent-kafka (:class:`KafkaClient`): create
topics, produce records to chosen partitions, read a topic back to its end.
``kafka_spark`` is the run's SparkSession with Spark's Kafka connector loaded.
"""

from __future__ import annotations

import gc
import logging
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.certificates import Issued
from tests.service_fixtures import free_port
from tests.shared_servers import once_per_run

REPO = Path(__file__).resolve().parent.parent
KAFKA_SH = REPO / "scripts" / "kafka.sh"
_CONNECTOR_CLASS = "org.apache.spark.sql.kafka010.KafkaSourceProvider"
LOG = logging.getLogger("tests.kafka")  # librdkafka's log lines go here, not to stderr


@dataclass(frozen=True)
class Record:
    """A record read back from a topic."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    timestamp: int


class KafkaClient:
    """Create topics, produce and consume on the test broker at ``bootstrap``."""

    def __init__(self, bootstrap: str) -> None:
        from confluent_kafka.admin import AdminClient

        self.bootstrap = bootstrap
        self.admin: Any = AdminClient({"bootstrap.servers": bootstrap, "logger": LOG})

    def create_topic(self, prefix: str = "t", partitions: int = 1) -> str:
        """A new topic named ``<prefix>-<random>`` with ``partitions`` partitions; returns its name."""
        from confluent_kafka.admin import NewTopic

        name = f"{prefix}-{uuid.uuid4().hex[:10]}"
        self.admin.create_topics([NewTopic(name, partitions, 1)])[name].result(30)
        # Created is not yet served: wait until every partition has a leader, so the first read does not race it.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            meta = self.admin.list_topics(name, timeout=10).topics.get(name)
            if meta is not None and meta.error is None and len(meta.partitions) == partitions \
                    and all(p.leader >= 0 for p in meta.partitions.values()):
                return name
            time.sleep(0.1)
        msg = f"topic {name} has no leader for every partition after 30 s"
        raise AssertionError(msg)

    def produce(self, topic: str, records: Iterable[tuple[Any, Any] | tuple[Any, Any, int]],
                timestamp: int | None = None) -> None:
        """Write ``(key, value)`` or ``(key, value, partition)`` records in order (str is UTF-8), and wait for them."""
        from confluent_kafka import Producer

        producer = Producer({"bootstrap.servers": self.bootstrap, "enable.idempotence": True, "linger.ms": 5,
                             "logger": LOG})
        errors: list[Any] = []
        sent = 0
        for record in records:
            sent += 1
            key, value, *partition = record
            extra: dict[str, Any] = {"partition": partition[0]} if partition else {}
            if timestamp is not None:
                extra["timestamp"] = timestamp
            producer.produce(topic, key=_bytes(key), value=_bytes(value),
                             on_delivery=lambda err, _msg: err and errors.append(err), **extra)
        left = producer.flush(60)
        assert not errors and not left, f"produce to {topic} failed: {errors}, {left} record(s) not delivered"
        if sent:  # nothing written: nothing to see, and an empty topic's offsets never show a record
            self.wait_visible(topic)

    def wait_visible(self, topic: str, timeout: float = 30.0) -> None:
        """Wait until a ``read_committed`` reader's end offsets stop moving: what was produced can be read.

        AssertionError if they have not settled (or are all zero) within ``timeout``.
        """
        from confluent_kafka import Consumer, TopicPartition

        consumer = Consumer({"bootstrap.servers": self.bootstrap, "group.id": f"probe-{uuid.uuid4().hex[:8]}",
                             "isolation.level": "read_committed", "logger": LOG})
        try:
            deadline, previous = time.monotonic() + timeout, None
            while time.monotonic() < deadline:
                partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
                ends = [consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
                        for p in sorted(partitions)]
                if ends == previous and sum(ends) > 0:
                    return
                previous = ends
                time.sleep(0.2)
        finally:
            consumer.close()
        msg = f"topic {topic}: its committed end offsets {previous} did not settle within {timeout} s"
        raise AssertionError(msg)

    def consume(self, topic: str, *, read_committed: bool = True, timeout: float = 30.0) -> list[Record]:
        """Every record of ``topic`` up to its end, by partition then offset (committed ones only, by default)."""
        from confluent_kafka import Consumer, TopicPartition

        consumer = Consumer({"bootstrap.servers": self.bootstrap, "group.id": f"reader-{uuid.uuid4().hex[:8]}",
                             "enable.auto.commit": False, "auto.offset.reset": "earliest",
                             "isolation.level": "read_committed" if read_committed else "read_uncommitted",
                             "logger": LOG})
        try:
            partitions = consumer.list_topics(topic, timeout=timeout).topics[topic].partitions
            ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=timeout)[1] for p in partitions}
            consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
            records: list[Record] = []
            deadline = time.monotonic() + timeout
            while any(consumer.position([TopicPartition(topic, p)])[0].offset < end for p, end in ends.items()
                      if end > 0):
                assert time.monotonic() < deadline, f"{topic}: not read to its end within {timeout} s"
                message = consumer.poll(0.2)
                if message is None or message.error():
                    continue
                records.append(Record(message.topic(), message.partition(), message.offset(), message.key(),
                                      message.value(), message.timestamp()[1]))
            return sorted(records, key=lambda r: (r.partition, r.offset))
        finally:
            consumer.close()


def _bytes(value: Any) -> bytes | None:
    return value.encode() if isinstance(value, str) else value


def kafka_home() -> Path:
    """Where scripts/kafka.sh keeps the broker's jars; skips the test when they (or java) are missing."""
    home = Path(os.environ.get("SQUALL_KAFKA_HOME", REPO / ".cache" / "kafka"))
    if shutil.which("java") is None or not (home / "lib").is_dir():
        pytest.skip(f"no Kafka jars in {home}/lib (or no java); run scripts/install_services.sh")
    return home


class KafkaBroker:
    """A broker of its own, started by scripts/kafka.sh on free ports, that a test may kill and restart.

    ``port`` is its PLAINTEXT listener (for admin work and the tests' own
    client); with ``sasl`` it also listens with SASL_PLAINTEXT on
    ``sasl_port``, and with ``tls`` (a server certificate for 127.0.0.1) with
    SASL_SSL on ``sasl_ssl_port``; both take SCRAM-SHA-256 and -512.
    """

    def __init__(self, *, sasl: bool = False, tls: Issued | None = None) -> None:
        kafka_home()
        self.port = free_port()
        self.sasl_port = free_port() if sasl else None
        self.sasl_ssl_port = free_port() if tls is not None else None
        self.tls = tls

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        """Format a fresh log dir and start the broker; fails the test when it does not come up."""
        args = [str(self.port)]
        if self.sasl_port is not None:
            args += ["--sasl-port", str(self.sasl_port)]
        if self.tls is not None:
            args += ["--sasl-ssl-port", str(self.sasl_ssl_port), "--tls", str(self.tls.cert), str(self.tls.key)]
        self._script("start", *args)

    def kill(self) -> None:
        """SIGKILL the broker (its data stays)."""
        self._script("kill", str(self.port))

    def restart(self) -> None:
        """Start the killed broker again on its data; returns once it serves."""
        self._script("restart", str(self.port))

    def stop(self) -> None:
        """Stop the broker and delete its data."""
        subprocess.run(["bash", str(KAFKA_SH), "stop", str(self.port)], capture_output=True, timeout=120, check=False)

    def _script(self, command: str, *args: str) -> None:
        result = subprocess.run(["bash", str(KAFKA_SH), command, *args], capture_output=True, text=True, timeout=300,
                                check=False)
        if result.returncode != 0:
            pytest.fail(f"scripts/kafka.sh {command} {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")


@pytest.fixture(scope="session")
def start_kafka_broker() -> Iterator[Callable[..., KafkaBroker]]:
    """Makes a :class:`KafkaBroker` of the test's own (its arguments; the caller starts it); a test taking it is
    marked ``kafka``. Brokers made are stopped when the run ends."""
    made: list[KafkaBroker] = []

    def make(**options: Any) -> KafkaBroker:
        made.append(KafkaBroker(**options))
        return made[-1]

    yield make
    for broker in made:
        broker.stop()


@pytest.fixture(scope="session")
def kafka_bootstrap(request: pytest.FixtureRequest) -> Iterator[str]:
    """``127.0.0.1:<port>`` of the run's Kafka broker, started by scripts/kafka.sh (KRaft, one node; one per run)."""

    def start() -> tuple[str, list[str]]:
        broker = KafkaBroker()
        try:
            broker.start()
        except BaseException:
            broker.stop()
            raise
        return broker.bootstrap, ["bash", str(KAFKA_SH), "stop", str(broker.port)]

    yield from once_per_run(request.config, "kafka", start)


@pytest.fixture(scope="session")
def kafka(request: pytest.FixtureRequest) -> Iterator[KafkaClient]:
    """A :class:`KafkaClient` of the run's broker (skips without confluent-kafka); closed before the broker stops."""
    pytest.importorskip("confluent_kafka", reason="the Kafka tests need confluent-kafka: pip install confluent-kafka")
    client = KafkaClient(request.getfixturevalue("kafka_bootstrap"))  # the broker starts only when it can be used
    warm_up = client.create_topic("warm-up")  # the first topic of a fresh broker: served before the tests start
    client.produce(warm_up, [("k", "v")])
    assert len(client.consume(warm_up)) == 1
    yield client
    client.admin = None  # librdkafka closes the handle when it is collected: not left retrying a stopped broker
    gc.collect()


@pytest.fixture(scope="session")
def kafka_spark(spark: Any) -> Any:
    """The run's SparkSession with Spark's Kafka connector: its jars added to the running session (``ADD JAR``).

    The session may have been built by other tests without ``spark.jars``; ``ADD
    JAR`` puts the connector on the driver's class loader (for the thread that
    runs the tests, which starts the queries) and the executors'.
    """
    from topologies.spouts import connector_jars

    try:
        jars = connector_jars()
    except FileNotFoundError as err:
        pytest.skip(str(err))
    for jar in jars:
        spark.sql(f"ADD JAR '{jar}'")
    loader = spark._jvm.java.lang.Thread.currentThread().getContextClassLoader()
    spark._jvm.java.lang.Class.forName(_CONNECTOR_CLASS, False, loader)  # raises when the connector did not load
    return spark
