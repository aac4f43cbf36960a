"""Under Spark Connect every shipped example and equivalence topology gives a classic session's outputs.

Each case of :mod:`tests.cluster.cases` (the shipped examples, a three-bolt
chain through every grouping with stateful, paged, message-id and aggregate
bolts, and a windowed join) runs once in the shared classic ``local[2]``
session in driver mode, the reference; then, in a client process of its own
(:mod:`tests.connect.connect_run`), under a Spark Connect session to a local
Connect server (its own JVM; ``foreachBatch`` runs in a Python process beside
it): in driver mode with ``memory://`` and with Redis state, and in
distributed mode with Redis; the ``mixed`` case (every kind of bolt state) also
with HBase state in both modes. Outputs must be equal, in order.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cluster.cases import CASES, driver_outputs, write_all
from tests.connect_fixtures import run_connect

pytestmark = [pytest.mark.spark, pytest.mark.connect, pytest.mark.redis, pytest.mark.hbase]

MODES = [("driver", "memory"), ("driver", "redis"), ("distributed", "redis")]
HBASE_CASE = "mixed"
HBASE_MODES = [("driver", "hbase"), ("distributed", "hbase")]


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return write_all(tmp_path_factory.mktemp("connect-equivalence"))


@pytest.fixture(scope="module")
def classic_runs(spark, data) -> dict[str, list]:
    return driver_outputs(spark, data)


@pytest.fixture(scope="module")
def connect_runs(connect_url, data, redis_url, hbase_url) -> dict[str, dict]:
    urls = {"memory": "memory://", "redis": redis_url, "hbase": hbase_url}
    runs = [[c.name, mode, urls[store]] for c in CASES for mode, store in MODES]
    runs += [[HBASE_CASE, mode, urls[store]] for mode, store in HBASE_MODES]
    args = {"url": connect_url, "data": str(data / "data"), "checkpoint": str(data / "ck-connect"), "runs": runs}
    return run_connect("tests.connect.connect_run", args)  # type: ignore[return-value]


@pytest.mark.parametrize(("mode", "store"), MODES, ids=[f"{m}-{s}" for m, s in MODES])
@pytest.mark.parametrize("case", [c.name for c in CASES])
def test_connect_gives_the_classic_outputs(case, mode, store, classic_runs, connect_runs):
    expected = classic_runs[case]
    assert expected, f"case {case} gave no outputs in a classic session"
    _check(connect_runs[f"{case}/{mode}/{store}"], expected)


@pytest.mark.parametrize(("mode", "store"), HBASE_MODES, ids=[f"{m}-{s}" for m, s in HBASE_MODES])
def test_connect_with_hbase_state_gives_the_classic_outputs(mode, store, classic_runs, connect_runs):
    _check(connect_runs[f"{HBASE_CASE}/{mode}/{store}"], classic_runs[HBASE_CASE])


def _check(got: dict, expected: list) -> None:
    assert got["outputs"] == expected
    assert got["count"] == len(expected)
    assert got["batches"] > 0 and got["rows"] > 0
