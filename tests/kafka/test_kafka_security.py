"""KafkaSpout and KafkaSink against a broker that takes only SCRAM users: over SASL_PLAINTEXT and over SASL_SSL.

The broker (KRaft, one node, started by scripts/kafka.sh for this module)
listens with SASL_PLAINTEXT and with SASL_SSL (a certificate from a test CA
made with openssl); the tests create a SCRAM-SHA-512 user through its
PLAINTEXT listener, which only the tests' own client uses. A topology reads
through the spout and writes through the sink with Spark's and librdkafka's
security options, and its records come back whole. A wrong password fails
the spout and the sink with the broker's reason, and the password appears
nowhere: not in an error, not in a log record, not in ``squall run``'s
output with Spark logging at INFO.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kafka.helpers import KeyedSum, event
from tests.kafka.secured_broker import PASSWORD, PROTOCOLS, USER, WRONG, leaks
from tests.topologies.helpers import counting_clock
from topologies import Fields, SparkRunner, TopologyBuilder
from topologies.sinks import KafkaSink
from topologies.spouts import KafkaSpout
from windowing import Duration

REPO = Path(__file__).resolve().parents[2]

def topology(topic: str, bootstrap: str, options: dict[str, str]):
    builder = TopologyBuilder()
    builder.set_spout("events", KafkaSpout(topic, bootstrap, schema="key STRING, ts BIGINT, value BIGINT",
                                           fields=("key", "ts", "value"), max_offsets_per_trigger=10,
                                           options=options))
    builder.set_bolt("sum", KeyedSum().with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts"),
                     parallelism=2).fields_grouping("events", Fields("key"))
    return builder.create_topology()


def events(n: int = 30) -> list[tuple[str, str]]:
    return [event("abc"[i % 3], 500 + i * 1_000, i) for i in range(n)]  # ts 0.5 s .. 29.5 s


def sums(n: int = 30) -> dict[tuple[str, int], int]:
    """Each (key, window end)'s sum of ``events(n)``: windows (end - 10 s, end]."""
    expected: dict[tuple[str, int], int] = {}
    for i in range(n):
        key, end = "abc"[i % 3], -(-(500 + i * 1_000) // 10_000) * 10_000
        expected[key, end] = expected.get((key, end), 0) + i
    return expected


def capture_logs(caplog) -> None:
    """Every record of squall's loggers (librdkafka's go through the sink's), and every other at INFO and above.

    Not py4j's DEBUG records: at DEBUG py4j logs every command it sends to the JVM, each option's value with it.
    """
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="squall")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_topology_reads_and_writes_through_a_scram_listener(secured, kafka_spark, tmp_path, caplog, protocol):
    source, output = secured.client.create_topic("secure-in"), secured.client.create_topic("secure-out")
    secured.client.produce(source, events())
    bootstrap = secured.bootstrap(protocol)
    capture_logs(caplog)

    sink = KafkaSink(output, bootstrap, name=f"secure-{uuid.uuid4().hex[:8]}",
                     options=secured.client_options(protocol))
    with sink:
        runner = SparkRunner(kafka_spark, checkpoint_location=tmp_path / "ck", clock=counting_clock(),
                             on_output=sink)
        handle = runner.submit(f"secure-{protocol.lower()}", topology(source, bootstrap,
                                                                      secured.spark_options(protocol)),
                               available_now=True)
        assert handle.await_termination(240)

    values = [json.loads(r.value)["values"] for r in secured.client.consume(output)]
    assert {(key, end): total for key, _start, end, total, _count in values} == sums()
    assert len(values) == len(sums()), "a window was written twice"
    assert not leaks(caplog.text)


