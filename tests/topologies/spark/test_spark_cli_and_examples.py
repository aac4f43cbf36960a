"""The examples run end to end on data they generate, and `squall run` runs a topology file."""

from pathlib import Path

import pytest

from topologies import SparkRunner
from topologies.cli import default_checkpoint, main, parse_interval
from topologies.examples import event_time_late, word_count
from windowing import Duration


def test_word_count_counts_every_word(spark, tmp_path):
    handle = SparkRunner(spark, checkpoint_location=tmp_path).submit("wc", word_count.build_topology(), True)
    assert handle.await_termination(120), "the run did not end within 120 s"
    counts = {}
    for o in handle.outputs():
        word, count = o.values
        assert count == counts.get(word, 0) + 1
        counts[word] = count
    assert sum(counts.values()) > 100


def test_event_time_example_routes_late_tuples_to_their_bolt(spark, tmp_path):
    handle = SparkRunner(spark, checkpoint_location=tmp_path).submit("ev", event_time_late.build_topology(), True)
    assert handle.await_termination(120), "the run did not end within 120 s"
    late = [o.values for o in handle.outputs() if o.component == "late-log"]
    assert len(late) == handle.progress.late_tuples == 8
    assert all(v[0] == "s0" and v[2] == 100 for v in late)


def test_cli_runs_a_topology_file(spark, tmp_path, capsys):
    assert main(["run", "topologies/examples/word_count.py", "--available-now", "--checkpoint",
                 str(tmp_path), "--progress-every", "1"]) == 0
    out = capsys.readouterr().out
    assert "[word_count] done: run: batches 1" in out
    assert (tmp_path / "output" / "word_count" / "final.jsonl").exists()


def test_cli_passes_the_mode_and_refuses_memory_state_in_distributed_mode(spark, tmp_path):
    with pytest.raises(ValueError, match="memory://"):
        main(["run", "topologies/examples/word_count.py", "--available-now", "--mode", "distributed",
              "--state", "memory://", "--checkpoint", str(tmp_path)])


def test_a_failed_batch_ends_the_run_with_one_line_naming_the_error(spark, tmp_path, capsys):
    path = tmp_path / "failing.py"
    path.write_text(FAILING)
    assert main(["run", str(path), "--available-now", "--checkpoint", str(tmp_path / "ck")]) == 1
    err = capsys.readouterr().err
    assert "[failing] failed: ValueError: no sentence wanted here" in err
    assert "Traceback" not in err


FAILING = """
from bolts import BaseBolt
from topologies import TopologyBuilder
from topologies.examples.word_count import build_topology as word_count


class Boom(BaseBolt):
    def execute(self, tup):
        raise ValueError("no sentence wanted here")


def build_topology():
    builder = TopologyBuilder()
    builder.set_spout("sentences", word_count().spouts["sentences"].spout)
    builder.set_bolt("boom", Boom()).shuffle_grouping("sentences")
    return builder.create_topology()
"""


def test_the_default_checkpoint_outlives_the_run_when_the_state_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert default_checkpoint("redis://127.0.0.1:6379/0") == str(tmp_path / "squall-checkpoints")
    assert default_checkpoint("hbase://127.0.0.1:9090") == str(tmp_path / "squall-checkpoints")
    temporary = default_checkpoint("memory://")
    assert Path(temporary).is_dir() and not Path(temporary).is_relative_to(tmp_path)


def test_trigger_interval_parsing():
    assert parse_interval("250ms") == Duration(250)
    assert parse_interval("2s") == Duration(2000)
    assert parse_interval("0.5s") == Duration(500)
    assert parse_interval("0ms") == Duration(0)
