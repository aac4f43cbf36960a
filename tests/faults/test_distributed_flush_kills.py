"""Distributed mode's shutdown flush killed on the driver: the outputs equal a run without faults.

The flush of distributed mode closes every task on the executors, one stage
per bolt, between two records the driver writes: "begun" before the first
stage, "done" after ``final.jsonl``. The driver (with its Spark JVM) is killed
right after the flush is recorded as begun, then, in the next process, right
after ``final.jsonl`` is written and before the flush is recorded as done;
a last process completes. Its outputs must be the fault-free run's.
"""

from __future__ import annotations

import pytest

from tests.faults.runs import KILLED, Query, completed, write_input

pytestmark = [pytest.mark.spark, pytest.mark.faults, pytest.mark.redis]

DISTRIBUTED = {"mode": "distributed", "master": "local[2]"}


def test_a_distributed_flush_killed_twice_loses_nothing_and_doubles_nothing(tmp_path, redis_url):
    data = write_input(tmp_path / "input")
    baseline = Query(data, tmp_path / "baseline", redis_url, extra=DISTRIBUTED)
    completed(baseline.run())
    expected = baseline.outputs()
    assert sum(expected.values()) > 150

    query = Query(data, tmp_path / "killed", redis_url, extra=DISTRIBUTED)
    for point in ("flush-begun", "flush-written"):
        kill = {"point": point, "batch": None, "hit": 1}
        result = query.run(kill=kill)
        assert result.returncode == KILLED, f"not killed at {point}: exit {result.returncode}\n{result.stderr[-3000:]}"
        assert query.killed_at() == kill
    completed(query.run())
    got = query.outputs()
    lost, extra = sorted((expected - got).elements())[:5], sorted((got - expected).elements())[:5]
    assert got == expected, f"lost {lost}, extra {extra}"