def test_a_wrong_password_fails_the_spout_with_the_brokers_reason_and_never_shows_it(secured, kafka_spark, tmp_path):
    """Over SASL_PLAINTEXT; `squall run` below shows the same over SASL_SSL."""
    protocol = "SASL_PLAINTEXT"
    source = secured.client.create_topic("secure-in")
    secured.client.produce(source, events(5))
    bootstrap = secured.bootstrap(protocol)
    runner = SparkRunner(kafka_spark, checkpoint_location=tmp_path / "ck", clock=counting_clock())
    handle = runner.submit(f"refused-{protocol.lower()}",
                           topology(source, bootstrap, secured.spark_options(protocol, WRONG)), available_now=True)
    with pytest.raises(Exception) as failed:  # Spark's StreamingQueryException
        handle.await_termination(180)
    text = "\n".join(str(e) for e in _chain(failed.value))
    assert "Authentication failed" in text and "SCRAM-SHA-512" in text, text[:3000]
    assert not leaks(text)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_wrong_password_fails_the_sink_at_once_with_the_brokers_reason_and_never_shows_it(
        secured, caplog, protocol):
    from topologies.sinks.records import Output

    capture_logs(caplog)
    # No retry: the refusal must be seen in the first attempt, within seconds, not at the end of its timeout. The
    # timeout is long, so the bound below, half of it, is a guard no load reaches: it fails only if the sink waited
    # for its timeout instead of seeing the refusal.
    sink = KafkaSink(secured.client.create_topic("secure-out"), secured.bootstrap(protocol), name="refused",
                     options=secured.client_options(protocol, WRONG), timeout=Duration.seconds(240),
                     retry=Duration.seconds(0))
    started = time.monotonic()
    with sink, pytest.raises(RuntimeError, match=r"refused the sink: .*Authentication failed") as refused:
        sink(0, [Output("sum", 0, "default", ("a", 1))])
    waited = time.monotonic() - started
    assert waited < 120, f"the refusal took {waited:.0f} s: the sink waited for its timeout (240 s) to see it"
    assert "sasl.password" in str(refused.value)  # says which setting to check
    assert not leaks(str(refused.value)) and not leaks(caplog.text)


def _chain(error: BaseException | None) -> Iterator[BaseException]:
    while error is not None:
        yield error
        error = error.__cause__ or error.__context__


CLI_TOPOLOGY = '''
import os

from tests.kafka.test_kafka_security import topology

OPTIONS = {
    "kafka.security.protocol": "SASL_SSL",
    "kafka.sasl.mechanism": "SCRAM-SHA-512",
    "kafka.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required "
                              f'username="{os.environ["KAFKA_USER"]}" password="{os.environ["KAFKA_PASSWORD"]}";',
    "kafka.ssl.truststore.type": "PEM",
    "kafka.ssl.truststore.location": os.environ["KAFKA_CA"],
}
topology = topology(os.environ["CLI_TOPIC"], os.environ["KAFKA_BOOTSTRAP"], OPTIONS)
'''


@pytest.mark.parametrize("password", [PASSWORD, WRONG], ids=["right", "wrong"])
def test_squall_run_at_info_never_prints_the_password(secured, tmp_path, password, spark_process):
    """The CLI's whole output, Spark's INFO log included (Kafka's client configs, the query's plan, its failure)."""
    source = secured.client.create_topic("cli-secure")
    secured.client.produce(source, events(12))
    path = tmp_path / "secure_sums.py"
    path.write_text(CLI_TOPOLOGY)
    env = {**os.environ, "KAFKA_BOOTSTRAP": secured.bootstrap("SASL_SSL"), "CLI_TOPIC": source, "KAFKA_USER": USER,
           "KAFKA_PASSWORD": password, "KAFKA_CA": str(secured.ca), "PYSPARK_PYTHON": sys.executable,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    result = spark_process.run(
        [sys.executable, "-m", "topologies.cli", "run", str(path), "--available-now", "--log-level", "INFO",
         "--checkpoint", str(tmp_path / "ck"), "--progress-every", "30"],
        env=env, timeout=300,
    )
    output = result.stdout + result.stderr
    assert "sasl.jaas.config = [hidden]" in output, "Kafka's client config was not logged: INFO was not on"
    assert not leaks(output), leaks(output)[:3]
    if password == PASSWORD:
        assert result.returncode == 0, output[-3000:]
        assert "[secure_sums] done: run: batches 2" in result.stdout, result.stdout
    else:
        assert result.returncode == 1, output[-3000:]
        failed = [line for line in result.stderr.splitlines() if line.startswith("[secure_sums] failed:")]
        assert failed and "Authentication failed" in output, output[-3000:]
