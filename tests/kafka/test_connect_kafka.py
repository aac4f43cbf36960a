"""Kafka under Spark Connect: docs/spark.md's example prints the documented lines, and a secured broker works.

The example (``KafkaSpout`` in, a tumbling event-time window, ``KafkaSink``
out, Redis state) runs as written in a client process of its own
(:mod:`tests.kafka.connect_example_run`) whose ``spark`` is a Connect session
to a local Connect server started with Spark's Kafka connector jars. The
``KafkaSink`` is pickled to the server's ``foreachBatch`` process with the
topology, and the shutdown flush writes through the client's sink. Only names
change: the topics, the sink, the query and the reader's group get names of
their own (the run's broker is shared with other tests), and for distributed
mode ``mode="distributed"`` is added to ``SparkRunner``. What it prints must
be the docs' lines. A topology then reads and writes a broker of SCRAM users
over SASL_SSL (tests/kafka/secured_broker.py) through the Connect server, the
password in no output and no line of the server's log.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest

from tests.connect_fixtures import run_connect
from tests.kafka.secured_broker import leaks
from tests.kafka.test_kafka_security import events, sums
from tests.test_docs import ROOT, blocks
from topologies.spouts import connector_jars

SPARK_MD = ROOT / "docs" / "spark.md"


@pytest.fixture(scope="module")
def kafka_connect(tmp_path_factory, start_connect_server):
    server = start_connect_server(tmp_path_factory.mktemp("connect-kafka"), jars=connector_jars())
    yield server
    server.stop()


def documented_lines() -> list[str]:
    """The ```text block right after the example: what it prints on a fresh broker and Redis."""
    text = SPARK_MD.read_text(encoding="utf-8")
    start = text.index('KAFKA = os.environ.get("KAFKA_BOOTSTRAP_SERVERS"')
    block = re.search(r"```text\n(.*?)```", text[start:], re.S)
    assert block is not None
    return block.group(1).strip().splitlines()


@pytest.mark.parametrize("mode", ["driver", "distributed"])
def test_the_kafka_example_prints_the_documented_lines_under_connect(mode, kafka, redis_url, kafka_connect,
                                                                     tmp_path, monkeypatch):
    example = next(b for b in blocks(SPARK_MD) if 'KAFKA = os.environ.get("KAFKA_BOOTSTRAP_SERVERS"' in b.source)
    name, events = f"sums{uuid.uuid4().hex[:8]}", kafka.create_topic("events")
    source = (example.source.replace('KafkaSpout("events"', f'KafkaSpout("{events}"')
              .replace('produce("events"', f'produce("{events}"').replace('"sums"', f'"{name}"')
              .replace('"sums-reader"', f'"{name}-reader"')
              .replace('os.path.abspath("squall-checkpoints")', repr(str(tmp_path / "ck"))))
    if mode == "distributed":
        source = source.replace("SparkRunner(spark, ", 'SparkRunner(spark, mode="distributed", ')
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrap)
    monkeypatch.setenv("REDIS_URL", redis_url)
    printed = run_connect("tests.kafka.connect_example_run", {"url": kafka_connect.url, "source": source})
    assert printed == [line.replace("sums/", f"{name}/", 1) for line in documented_lines()]


SECURED_RUN = '''
from tests.kafka.test_kafka_security import topology
from tests.topologies.helpers import counting_clock
from topologies import SparkRunner
from topologies.sinks import KafkaSink

with KafkaSink(OUTPUT, BOOTSTRAP, name=NAME, options=CLIENT_OPTIONS) as sink:
    runner = SparkRunner(spark, mode=MODE, state=STATE, checkpoint_location=CHECKPOINT, clock=counting_clock(),
                         on_output=sink)
    handle = runner.submit(NAME, topology(SOURCE, BOOTSTRAP, SPARK_OPTIONS), available_now=True)
    assert handle.await_termination(240)
print(handle.output_count)
'''


def test_a_topology_reads_and_writes_a_scram_tls_kafka_under_connect(secured, kafka_connect, redis_url, tmp_path):
    """SASL_SSL with SCRAM through a Connect server: the spout's options reach the server's Kafka source, the
    sink (pickled with the topology) writes from the server's process, and the password is not in the server's log.

    Driver mode only: the options travel the same way in distributed mode (the example above runs both modes).
    """
    mode = "driver"
    source, output = secured.client.create_topic("connect-secure-in"), secured.client.create_topic("connect-secure")
    secured.client.produce(source, events())
    name = f"csec{uuid.uuid4().hex[:8]}"
    settings = {"OUTPUT": output, "SOURCE": source, "BOOTSTRAP": secured.bootstrap("SASL_SSL"), "NAME": name,
                "MODE": mode, "STATE": redis_url, "CHECKPOINT": str(tmp_path / "ck"),
                "CLIENT_OPTIONS": secured.client_options("SASL_SSL"),
                "SPARK_OPTIONS": secured.spark_options("SASL_SSL")}
    source_code = "".join(f"{k} = {v!r}\n" for k, v in settings.items()) + SECURED_RUN
    printed = run_connect("tests.kafka.connect_example_run", {"url": kafka_connect.url, "source": source_code})
    values = [json.loads(r.value)["values"] for r in secured.client.consume(output)]
    assert {(key, end): total for key, _start, end, total, _count in values} == sums()
    assert len(values) == len(sums()) == int(printed[-1]), "a window was written twice"
    assert not leaks(kafka_connect.log.read_text(encoding="utf-8", errors="replace"))
