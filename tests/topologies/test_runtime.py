"""The batch loop without Spark: its batches match BoltHarness, and a replayed batch id is exact."""

import itertools

import pytest

from bolts import BaseBolt, Fields
from tests.topologies import cases
from tests.topologies.helpers import FIELDS, START, STEP, LateValues, Record, actual_outputs, batches_of_rows, loop_of
from topologies import TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.groupings import fields_task
from topologies.spouts import FileSpout
from windowing import Duration


def spout():
    return FileSpout("/unused", "json", FIELDS, schema="key STRING, ts BIGINT, value BIGINT")


def rows_of(batch):
    return [[r[f] for f in FIELDS] for r in batch]


def run_runtime(topology, batches):
    loop = loop_of(topology, itertools.count(START, STEP))
    for b, batch in enumerate(batches):
        loop.run(b, {"events": rows_of(batch)})
    loop.flush()
    return loop.log.all()


def test_every_grouping_and_window_kind_matches_the_harness():
    batches = batches_of_rows()
    outputs = run_runtime(cases.build(spout()), batches)
    for name, (n, expected) in cases.expected(batches).items():
        assert actual_outputs(outputs, name, n) == expected, name
    assert any(o.stream == "late" for o in outputs)


def test_fields_grouping_is_stable_and_spreads():
    tasks = {fields_task([f"k{i}"], 4) for i in range(40)}
    assert tasks == {0, 1, 2, 3}
    assert fields_task(["k1"], 4) == fields_task(["k1"], 4)


def test_late_stream_routes_to_a_downstream_bolt_and_watermarks_flow_down():
    b = TopologyBuilder()
    b.set_spout("events", spout())
    b.set_bolt("win", Record().with_tumbling_window(Duration.seconds(1)).with_timestamp_field("ts")
               .with_late_tuple_stream("late"), 2).fields_grouping("events", Fields("key"))
    b.set_bolt("late", LateValues()).global_grouping("win", "late")
    topo = b.create_topology()
    loop = loop_of(topo, itertools.count(START + 1_000, 1_000))
    batches = batches_of_rows()
    for i, batch in enumerate(batches):
        loop.run(i, {"events": rows_of(batch)})
    late = [o.values for o in loop.log.all() if o.component == "late"]
    assert late == [["k1", f * 2_000 - 1_900] for f in range(1, len(batches))]
    assert loop.marks["late"] == [min(loop.marks["win"])]


class Boom(BaseBolt):
    def execute(self, input):
        self.collector.emit([input["value"]])
        if input["value"] == 202:
            raise RuntimeError("boom")

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


def test_a_batch_run_again_after_a_failure_gives_the_same_outputs(tmp_path):
    topo = cases.build(spout())
    batches = batches_of_rows()
    clean = batch_loop(topo, BatchClock(tmp_path / "a", iter(range(START, 10**9, STEP)).__next__),
                       output_dir=tmp_path / "out-a")
    for b, batch in enumerate(batches):
        clean.run(b, {"events": rows_of(batch)})
    replayed = batch_loop(topo, BatchClock(tmp_path / "b", iter(range(START, 10**9, STEP)).__next__))
    for b, batch in enumerate(batches):
        replayed.run(b, {"events": rows_of(batch)})
        if b in (0, 2):
            replayed.run(b, {"events": rows_of(batch)})  # the same batch id again, as after a crash before commit
    assert replayed.totals.replays == 2
    assert replayed.log.all() == clean.log.all()
    assert sorted(p.name for p in (tmp_path / "out-a").iterdir()) == [f"batch-{b:012d}.jsonl" for b in range(4)]


def test_a_failing_batch_is_rewound_before_it_runs_again(tmp_path):
    b = TopologyBuilder()
    b.set_spout("events", spout())
    b.set_bolt("boom", Boom()).shuffle_grouping("events")
    executor = batch_loop(b.create_topology(), BatchClock(tmp_path, lambda: START))
    executor.run(0, {"events": rows_of(batches_of_rows()[0])})
    with pytest.raises(RuntimeError, match="boom"):
        executor.run(1, {"events": [["k", 1, 201], ["k", 2, 202]]})
    executor.run(1, {"events": [["k", 1, 201], ["k", 2, 203]]})
    assert [o.values for o in executor.log.batches[1]] == [[201], [203]]
    with pytest.raises(RuntimeError, match="shuffle counters of this topology are at batch 1, but Spark runs batch 0"):
        executor.run(0, {})
