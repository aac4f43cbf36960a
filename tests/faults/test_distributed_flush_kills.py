"""Distributed mode killed on the driver in a batch and in its shutdown flush: outputs and tables as without faults.

The flush of distributed mode closes every task on the executors, one stage
per bolt, between two records the driver writes: "begun" before the first
stage, "done" after ``final.jsonl``. The driver (with its Spark JVM) is killed
right after the flush is recorded as begun, then, in the next process, right
after ``final.jsonl`` is written and before the flush is recorded as done;
a last process completes. Before those, one process is killed after a batch
wrote its tables (two streams through :class:`~topologies.sinks.TableSink`,
from the executors, one to Parquet and, where Delta's jars fit the installed
Spark, one to Delta Lake) and before Spark committed it. The outputs and the
tables must be the fault-free run's, made by a process beside the chain's.
"""

from __future__ import annotations

import pytest

from tests.faults.runs import KILLED, completed, delta_jars, write_input

pytestmark = pytest.mark.faults

DISTRIBUTED = {"mode": "distributed", "master": "local[2]"}


def test_distributed_kills_in_a_batch_and_the_flush_lose_nothing_and_double_nothing(tmp_path, redis_url, fault_query):
    data = write_input(tmp_path / "input")
    delta = delta_jars()
    baseline = fault_query(data, tmp_path / "baseline", redis_url, extra=dict(DISTRIBUTED)).with_tables(delta)
    baseline_ended = baseline.start()  # beside the chain: the kills need nothing from it

    query = fault_query(data, tmp_path / "killed", redis_url, extra=dict(DISTRIBUTED)).with_tables(delta)
    for point, batch in (("before-spark-commit", 2), ("flush-begun", None), ("flush-written", None)):
        kill = {"point": point, "batch": batch, "hit": 1}
        result = query.run(kill=kill)
        assert result.returncode == KILLED, f"not killed at {point}: exit {result.returncode}\n{result.stderr[-3000:]}"
        assert query.killed_at() == kill
    completed(query.run())
    completed(baseline_ended())
    expected = baseline.outputs()
    assert sum(expected.values()) > 100  # the tables keep two streams out of the output files
    got = query.outputs()
    lost, extra = sorted((expected - got).elements())[:5], sorted((got - expected).elements())[:5]
    assert got == expected, f"lost {lost}, extra {extra}"
    assert all(baseline.tables().values()), "a table stayed empty: the sink wrote nothing"
    assert query.tables() == baseline.tables()
