"""On local Spark: the handle keeps a bounded tail of outputs, and a batch with no outputs writes no file."""

import json

from tests.topologies.helpers import FIELDS, SCHEMA, write_batches
from tests.topologies.test_output_log import EvenOnly
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout


def test_a_bounded_tail_in_memory_and_no_file_for_an_empty_batch(spark, tmp_path):
    values = [[2, 4, 6], [1, 3], [8, 10]]  # the middle batch emits nothing
    data = write_batches(tmp_path / "in", [[{"key": "k", "ts": v, "value": v} for v in vs] for vs in values])
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(data, "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1))
    b.set_bolt("even", EvenOnly()).shuffle_grouping("events")
    sunk = {}
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck", output_dir=tmp_path / "out",
                         outputs_in_memory=2, on_output=lambda key, outputs: sunk.__setitem__(key, outputs))
    handle = runner.submit("bounded", b.create_topology(), available_now=True)
    assert handle.await_termination(120)
    assert handle.progress.batches == 3
    assert [o.values for o in handle.outputs()] == [[8], [10]]
    assert handle.output_count == 5
    assert sorted(p.name for p in (tmp_path / "out" / "bounded").iterdir()) == [
        "batch-000000000000.jsonl", "batch-000000000002.jsonl", "final.jsonl"]
    assert [r["values"] for r in handle.loop.files.records()] == [[2], [4], [6], [8], [10]]
    assert sorted(sunk) == [0, 2] and [o.values for o in sunk[2]] == [[8], [10]]



def test_cli_prints_every_output_from_the_files(spark, tmp_path, capsys):
    from topologies.cli import main

    assert main(["run", "topologies/examples/word_count.py", "--available-now", "--checkpoint", str(tmp_path),
                 "--print-outputs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    count = next(int(line.split()[1]) for line in lines if "outputs written to" in line)
    printed = [line for line in lines if line.startswith("{")]
    assert count > 100 and len(printed) == count
    assert json.loads(printed[0]).keys() == {"component", "task", "stream", "values"}
