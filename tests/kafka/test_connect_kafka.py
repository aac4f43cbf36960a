"""docs/spark.md's Kafka example under Spark Connect, in both modes: the lines the docs say it prints.

The example (``KafkaSpout`` in, a tumbling event-time window, ``KafkaSink``
out, Redis state) runs as written in a client process of its own
(:mod:`tests.kafka.connect_example_run`) whose ``spark`` is a Connect session
to a local Connect server started with Spark's Kafka connector jars. The
``KafkaSink`` is pickled to the server's ``foreachBatch`` process with the
topology, and the shutdown flush writes through the client's sink. Only names
change: the topics, the sink, the query and the reader's group get names of
their own (the run's broker is shared with other tests), and for distributed
mode ``mode="distributed"`` is added to ``SparkRunner``. What it prints must
be the docs' lines.
"""

from __future__ import annotations

import re
import uuid

import pytest

from tests.connect_fixtures import ConnectServer, run_connect
from tests.test_docs import ROOT, blocks
from topologies.spouts import connector_jars

pytestmark = [pytest.mark.spark, pytest.mark.connect, pytest.mark.kafka, pytest.mark.redis]

SPARK_MD = ROOT / "docs" / "spark.md"


@pytest.fixture(scope="module")
def kafka_connect(tmp_path_factory):
    server = ConnectServer(tmp_path_factory.mktemp("connect-kafka"), jars=connector_jars())
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
