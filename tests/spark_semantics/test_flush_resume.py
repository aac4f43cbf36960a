"""A run that ends with the shutdown flush, then a run that resumes: Spark's windows once, Spark's late rows dropped.

Spark ends a drained ``availableNow`` run with a committed batch of no data;
squall's flush emits what that batch emits but commits nothing. The next run
must go on as Spark's does: the windows the flush fired do not fire again, and
rows behind the flush's watermark are late.
"""

from __future__ import annotations

from squall import Duration, Fields, FileSpout, TopologyBuilder, WindowedAggregateBolt
from state_backends import open_backend
from topologies.engine import BatchClock, batch_loop
from windowing import aggregators
from windowing.assigners import FixedWindows

FIELDS = ("key", "ts", "v")


def topology(spark_rules: bool, parallelism: int = 1):
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout("/unused", "json", FIELDS, schema="key STRING, ts BIGINT, v BIGINT"))
    bolt = (WindowedAggregateBolt(aggregators.count(), key_fields=("key",))
            .with_windows(FixedWindows(Duration.seconds(1))).with_timestamp_field("ts"))
    if spark_rules:
        bolt = bolt.with_spark_semantics()
    builder.set_bolt("counts", bolt, parallelism=parallelism).fields_grouping("events", Fields("key"))
    return builder.create_topology()


def run(backend, tmp_path, spark_rules, batches, first, parallelism=1):
    """One run: ``batches`` from batch id ``first`` on, then the shutdown flush; the windows emitted."""
    executor = batch_loop(topology(spark_rules, parallelism), BatchClock(tmp_path / "times", lambda: 1_000_000),
                          output_dir=tmp_path / f"out{first}", backend=backend, name="t")
    executor.complete_pending_flush()
    for batch_id, rows in enumerate(batches, first):
        executor.run(batch_id, {"events": rows})
    executor.flush()
    return sorted((o.values[0], o.values[1], o.values[3]) for o in executor.log.all())


def test_the_flush_s_windows_do_not_fire_again_and_rows_behind_its_watermark_are_late(tmp_path):
    backend = open_backend("memory://")
    first = run(backend, tmp_path, True, [[["k", 500, 1]], [["k", 1500, 1], ["j", 1500, 1]]], 0, parallelism=2)
    assert first == [("k", 0, 1)]  # the flush is Spark's batch with no data: its watermark, 1.5 s, closes [0, 1 s)
    # Spark: 700 is behind that watermark (late); 1600 joins [1 s, 2 s), which the next no-data batch leaves open.
    second = run(backend, tmp_path, True, [[["k", 700, 1], ["k", 1600, 1]], [["k", 2500, 1], ["j", 2600, 1]]], 2,
                 parallelism=2)
    assert second == [("j", 1000, 1), ("k", 1000, 2)]


def test_the_default_mode_still_flushes_every_window_and_resumes_from_the_last_batch(tmp_path):
    backend = open_backend("memory://")
    assert run(backend, tmp_path, False, [[["k", 500, 1]], [["k", 1500, 1]]], 0) == [("k", 0, 1), ("k", 1000, 1)]
    # The flush committed nothing: the next run resumes where batch 1 left the windows.
    assert run(backend, tmp_path, False, [[["k", 1600, 1]]], 2) == [("k", 1000, 2)]
