"""Distributed mode gives driver mode's outputs on a cluster whose executors are separate processes.

Every case of :mod:`tests.cluster.cases` runs once in driver mode (the shared
``local[2]`` session) and twice in distributed mode under
``local-cluster[2,1,1024]`` with Redis state, each run a new query, so tasks
land on other executors from run to run and from batch to batch. Outputs must
be equal, in order. A probe bolt records the process each of its tasks ran
in: the suite also checks that tasks really moved between processes, since a
run where nothing moves proves nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.cluster.cases import CASES, PROBE_DIR, driver_outputs, write_all

pytestmark = [pytest.mark.spark, pytest.mark.redis, pytest.mark.cluster]

REPO = Path(__file__).resolve().parents[2]
RUNS = 1  # a new query; tasks move between the executors from batch to batch (more runs: more placements)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return write_all(tmp_path_factory.mktemp("equivalence"))


@pytest.fixture(scope="module")
def driver_runs(spark, data) -> dict[str, list]:
    return driver_outputs(spark, data)


@pytest.fixture(scope="module")
def cluster_runs(data, redis_url) -> dict[str, list]:
    args = {"master": "local-cluster[2,1,1024]", "data": str(data / "data"), "checkpoint": str(data / "ck"),
            "state": redis_url, "runs": RUNS, "name": f"eq{uuid.uuid4().hex[:6]}", "probe": str(data / "probe"),
            "table": str(data / "table")}
    proc = subprocess.run([sys.executable, "-m", "tests.cluster.equivalence_run", json.dumps(args)], cwd=REPO,
                          capture_output=True, text=True, timeout=1500, check=False)
    assert proc.returncode == 0, proc.stderr[-6000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", [c.name for c in CASES])
def test_every_distributed_run_gives_the_outputs_of_driver_mode(case, driver_runs, cluster_runs):
    expected = driver_runs[case]
    assert expected, f"case {case} gave no outputs in driver mode"
    for run, got in enumerate(cluster_runs[case]):
        assert got == expected, f"case {case}, distributed run {run} differs from driver mode"
    assert len(cluster_runs[case]) == RUNS


def test_a_table_sink_writes_driver_modes_windows_from_the_executors(spark, data, driver_runs, cluster_runs):
    """README's windows through a TableSink on the cluster: driver mode's printer outputs, none on the driver."""
    expected = sorted((source, float(value)) for component, _, _, (source, value) in driver_runs["sliding_window"]
                      if component == "printer")
    assert not [o for o in cluster_runs["table_outputs"] if o[0] == "printer"], "the sunk stream reached the driver"
    table = spark.read.parquet(str(data / "table"))
    assert table.dtypes == [("source", "string"), ("value", "double"), ("batch_id", "int")]
    assert sorted((r.source, r.value) for r in table.collect()) == expected


def test_tasks_ran_in_both_executor_processes(data, cluster_runs):
    """The probe's tasks ran in both executor JVMs, and some task in both: tasks moved between batches."""
    pids_of_task: dict[str, set[str]] = {}
    for run in range(RUNS):
        for f in (data / "probe" / str(run)).iterdir():
            pids_of_task.setdefault(f"{run}/{f.name}", set()).update(f.read_text().split())
    assert pids_of_task, f"the probe recorded nothing; conf key {PROBE_DIR!r} did not reach the executors"
    all_pids = set().union(*pids_of_task.values())
    assert len(all_pids) >= 2, f"every task ran in one executor {all_pids}"
    moved = {task: pids for task, pids in pids_of_task.items() if len(pids) > 1}
    assert moved, f"no task ran in more than one executor over {RUNS} runs: {pids_of_task}"
