"""On local Spark: every grouping and window kind, tuple by tuple against BoltHarness, in one bounded query."""


from tests.topologies import cases
from tests.topologies.helpers import FIELDS, SCHEMA, actual_outputs, batches_of_rows, counting_clock, write_batches
from topologies import SparkRunner
from topologies.spouts import FileSpout


def test_groupings_and_windows_match_the_harness(spark, tmp_path):
    batches = batches_of_rows()
    data = write_batches(tmp_path / "in", batches)
    topo = cases.build(FileSpout(data, "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1))
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck", output_dir=tmp_path / "out",
                         clock=counting_clock())
    handle = runner.submit("e2e", topo, available_now=True)
    assert handle.await_termination(120)
    outputs = handle.outputs()
    assert handle.progress.batches == len(batches)
    for name, (n, expected) in cases.expected(batches).items():
        assert actual_outputs(outputs, name, n) == expected, name
    panes = [o.values for o in outputs if o.component == "agg_fixed"]
    assert {p[5].timing for p in panes} == {"EARLY", "ON_TIME", "LATE"}
    assert any(p[6] for p in panes)  # retractions
    assert any(o.component == "agg_sessions" and o.stream == "agg_late" for o in outputs)
    written = sorted(p.name for p in (tmp_path / "out" / "e2e").iterdir())
    assert written == [f"batch-{b:012d}.jsonl" for b in range(len(batches))] + ["final.jsonl"]
    assert handle.progress.late_tuples > 0
