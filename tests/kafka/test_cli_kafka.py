"""`squall run` on a topology whose spout is a KafkaSpout: the CLI adds Spark's Kafka connector to its session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kafka.helpers import event
from tests.spark_fixtures import SparkProcess
from topologies.spouts import connector_jars

REPO = Path(__file__).resolve().parents[2]

# Read by the topology file from the environment, as a user's file would read its settings.
TOPOLOGY = '''
import os

from bolts import BaseWindowedBolt, Fields
from topologies import TopologyBuilder
from topologies.spouts import KafkaSpout
from windowing import Duration


class Sum(BaseWindowedBolt):
    def execute(self, window):
        self.collector.emit([window.end_timestamp, sum(t["value"] for t in window.get())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("end", "sum"))


def build_topology():
    builder = TopologyBuilder()
    builder.set_spout("events", KafkaSpout(os.environ["CLI_TOPIC"], os.environ["KAFKA_BOOTSTRAP"],
                                           schema="key STRING, ts BIGINT, value BIGINT",
                                           fields=("key", "ts", "value"), max_offsets_per_trigger=8))
    builder.set_bolt("sum", Sum().with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts")
                     ).global_grouping("events")
    return builder.create_topology()
'''


def squall_run(process: SparkProcess, path: Path, checkpoint: Path, env: dict[str, str],
               *extra: str) -> subprocess.CompletedProcess:
    """``python -m topologies.cli run <path> --available-now --print-outputs`` (what the ``squall`` script runs), a
    process of ``process`` (the ``spark_process`` fixture)."""
    return process.run(
        [sys.executable, "-m", "topologies.cli", "run", str(path), "--available-now", "--print-outputs",
         "--checkpoint", str(checkpoint), "--progress-every", "30", *extra],
        env=env, timeout=300,
    )


@pytest.mark.parametrize("jars", [False, True], ids=["connector-added", "jars-option"])
def test_squall_run_reads_a_kafka_topic(kafka, tmp_path, jars, spark_process):
    """The connector added by the CLI, or named with --jars (then the session has it and nothing is added)."""
    topic = kafka.create_topic("cli")
    kafka.produce(topic, [event("ab"[i % 2], 500 + i * 1_000, i) for i in range(20)])  # ts 0.5 s .. 19.5 s
    path = tmp_path / "kafka_sums.py"
    path.write_text(TOPOLOGY)
    env = {**os.environ, "KAFKA_BOOTSTRAP": kafka.bootstrap, "CLI_TOPIC": topic, "PYSPARK_PYTHON": sys.executable,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}

    extra = ("--jars", ",".join(connector_jars())) if jars else ()

    result = squall_run(spark_process, path, tmp_path / "ck", env, *extra)

    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    note = f"[kafka_sums] added Spark's Kafka connector: {len(connector_jars())} jars from "
    added = [line for line in lines if line.startswith(note)]
    assert len(added) == (0 if jars else 1), result.stdout
    # 20 records, 8 a batch: three batches
    assert any(line.startswith("[kafka_sums] done: run: batches 3") for line in lines), result.stdout
    outputs = [json.loads(line) for line in lines if line.startswith("{")]
    assert outputs == [  # (0, 10 s] holds 0..9, (10 s, 20 s] holds 10..19 (the latter from the end-of-input flush)
        {"component": "sum", "task": 0, "stream": "default", "values": [10_000, sum(range(10))]},
        {"component": "sum", "task": 0, "stream": "default", "values": [20_000, sum(range(10, 20))]},
    ]
    assert "Traceback" not in result.stderr
