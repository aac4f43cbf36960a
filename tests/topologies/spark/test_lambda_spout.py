"""LambdaSpout on Spark: bounded runs, a value of the wrong type, a batch run again

The in-process half: tests/topologies/test_lambda_spout.py.
"""

from __future__ import annotations

import uuid

import pytest

from squall import LambdaSpout, SparkRunner, TopologyBuilder
from tests.topologies.helpers import counting_clock
from tests.topologies.test_lambda_spout import Crash, counted_topology, needs_available_now
from topologies.engine.delivery import SinkDelivery


@needs_available_now
def test_a_bounded_run_calls_the_supplier_count_times_in_order_one_seconds_worth_a_batch(spark, tmp_path):
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck", clock=counting_clock())
    handle = runner.submit("counted", counted_topology(count=12, rows_per_second=5), available_now=True)
    assert handle.await_termination(300)
    assert [o.values for o in handle.outputs()] == [[f"V{n}"] for n in range(12)]
    assert [m.bolts["upper"].tuples_in for m in handle.metrics_history()] == [5, 5, 2]


@needs_available_now
def test_a_value_that_is_not_of_the_value_type_fails_the_batch_naming_the_supplier(spark, tmp_path):
    b = TopologyBuilder()
    b.set_spout("numbers", LambdaSpout(lambda: 7, count=1))  # an int, for a STRING column
    handle = SparkRunner(spark, checkpoint_location=tmp_path / "ck").submit("typed", b.create_topology(), True)
    with pytest.raises(Exception, match=r"lambda spout: the supplier .*<lambda> returned 7 \(int\), which is not a "
                                        r"STRING: .*LambdaSpout\(supplier, value_type=\.\.\.\)"):
        handle.await_termination(300)


@needs_available_now
def test_a_batch_spark_runs_again_gives_the_tuples_of_its_first_attempt(spark, tmp_path, monkeypatch):
    b = TopologyBuilder()
    b.set_spout("ids", LambdaSpout(lambda: str(uuid.uuid4()), rows_per_second=3, count=9))
    topology = b.create_topology()
    original, written = SinkDelivery.write, {}

    def write_then_crash(self, batch):
        original(self, batch)
        written.setdefault(batch.key, []).append([o.values for o in batch.records()])
        if batch.key == 1 and len(written[batch.key]) == 1:
            raise Crash("stopped after writing the outputs of batch 1, before its commit")

    monkeypatch.setattr(SinkDelivery, "write", write_then_crash)
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck", clock=counting_clock())
    with pytest.raises(Crash):
        runner.submit("replayed", topology, available_now=True).await_termination(300)
    handle = runner.submit("replayed", topology, available_now=True)  # memory:// state: the same runner
    assert handle.await_termination(300)
    assert handle.loop.totals.replays == 1
    first, replayed = written[1]
    assert len(first) == 3 and first == replayed  # the same three UUIDs: read from the record, not called again
    ids = [values[0] for key in sorted(k for k in written if isinstance(k, int)) for values in written[key][-1]]
    assert len(ids) == 9 == len(set(ids))  # the batches after it go on with new calls, none lost or repeated
