"""Under local-cluster the executors open the Redis store over TLS as the ACL user.

The store's own TLS and ACL tests: tests/state_backends/test_redis_security.py; the fixture:
tests/state_backends/tls_redis.py.
"""

from __future__ import annotations

import uuid

import redis

from tests.state_backends.tls_redis import PASSWORD, documented_acl_rule, run_topology


def test_distributed_tasks_commit_over_tls_as_the_acl_user_from_the_executors(spark, tls_redis, tmp_path,
                                                                             spark_process, local_cluster):
    """Under local-cluster the executors open the store themselves: CA, client certificate and ACL user reach them."""
    from tests.topologies.helpers import batches_of_rows, write_batches
    from tests.topologies.spark.test_spark_distributed import run_distributed

    data = write_batches(tmp_path / "in", batches_of_rows())
    name = f"acld-{uuid.uuid4().hex[:8]}"
    topology = f"{name}-0"  # distributed_run names its query <name>-0
    tls_redis.admin.execute_command(*documented_acl_rule(topology))
    url = tls_redis.url("squall", PASSWORD, client=tls_redis.client, db=5)
    expected = run_topology(spark, data, tmp_path / "ck-memory", topology, "memory://")
    assert expected
    got = run_distributed(spark_process, master=local_cluster, data=str(data), checkpoint=str(tmp_path / "ck"),
                          name=name, states=[url], small=True)
    assert got[url] == expected
    with redis.Redis(port=tls_redis.server.port, db=5) as admin:
        keys = {k.decode() for k in admin.keys("*")}
        tasks = {k.split("}")[0] for k in keys if k.endswith(":meta")}
    assert keys and all(k.startswith(f"squall:{{{topology}/") for k in keys), keys
    assert len(tasks) > 1, f"fewer than two task namespaces were committed: {sorted(keys)}"
