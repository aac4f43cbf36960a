"""Distributed mode's Spark stages under Spark Connect give driver mode's outputs, each task once per stage.

:class:`SparkFrames` is DataFrame operations only (no ``sparkContext``, RDD or
JVM gateway), so it runs on a ``SparkSession.builder.remote("local[2]")``
session. The Connect run is a subprocess (``tests/topologies/connect_run.py``):
this process may hold the tests' classic session, and one Python process does
not easily hold both.
"""

from __future__ import annotations

import collections
import json
import uuid
from pathlib import Path

from tests.cluster.cases import FIELDS, keyed_rows
from tests.topologies.connect_run import topology
from tests.topologies.distributed_case import as_json
from tests.topologies.helpers import counting_clock
from topologies.engine import BatchClock, batch_loop

REPO = Path(__file__).resolve().parents[3]


def test_spark_stages_under_connect_give_driver_modes_outputs_and_run_each_task_once(tmp_path, redis_url,
                                                                                    spark_process):
    batches = [[[row[f] for f in FIELDS] for row in rows] for rows in keyed_rows(3, 10, seed=11)]
    driver = batch_loop(topology(tmp_path), BatchClock(tmp_path / "driver", counting_clock()))
    for batch_id, rows in enumerate(batches):
        driver.run(batch_id, {"events": rows})
    driver.flush()
    expected = as_json(driver.log.all())
    assert {o[0] for o in expected} == {"totals"}

    args = {"state": redis_url, "work": str(tmp_path / f"connect-{uuid.uuid4().hex[:6]}"), "batches": batches}
    proc = spark_process.module("tests.topologies.connect_run", args, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])

    assert got["session"].startswith("pyspark.sql.connect")
    assert got["outputs"] == expected
    # Every task of both bolts ran once per batch and once for the flush: no stage of the job ran twice.
    runs = collections.Counter(got["runs"])
    ran = {f"{bolt} {task} {batch}" for bolt in ("probe", "totals") for task in (0, 1)
           for batch in [*range(len(batches)), None]}
    assert set(runs) == ran
    assert set(runs.values()) == {1}
    assert got["jobs"] == len(batches) + 1  # the two layers of a batch (and of the flush) in one job
