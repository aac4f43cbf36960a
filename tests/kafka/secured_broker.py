"""A KRaft broker that takes only SCRAM users, over SASL_PLAINTEXT and SASL_SSL, and a user of its own.

The broker is started by scripts/kafka.sh for each test module that asks for
the ``secured`` fixture (tests/kafka/conftest.py); its certificate comes from
a test CA made with openssl. The tests create a SCRAM-SHA-512 user through
its PLAINTEXT listener, which only the tests' own client uses.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.certificates import Authority
from tests.kafka_fixtures import KafkaBroker, KafkaClient

USER = "squall-app"
PASSWORD = f"pw-{secrets.token_hex(12)}"  # unique to this run: wherever it shows up, it leaked
WRONG = f"not-{secrets.token_hex(12)}"
PROTOCOLS = ("SASL_PLAINTEXT", "SASL_SSL")


@dataclass(frozen=True)
class Secured:
    """The module's broker, its tests' PLAINTEXT client, and the CA that signed its certificate."""

    broker: KafkaBroker
    client: KafkaClient
    ca: Path

    def bootstrap(self, protocol: str) -> str:
        port = self.broker.sasl_port if protocol == "SASL_PLAINTEXT" else self.broker.sasl_ssl_port
        return f"127.0.0.1:{port}"

    def spark_options(self, protocol: str, password: str = PASSWORD) -> dict[str, str]:
        """What a user gives ``KafkaSpout(options=...)``: the Java client's settings, prefixed ``kafka.``."""
        options = {
            "kafka.security.protocol": protocol,
            "kafka.sasl.mechanism": "SCRAM-SHA-512",
            "kafka.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required "
                                      f'username="{USER}" password="{password}";',
        }
        if protocol == "SASL_SSL":
            options |= {"kafka.ssl.truststore.type": "PEM", "kafka.ssl.truststore.location": str(self.ca)}
        return options

    def client_options(self, protocol: str, password: str = PASSWORD) -> dict[str, str]:
        """What a user gives ``KafkaSink(options=...)``: librdkafka's settings."""
        options = {"security.protocol": protocol, "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": USER,
                   "sasl.password": password}
        if protocol == "SASL_SSL":
            options["ssl.ca.location"] = str(self.ca)
        return options


@pytest.fixture(scope="module")
def secured(tmp_path_factory, start_kafka_broker) -> Iterator[Secured]:
    pytest.importorskip("confluent_kafka")
    from confluent_kafka.admin import ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion

    authority = Authority(tmp_path_factory.mktemp("kafka-ca"))
    broker = start_kafka_broker(sasl=True, tls=authority.issue("broker", ip="127.0.0.1"))
    broker.start()
    try:
        client = KafkaClient(broker.bootstrap)
        credential = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192)
        for future in client.admin.alter_user_scram_credentials(
                [UserScramCredentialUpsertion(USER, credential, PASSWORD.encode())]).values():
            future.result(30)
        yield Secured(broker, client, authority.cert)
    finally:
        broker.stop()


def leaks(text: str) -> list[str]:
    return [line for line in text.splitlines() if PASSWORD in line or WRONG in line]
