"""The broker script's refusals, and the documented way to give Spark the connector: `spark.jars`, new session."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.kafka.helpers import event
from tests.kafka_fixtures import KAFKA_SH

REPO = Path(__file__).resolve().parents[2]


def kafka_sh(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(KAFKA_SH), *args], capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, **env})


@pytest.mark.parametrize(("args", "message"), [
    (("start",), "start: expected a port number; got '' instead"),
    (("start", "1"), "start: no jars in {home}/lib; run 'scripts/kafka.sh fetch' first"),
    (("stop", "1"), "stop: no instance recorded for port 1 in {home}/instances"),
    (("connector-jars",), "connector-jars: no jars in {home}/{version}/jars; "
                          "run 'scripts/kafka.sh fetch-connector {version}' first"),
    (("connector-jars", "4.0.4"), "connector-jars: no jars in {home}/4.0.4/jars; "
                                  "run 'scripts/kafka.sh fetch-connector 4.0.4' first"),
    (("fetch-connector", "4.x"), "no Spark version for the connector: expected one like 4.2.0"),
    (("reboot",), "expected one of: fetch, fetch-connector [version], connector-jars [version], connector-version, "
                  "start <port> [options], kill <port>, restart <port>, stop [port]; got 'reboot'"),
    (("start", "1", "--ssl"), "start: unknown option '--ssl'; expected --sasl-port <port>, --sasl-ssl-port <port>, "
                              "--tls <cert> <key>"),
    (("start", "1", "--sasl-ssl-port", "2"), "start: --sasl-ssl-port needs --tls <cert.pem> <key.pem> (files)"),
    (("kill", "1"), "no instance recorded for port '1' in {home}/instances"),
    (("restart", "1"), "no instance recorded for port '1' in {home}/instances"),
])
def test_the_broker_script_says_what_is_wrong(tmp_path, args, message):
    result = kafka_sh(*args, SQUALL_KAFKA_HOME=str(tmp_path), SQUALL_SPARK_KAFKA_HOME=str(tmp_path),
                      SQUALL_PYTHON=sys.executable)
    assert result.returncode != 0
    version = kafka_sh("connector-version", SQUALL_PYTHON=sys.executable).stdout.strip()
    assert f"kafka.sh: {message.format(home=tmp_path, version=version)}" in result.stderr


def test_the_connector_is_fetched_for_the_installed_pyspark_and_else_for_the_pinned_one(tmp_path):
    pyspark = pytest.importorskip("pyspark")
    assert kafka_sh("connector-version", SQUALL_PYTHON=sys.executable).stdout.strip() == pyspark.__version__
    assert kafka_sh("connector-version", "4.0.4").stdout.strip() == "4.0.4"
    no_pyspark = tmp_path / "python-without-pyspark"
    no_pyspark.write_text("#!/bin/sh\nexec python3 -I -S \"$@\"\n")  # no site-packages: no pyspark
    no_pyspark.chmod(0o755)
    pinned = re.search(r'^PYSPARK_PINNED = "==([0-9.]+)"', (REPO / "setup.py").read_text(), re.M)
    assert pinned, "setup.py has no PYSPARK_PINNED"
    assert kafka_sh("connector-version", SQUALL_PYTHON=str(no_pyspark)).stdout.strip() == pinned[1]


SCRIPT = textwrap.dedent("""
    import json, sys, tempfile
    from pyspark.sql import SparkSession
    from tests.kafka.helpers import echo_topology
    from topologies import SparkRunner
    from topologies.spouts import KafkaSpout, connector_jars

    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.jars", ",".join(connector_jars())).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    topic, bootstrap = sys.argv[1], sys.argv[2]
    spout = KafkaSpout(topic, bootstrap, schema="key STRING, ts BIGINT, value BIGINT")
    topology = echo_topology({"events": spout}, {"events": ("key", "ts", "value")})
    runner = SparkRunner(spark, checkpoint_location=tempfile.mkdtemp())
    handle = runner.submit("setup", topology, available_now=True)
    if not handle.await_termination(120):
        msg = "the setup run did not end within 120 s"
        raise SystemExit(msg)
    print(json.dumps([list(o.values) for o in handle.outputs()]))
    spark.stop()
""")


def test_a_session_built_with_spark_jars_reads_a_topic(kafka, tmp_path, spark_process):
    pytest.importorskip("pyspark")
    from topologies.spouts import connector_jars

    try:
        connector_jars()
    except FileNotFoundError as err:
        pytest.skip(str(err))
    topic = kafka.create_topic("setup")
    kafka.produce(topic, [event("a", 1_000, 1), event("b", 2_000, 2)])
    result = spark_process.run([sys.executable, "-c", SCRIPT, topic, kafka.bootstrap], timeout=300,
                               env={**os.environ, "PYSPARK_PYTHON": sys.executable})
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [["a", 1_000, 1], ["b", 2_000, 2]]


def test_the_cluster_id_never_starts_with_a_dash(tmp_path):
    """Kafka's tool reads ``-t -xyz`` as a missing id: like ``Uuid.randomUuid``, the script draws again."""
    # The first uuid4 drawn encodes to "-...": byte 0xF8 is base64's index 62, "-" in the URL-safe alphabet.
    (tmp_path / "sitecustomize.py").write_text(textwrap.dedent("""
        import uuid
        _draw, _first = uuid.uuid4, [uuid.UUID(bytes=bytes([0xF8]) + bytes(15))]
        uuid.uuid4 = lambda: _first.pop() if _first else _draw()
    """))
    function = re.search(r"^cluster_id\(\) \{.*?^\}", KAFKA_SH.read_text(), re.S | re.M).group(0)
    result = subprocess.run(["bash", "-c", f"{function}\ncluster_id"], capture_output=True, text=True, timeout=60,
                            check=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    cluster_id = result.stdout.strip()
    assert len(cluster_id) == 22 and not cluster_id.startswith("-"), cluster_id
