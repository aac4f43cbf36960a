"""A topology file's sibling modules reach the executors under local-cluster

The rest: tests/topologies/spark/test_cli_sibling_modules.py.
"""

from __future__ import annotations

import os
import sys

from tests.topologies.spark.test_cli_sibling_modules import EXPECTED, final_outputs, write_topology


def test_the_sibling_modules_reach_the_executors_in_distributed_mode(tmp_path, redis_url, spark_process,
                                                                     local_cluster):
    path = write_topology(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYSPARK_PYTHON"] = sys.executable
    result = spark_process.run(
        [sys.executable, "-m", "topologies.cli", "run", str(path), "--available-now", "--master", local_cluster,
         "--mode", "distributed", "--state", redis_url, "--checkpoint", str(tmp_path / "ck")],
        env=env, timeout=600,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    assert final_outputs(tmp_path / "ck") == EXPECTED
