"""A bolt that went through a BoltHarness is untouched: another harness, a copy or Spark can run it again.

The harness runs its own deep copy (``h.bolt``), so prepare() and init_state never
leave a collector or a KeyValueState (which hold the harness and the backend's
lock, and cannot be copied) on the caller's bolt.
"""

from __future__ import annotations

import copy
import pickle

import pytest

from tests.topologies.helpers import FIELDS, SCHEMA, counting_clock, write_batches
from tests.windowing.test_batch_end_watermark import TWO_FILES, aggregate_bolt, stateful_bolt
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout
from topologies.testing import BoltHarness

BATCHES = [*TWO_FILES, [{"key": "a", "ts": 41_000, "value": 6}, {"key": "b", "ts": 52_000, "value": 7}]]


def through_harness(bolt):
    h = BoltHarness(bolt, fields=FIELDS, state="memory://", watermark_per_batch=True)
    for rows in BATCHES:
        h.advance(1_000)
        h.feed_batch(rows)
    h.close()
    return h, [(s, list(v[0].values) if s == "late" else v) for s, v in h.emitted]


@pytest.mark.parametrize("make", [aggregate_bolt, stateful_bolt], ids=["aggregate", "stateful"])
def test_a_second_harness_runs_the_same_bolt_with_equal_results(make):
    bolt = make()
    first, emitted = through_harness(bolt)
    assert first.bolt is not bolt  # the harness ran its own copy
    assert not hasattr(bolt, "collector") and not hasattr(bolt, "state")
    copy.deepcopy(bolt)
    pickle.dumps(bolt)
    second, again = through_harness(bolt)
    assert again == emitted and emitted
    assert first.late and [t.values for t in second.late] == [t.values for t in first.late]


def test_the_running_copy_keeps_its_state_across_a_restart():
    h = BoltHarness(stateful_bolt(), fields=FIELDS, state="memory://", watermark_per_batch=True)
    h.feed_batch(TWO_FILES[0])
    h.feed_batch([{"key": "a", "ts": 60_000, "value": 1}])
    total = h.bolt.state.get("total")
    h.commit()
    h.restart()
    assert h.bolt.state.get("total") == total == 6


def test_bolts_that_ran_in_a_harness_are_submitted_to_spark(spark, tmp_path):
    agg, stateful = aggregate_bolt(), stateful_bolt()
    expected = {"agg": through_harness(agg)[1], "stateful": through_harness(stateful)[1]}
    data = write_batches(tmp_path / "in", BATCHES)
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(data, "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1))
    b.set_bolt("agg", agg).global_grouping("events")
    b.set_bolt("stateful", stateful).global_grouping("events")
    runner = SparkRunner(spark, mode="driver", state="memory://", checkpoint_location=tmp_path / "ck",
                         clock=counting_clock(step=1_000))
    handle = runner.submit("reuse", b.create_topology(), available_now=True)
    assert handle.await_termination(120)
    got = {c: [(o.stream, list(o.values[0].values) if o.stream == "late" else list(o.values))
               for o in handle.outputs() if o.component == c] for c in expected}
    assert got == {c: [(s, list(v)) for s, v in e] for c, e in expected.items()}
