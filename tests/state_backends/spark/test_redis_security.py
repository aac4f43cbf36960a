"""A topology on Spark runs as the Redis ACL user over TLS, and one of another name is refused.

The store's own TLS and ACL tests: tests/state_backends/test_redis_security.py; the fixture:
tests/state_backends/tls_redis.py.
"""

from __future__ import annotations

import uuid

import pytest
import redis

from tests.state_backends.tls_redis import PASSWORD, documented_acl_rule, run_topology


def test_a_topology_runs_as_the_acl_user_over_tls_and_one_of_another_name_is_refused(spark, tls_redis, tmp_path):
    from tests.topologies.helpers import batches_of_rows, write_batches

    data = write_batches(tmp_path / "in", batches_of_rows())
    topology = f"acl-{uuid.uuid4().hex[:8]}"
    tls_redis.admin.execute_command(*documented_acl_rule(topology))
    url = tls_redis.url("squall", PASSWORD, client=tls_redis.client, db=4)
    expected = run_topology(spark, data, tmp_path / "ck-memory", topology, "memory://")
    assert expected
    assert run_topology(spark, data, tmp_path / "ck-acl", topology, url) == expected
    with redis.Redis(port=tls_redis.server.port, db=4) as admin:
        keys = {k.decode() for k in admin.keys("*")}
    assert keys and all(k.startswith(f"squall:{{{topology}/") for k in keys), keys
    with pytest.raises(Exception, match=r"NoPermissionError: .*the Redis user's ACL refuses") as info:
        run_topology(spark, data, tmp_path / "ck-other", f"other-{topology}", url)
    assert PASSWORD not in str(info.value)
