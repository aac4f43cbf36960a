"""``spark-submit --master spark://...`` of a user's topology file, with no ``--py-files``: squall ships the code.

A standalone master and two workers run on 127.0.0.1 from the pyspark
installation. The user's topology file and the module of bolts beside it live
only in a temporary directory; the executors' Python has no PYTHONPATH and
cannot see squall's editable install (:func:`executor_python`), so squall and
the user's module reach the executors only in the zip ``SparkRunner`` ships.
The distributed run must give driver mode's outputs, and every executor must
have imported squall and the user's module from that zip.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

from tests.cluster.standalone import APP, USER_BOLTS, StandaloneCluster, clean_env, executor_python, spark_home
from topologies.examples._run import write_json_files

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def standalone_cluster(tmp_path, spark_process):
    """A standalone master and its workers, from Spark's own scripts (a test taking it is marked spark and cluster)."""
    standalone = StandaloneCluster(tmp_path / "cluster").start()
    yield standalone
    standalone.stop()


def rows() -> list[list[dict]]:
    return [[{"key": f"k{(f + i) % 3}", "ts": f * 1_500 + i * 200, "value": f * 10 + i} for i in range(6)]
            for f in range(3)]


def test_spark_submit_without_py_files_runs_the_user_topology_on_executors(standalone_cluster, tmp_path, redis_url,
                                                                           spark_process):
    cluster = standalone_cluster
    app = tmp_path / "app"
    app.mkdir()
    (app / "my_topology.py").write_text(APP)
    (app / "user_bolts.py").write_text(USER_BOLTS)
    data = write_json_files(tmp_path / "data", rows())
    out = tmp_path / "result.json"
    args = {"data": str(data), "checkpoint": f"file://{tmp_path}/ck", "state": redis_url, "out": str(out),
            "name": f"submit{uuid.uuid4().hex[:6]}"}
    env = clean_env(PYTHONPATH=str(REPO),  # the driver imports squall from the repository, the executors cannot
                    PYSPARK_DRIVER_PYTHON=sys.executable,
                    PYSPARK_PYTHON=str(executor_python(tmp_path / "python", REPO)))
    command = [str(spark_home() / "bin" / "spark-submit"), "--master", cluster.url,
               "--conf", "spark.executor.memory=512m", "--conf", "spark.executor.cores=1",
               "--conf", "spark.cores.max=2", "--conf", "spark.ui.enabled=false",
               "--conf", "spark.sql.shuffle.partitions=2", "--conf", "spark.sql.session.timeZone=UTC",
               "--conf", "spark.ui.showConsoleProgress=false",
               str(app / "my_topology.py"), json.dumps(args)]
    proc = spark_process.run(command, cwd=tmp_path, env=env, timeout=240)
    assert proc.returncode == 0, f"{proc.stderr[-6000:]}\n{cluster.logs()}"
    result = json.loads(out.read_text())

    assert result["master"] == cluster.url and not result["py_files"]
    assert result["driver"], "driver mode gave no outputs"
    assert result["distributed"] == result["driver"]
    assert {o[0] for o in result["driver"]} == {"sum"}
    for _pid, topologies_file, user_file, path, _host in result["executors"]:
        assert "squall-code-" in topologies_file, f"executors imported squall from {topologies_file}, not the zip"
        assert "squall-code-" in user_file, f"executors imported the user's module from {user_file}"
        assert not [p for p in path if p.startswith(str(REPO)) or p.startswith(str(app))], path
