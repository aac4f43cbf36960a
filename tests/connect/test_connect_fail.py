"""``collector.fail`` under Spark Connect, in both placements

Classic Spark: tests/storm_api/spark/test_spark_fail.py.
"""

from __future__ import annotations

import uuid

import pytest

from tests.connect_fixtures import run_connect
from tests.storm_api.fail_run import write_input
from tests.storm_api.spark.test_spark_fail import check


@pytest.mark.parametrize("mode", ["driver", "distributed"])
def test_the_same_under_spark_connect(connect_url, tmp_path, redis_url, mode):
    data = write_input(tmp_path / "in")
    check(run_connect("tests.storm_api.fail_run", {"url": connect_url, "data": str(data), "work": str(tmp_path),
                                                   "mode": mode, "state": redis_url,
                                                   "name": f"cfail-{uuid.uuid4().hex[:6]}"}), cumulative=True)
