"""A store behind the checkpoint (it lost data) is refused at submit; a bolt added since starts empty."""

from __future__ import annotations

import pytest

from bolts import Fields
from state_backends import open_backend
from tests.topologies.helpers import FIELDS, SCHEMA, Record, batches_of_rows, counting_clock, write_batches
from topologies import SparkRunner, TopologyBuilder
from topologies.engine.store_check import check_store_not_behind
from topologies.spouts import FileSpout
from windowing import Count


def topology(data, bolts=("win",)):
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(data, "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1))
    for bid in bolts:
        b.set_bolt(bid, Record().with_tumbling_window(Count(3)), 2).fields_grouping("events", Fields("key"))
    return b.create_topology()


def checkpoint_with_commits(tmp_path, last: int):
    spark_dir = tmp_path / "ck" / "q" / "spark"
    (spark_dir / "commits").mkdir(parents=True)
    for batch in range(last + 1):
        (spark_dir / "commits" / str(batch)).write_text("v1\n")
    return spark_dir


def test_a_namespace_behind_the_checkpoint_is_named_with_how_far_and_a_new_bolt_starts_empty(tmp_path):
    backend = open_backend("memory://")
    spark_dir = checkpoint_with_commits(tmp_path, 3)
    topo = topology(tmp_path, ("win", "added"))
    for ns, batch in (("q/__router", 3), ("q/win/0", 3), ("q/win/1", 1)):
        backend.namespace(ns).commit(batch, {b"k": b"v"})
    with pytest.raises(RuntimeError, match=r"namespace 'q/win/1' holds batch 1, but .* committed batch 3, 2 batch"):
        check_store_not_behind(backend, "memory://", "q", topo, spark_dir)
    backend.namespace("q/win/1").commit(3, {b"k": b"v"})
    check_store_not_behind(backend, "memory://", "q", topo, spark_dir)  # 'added' has no commit: a new bolt
    backend.namespace("q/win/1").commit(4, {b"k": b"v"})  # ahead by one: the batch Spark will run again
    check_store_not_behind(backend, "memory://", "q", topo, spark_dir)


def test_a_redis_restarted_without_persistence_is_refused_at_resubmit(spark, tmp_path, start_redis):
    server = start_redis()
    try:
        url = f"redis://127.0.0.1:{server.port}/0"
        data = write_batches(tmp_path / "in", batches_of_rows(3, 4))
        first = SparkRunner(spark, state=url, checkpoint_location=tmp_path / "ck", clock=counting_clock())
        assert first.submit("lost", topology(data), available_now=True).await_termination(120)
        again = SparkRunner(spark, state=url, checkpoint_location=tmp_path / "ck", clock=counting_clock())
        # An intact store resumes.
        assert again.submit("lost", topology(data), available_now=True).await_termination(120)
        server.stop()
        server.start()  # no persistence: the store is empty again
        wiped = SparkRunner(spark, state=url, checkpoint_location=tmp_path / "ck", clock=counting_clock())
        with pytest.raises(RuntimeError, match=r"behind the checkpoint of 'lost': namespace 'lost/__router' holds "
                                               r"nothing, but .* committed batch 2.*delete the checkpoint"):
            wiped.submit("lost", topology(data), available_now=True)
    finally:
        server.stop()
