"""Distributed mode: a query that crashed before Spark's commit resumes from the store with driver mode's outputs.

(That every placement gives driver mode's outputs is tests/cluster/test_every_placement.py.)

The distributed queries run in a subprocess with their own SparkSession
(``tests/topologies/distributed_run.py``): the test process already holds the
driver-mode session, and a JVM holds one SparkContext.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.spark_fixtures import SparkProcess
from tests.topologies import distributed_case
from tests.topologies.helpers import FIELDS, SCHEMA, START, STEP, batches_of_rows, counting_clock, write_batches
from topologies import SparkRunner
from topologies.spouts import FileSpout

REPO = Path(__file__).resolve().parents[3]


def run_distributed(process: SparkProcess, **args) -> dict[str, list]:
    """Run ``distributed_run`` with ``args`` in a process of its own (``process``, the ``spark_process`` fixture);
    its JSON answer (empty when it stopped as asked)."""
    proc = process.module("tests.topologies.distributed_run", args, timeout=900)
    if args.get("crash_after") is not None and proc.returncode == 3:
        return {}
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def driver_outputs(spark, data: Path, checkpoint: Path, small: bool = False) -> list[list]:
    spout = FileSpout(data, "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1)
    topo = distributed_case.build(spout, small)
    runner = SparkRunner(spark, checkpoint_location=checkpoint, clock=counting_clock())
    handle = runner.submit("reference", topo, available_now=True)
    assert handle.await_termination(300)
    return distributed_case.as_json(handle.outputs())


def logged_outputs(directory: Path) -> list[list]:
    """The outputs the runner wrote as JSON lines, batches in id order, then the final flush."""
    files = [*sorted(directory.glob("batch-*.jsonl")), directory / "final.jsonl"]
    records = [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines()]
    return [[r["component"], r["task"], r["stream"], r["values"]] for r in records]


@pytest.fixture
def data(tmp_path) -> Path:
    return write_batches(tmp_path / "in", batches_of_rows())


def test_a_distributed_query_that_crashed_before_its_commit_resumes_from_the_store(spark, tmp_path, data,
                                                                                   redis_url, spark_process):
    expected = driver_outputs(spark, data, tmp_path / "ck-driver", small=True)
    args = dict(master="local[2]", data=str(data), checkpoint=str(tmp_path / "ck"), states=[redis_url], small=True,
                name=f"crash-{uuid.uuid4().hex[:8]}", output_dir=str(tmp_path / "out"))
    assert run_distributed(spark_process, **args, crash_after=1) == {}
    commits = sorted(p.name for p in (tmp_path / "ck").glob(f"{args['name']}-0/spark/commits/[0-9]*"))
    assert commits == ["0"]  # batch 1 ran, wrote its outputs and committed its tasks, but Spark did not commit it
    # batch 1's time is on record; the clock goes on from 2
    run_distributed(spark_process, **args, clock_start=START + 2 * STEP)
    assert logged_outputs(tmp_path / "out" / f"{args['name']}-0") == expected
