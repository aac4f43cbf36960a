"""On local Spark: the same files and batch split give the same windows and late tuples under any clock.

Two files, one per batch, the second's timestamps 20 s behind the first's, lag 5 s.
The executor emits the watermark at the end of every batch, so the second file is
late (2 tuples) whether the clock moves 1 ms or 10 s per batch.
"""

from __future__ import annotations

from tests.topologies.helpers import FIELDS, SCHEMA, START, counting_clock, write_batches
from tests.windowing.test_batch_end_watermark import FAST, SLOW, TWO_FILES, aggregate_bolt, storm_bolt
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout
from topologies.testing import BoltHarness


def plain(output_values, stream):
    """A late tuple as its values; anything else as a list."""
    return list(output_values[0].values) if stream == "late" else list(output_values)


def run_on_spark(spark, data, ck, step):
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(data, "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1))
    b.set_bolt("storm", storm_bolt()).global_grouping("events")
    b.set_bolt("agg", aggregate_bolt()).global_grouping("events")
    runner = SparkRunner(spark, mode="driver", checkpoint_location=ck, clock=counting_clock(START, step))
    handle = runner.submit("clock", b.create_topology(), available_now=True)
    assert handle.await_termination(120)
    assert handle.progress.batches == len(TWO_FILES)
    outputs = {c: [(o.stream, plain(o.values, o.stream)) for o in handle.outputs() if o.component == c]
               for c in ("storm", "agg")}
    return outputs, handle.progress.late_tuples


def harness(make_bolt):
    h = BoltHarness(make_bolt(), fields=FIELDS, source_component="events", watermark_per_batch=True)
    for rows in TWO_FILES:
        h.advance(FAST)
        h.feed_batch(rows)
    h.close()
    return [(s, plain(v, s)) for s, v in h.emitted]


def test_two_clocks_give_the_same_windows_and_late_tuples(spark, tmp_path):
    data = write_batches(tmp_path / "in", TWO_FILES)
    fast, fast_late = run_on_spark(spark, data, tmp_path / "ck-fast", FAST)
    slow, slow_late = run_on_spark(spark, data, tmp_path / "ck-slow", SLOW)
    for name, (outputs, late) in {"1 ms per batch": (fast, fast_late), "10 s per batch": (slow, slow_late)}.items():
        print(f"\n[{name}] late tuples counted: {late}")
        for component, rows in outputs.items():
            for stream, values in rows:
                print(f"  {component:5} {stream:7} {values}")
    assert fast == slow
    assert fast_late == slow_late == 4  # each bolt counts the second file's 2 tuples
    late = [["a", 10_000, 4], ["b", 12_000, 5]]
    assert [v for s, v in fast["storm"] if s == "late"] == late
    assert [v for s, v in fast["agg"] if s == "late"] == late
    assert [v for s, v in fast["storm"] if s == "default"] == [[20_000, 30_000, [1]], [25_000, 35_000, [1, 2, 3]],
                                                               [30_000, 40_000, [2, 3]]]
    assert fast == {"storm": harness(storm_bolt), "agg": harness(aggregate_bolt)}
