"""The run's own sinks: no file for an empty batch, a replay overwrites its file exactly, memory keeps a tail."""

import json

import pytest

from bolts import BaseBolt, Fields
from tests.topologies.helpers import FIELDS, START
from topologies import SparkRunner, TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.engine.delivery import HeldOutputs
from topologies.sinks.output_log import OutputCallback, OutputFiles, OutputLog
from topologies.sinks.records import FINAL, Output
from topologies.spouts import FileSpout


def outs(batch, n):
    return [Output("b", 0, "default", [batch, i]) for i in range(n)]


def files(directory):
    return sorted(p.name for p in directory.iterdir())


def batch(key, outputs):
    """A batch of ``outputs`` held in this process, as the driver placement hands it to the sinks."""
    return HeldOutputs(key, outputs, None)


def test_an_empty_batch_writes_no_file_and_keeps_nothing_in_memory(tmp_path):
    log, written = OutputLog(), OutputFiles(tmp_path, {})
    for key, n in enumerate([2, 0, 0, 1, 0]):
        log.write(batch(key, outs(key, n)))
        written.write(batch(key, outs(key, n)))
    assert files(tmp_path) == ["batch-000000000000.jsonl", "batch-000000000003.jsonl"]
    assert list(log.batches) == [0, 3]
    assert log.all() == outs(0, 2) + outs(3, 1)
    written.write(batch(FINAL, []))  # the flush leaves its file even when empty: it says the flush ran
    assert files(tmp_path)[-1] == "final.jsonl"
    assert (tmp_path / "final.jsonl").read_text() == ""


def test_a_replayed_batch_overwrites_its_file_exactly(tmp_path):
    log, written = OutputLog(), OutputFiles(tmp_path, {})

    def write(key, outputs):
        log.write(batch(key, outputs))
        written.write(batch(key, outputs))

    write(0, outs(0, 3))
    first = (tmp_path / "batch-000000000000.jsonl").read_bytes()
    write(0, outs(0, 3))
    assert (tmp_path / "batch-000000000000.jsonl").read_bytes() == first
    assert log.count == 3 and log.all() == outs(0, 3)
    write(0, outs(0, 1))  # a replay that emits less replaces, never appends
    assert [json.loads(line)["values"] for line in (tmp_path / "batch-000000000000.jsonl").open()] == [[0, 0]]
    assert log.count == 1
    write(0, [])  # and one that emits nothing removes the earlier file
    assert files(tmp_path) == []
    assert log.count == 0 and log.all() == []
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())


def test_memory_keeps_the_last_outputs_only(tmp_path):
    log, written = OutputLog(keep=5), OutputFiles(tmp_path, {})
    everything = []
    for key in range(6):
        log.write(batch(key, outs(key, 3)))
        written.write(batch(key, outs(key, 3)))
        everything += outs(key, 3)
        assert log.held == len(log.all()) <= 5
    assert log.all() == everything[-5:]
    assert log.trimmed and log.count == 18
    log.write(batch(5, outs(5, 3)))  # a replay of the last batch does not count twice
    assert log.all() == everything[-5:] and log.count == 18
    log.write(batch(FINAL, outs(9, 2)))
    written.write(batch(FINAL, outs(9, 2)))
    assert log.all() == everything[-3:] + outs(9, 2)
    records = list(written.records())  # the files still hold every output
    assert [r["values"] for r in records] == [o.values for o in everything + outs(9, 2)]


def test_a_batch_larger_than_the_bound_keeps_its_tail_and_keep_none_keeps_all():
    log = OutputLog(keep=2)
    log.write(batch(0, outs(0, 5)))
    assert log.all() == outs(0, 5)[-2:]
    unbounded = OutputLog(keep=None)
    for key in range(50):
        unbounded.write(batch(key, outs(key, 3)))
    assert len(unbounded.all()) == 150 and not unbounded.trimmed


def test_records_reads_only_the_batches_this_sink_wrote(tmp_path):
    earlier = OutputFiles(tmp_path, {})
    earlier.write(batch(0, outs(0, 1)))
    earlier.write(batch(FINAL, outs(8, 1)))
    later = OutputFiles(tmp_path, {})  # a later submission of the same name resumes at batch 1
    later.write(batch(1, outs(1, 2)))
    assert [r["values"] for r in later.records()] == [[1, 0], [1, 1]]


def test_on_output_sees_each_batch_with_outputs_again_on_replay():
    seen = []
    callback = OutputCallback(lambda key, records: seen.append((key, len(records))))
    for key, n in enumerate([2, 0, 1]):
        callback.write(batch(key, outs(key, n)))
    callback.write(batch(2, outs(2, 1)))
    callback.write(batch(FINAL, outs(9, 1)))
    assert seen == [(0, 2), (2, 1), (2, 1), ("final", 1)]


def test_the_run_s_own_sinks_take_only_the_streams_that_reach_the_loop():
    log = OutputLog(streams={"b:default"})
    log.write(batch(0, [*outs(0, 2), Output("b", 0, "kept", [1])]))
    assert log.all() == outs(0, 2)


class EvenOnly(BaseBolt):
    """Emits each even value: a batch of odd values has no outputs."""

    def execute(self, input):
        if input["value"] % 2 == 0:
            self.collector.emit([input["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


def test_the_batch_loop_writes_files_only_for_batches_with_outputs(tmp_path):
    b = TopologyBuilder()
    b.set_spout("events", FileSpout("/unused", "json", FIELDS, schema="key STRING, ts BIGINT, value BIGINT"))
    b.set_bolt("even", EvenOnly()).shuffle_grouping("events")
    executor = batch_loop(b.create_topology(), BatchClock(tmp_path / "t", lambda: START), output_dir=tmp_path / "out",
                          outputs_in_memory=3)
    log = executor.log
    batches = [[1, 3], [2, 4, 6, 8], [], [5], [10]]
    for batch_id, values in enumerate(batches):
        executor.run(batch_id, {"events": [["k", v, v] for v in values]})
    executor.run(4, {"events": [["k", 10, 10]]})  # Spark runs the last batch again
    executor.flush()
    assert files(tmp_path / "out") == ["batch-000000000001.jsonl", "batch-000000000004.jsonl", "final.jsonl"]
    assert [o.values for o in log.all()] == [[6], [8], [10]]
    assert log.count == 5
    assert [r["values"] for r in executor.files.records()] == [[2], [4], [6], [8], [10]]


def test_the_runner_checks_outputs_in_memory_and_on_output(tmp_path):
    with pytest.raises(ValueError, match="`outputs_in_memory` must not be negative; got -1"):
        SparkRunner(None, checkpoint_location=tmp_path, outputs_in_memory=-1)
    with pytest.raises(TypeError, match="`outputs_in_memory` must be an int or None; got '10' \\(str\\)"):
        SparkRunner(None, checkpoint_location=tmp_path, outputs_in_memory="10")
    with pytest.raises(TypeError, match="`on_output` must be callable"):
        SparkRunner(None, checkpoint_location=tmp_path, on_output="print")


def test_a_new_process_never_gives_a_batch_an_earlier_time_than_the_batch_before(tmp_path):
    from topologies.engine import BatchClock

    assert BatchClock(tmp_path, lambda: 5_000).time_of(0, None) == 5_000
    later = BatchClock(tmp_path, lambda: 1_000)  # a new process whose clock was set back
    assert later.time_of(1, None) == 5_000
    assert later.time_of(0, None) == 5_000  # a replay reuses the recorded time
    assert later.time_of(2, 5_000) == 5_000
