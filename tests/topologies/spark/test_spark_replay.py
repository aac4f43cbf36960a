"""A query stopped after a batch's outputs are written but before Spark commits it, restarted from its checkpoint."""

import pytest

from tests.topologies import cases
from tests.topologies.helpers import FIELDS, SCHEMA, batches_of_rows, counting_clock, write_batches
from topologies import SparkRunner
from topologies.engine.delivery import SinkDelivery
from topologies.spouts import FileSpout


class Crash(RuntimeError):
    pass


def test_restart_from_checkpoint_gives_the_outputs_of_an_uninterrupted_run(spark, tmp_path, monkeypatch):
    batches = batches_of_rows()
    data = write_batches(tmp_path / "in", batches)
    topo = cases.build(FileSpout(data, "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1))

    clean = SparkRunner(spark, checkpoint_location=tmp_path / "ck-clean", clock=counting_clock())
    handle = clean.submit("clean", topo, available_now=True)
    assert handle.await_termination(120), "the clean run did not end within 120 s"
    expected = handle.outputs()

    original = SinkDelivery.write
    crashed = []

    def write_then_crash(self, batch):
        original(self, batch)
        if batch.key == 2 and not crashed:
            crashed.append(batch.key)
            raise Crash("stopped after writing the outputs of batch 2, before its commit")

    monkeypatch.setattr(SinkDelivery, "write", write_then_crash)
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck", output_dir=tmp_path / "out",
                         clock=counting_clock())
    first = runner.submit("replay", topo, available_now=True)
    with pytest.raises(Crash):
        first.await_termination(120)
    commits = sorted(p.name for p in (tmp_path / "ck" / "replay" / "spark" / "commits").iterdir()
                     if not p.name.startswith("."))
    assert commits == ["0", "1"]
    second = runner.submit("replay", topo, available_now=True)
    assert second.await_termination(120)
    assert second.loop.totals.replays == 1
    assert second.outputs() == expected
    files = sorted(p.name for p in (tmp_path / "out" / "replay").iterdir() if not p.name.startswith("."))
    assert files == [f"batch-{b:012d}.jsonl" for b in range(len(batches))] + ["final.jsonl"]
