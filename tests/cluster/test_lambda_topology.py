"""storm-starter's LambdaTopology, ported, in distributed mode under local-cluster[2,1,1024]

Driver mode: tests/porting/test_lambda_topology.py.
"""

from __future__ import annotations

from tests.porting.test_lambda_topology import OUTPUTS, check_greetings


def test_distributed_mode_on_two_executors_runs_the_lambdas_with_state_on_redis(tmp_path, redis_url,
                                                                               spark_process, local_cluster):
    run = {"topology": "lambda", "work_dir": str(tmp_path), "name": "lambda-demo", "state": redis_url,
           "outputs": OUTPUTS}
    (outputs,) = spark_process.answer("tests.porting.cluster_run", {"master": local_cluster, "runs": [run]},
                                      timeout=900)
    check_greetings([(component, stream, values) for component, _, stream, values in outputs])
