"""Checkpoint and output locations as Hadoop URLs: ``file://`` and, through Hadoop's FileSystem API, any scheme.

A ``file://`` URL is read and written with Python's I/O; any other scheme goes
through Hadoop's ``FileSystem`` in Spark's JVM. To run that route without a
namenode, a test makes ``file`` a Hadoop scheme (``LOCAL_SCHEMES`` emptied) and
checks squall's files were written through :class:`HadoopDir`. Neither route may
create a local directory named ``file:`` or ``hdfs:``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bolts import Fields
from tests.topologies.helpers import FIELDS, SCHEMA, Record, batches_of_rows, counting_clock, write_batches
from topologies import SparkRunner, TopologyBuilder
from topologies.executor import BatchClock, OutputLog, hadoop_fs
from topologies.executor.hadoop_fs import HadoopDir, LocalDir, local_path, open_dir
from topologies.executor.store_check import last_committed_batch
from topologies.spouts import FileSpout
from windowing import Duration

pytestmark = pytest.mark.spark


def topology(data: Path):
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(data, "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1))
    bolt = Record().with_tumbling_window(Duration.seconds(2)).with_timestamp_field("ts")
    builder.set_bolt("win", bolt, parallelism=2).fields_grouping("events", Fields("key"))
    return builder.create_topology()


def run(spark, data: Path, checkpoint, output, name: str) -> list:
    runner = SparkRunner(spark, checkpoint_location=checkpoint, output_dir=output, clock=counting_clock())
    handle = runner.submit(name, topology(data), available_now=True)
    assert handle.await_termination(120)
    return [(o.component, o.task, o.stream, o.values) for o in handle.outputs()]


def no_scheme_directories(*roots: Path) -> None:
    for root in roots:
        for _dirpath, dirnames, _files in os.walk(root):
            assert not [d for d in dirnames if d.endswith(":")], f"a directory named like a scheme under {root}"


@pytest.fixture
def data(tmp_path) -> Path:
    return write_batches(tmp_path / "in", batches_of_rows(files=3, per_file=6))


@pytest.fixture
def reference(spark, data, tmp_path) -> list:
    return run(spark, data, tmp_path / "ref-ck", tmp_path / "ref-out", "ref")


@pytest.mark.parametrize("kind", ["local", "hadoop"])
def test_a_storage_dir_reads_replaces_lists_and_deletes(spark, tmp_path, kind):
    url = f"file://{tmp_path}/d/e"
    d = LocalDir(url) if kind == "local" else HadoopDir(spark, url)
    assert not d.is_dir() and d.names() == []
    d.mkdirs()
    d.mkdirs()
    assert d.is_dir()
    d.write_text("a.json", "one\n")
    d.write_text("a.json", "twö\n")  # replaced, not appended
    d.write_text("b.json", "")
    assert d.read_text("a.json") == "twö\n" and d.read_text("b.json") == ""
    assert sorted(d.names()) == ["a.json", "b.json"] and d.exists("a.json")
    d.delete("a.json")
    d.delete("a.json")  # missing is fine
    assert d.names() == ["b.json"] and not d.exists("a.json")
    with pytest.raises(FileNotFoundError, match=r"a\.json"):
        d.read_text("a.json")
    assert d.child("f").names() == []
    assert (tmp_path / "d" / "e" / "b.json").exists()
    no_scheme_directories(tmp_path, Path.cwd())


def test_locations_pick_python_io_or_hadoop_by_scheme(spark, tmp_path):
    assert local_path("file:///a/b") == local_path("file:/a/b") == local_path("file://localhost/a/b") == Path("/a/b")
    assert isinstance(open_dir(tmp_path), LocalDir) and isinstance(open_dir(f"file://{tmp_path}"), LocalDir)
    assert isinstance(open_dir("hdfs://127.0.0.1:1/x", spark), HadoopDir)
    with pytest.raises(ValueError, match=r"hdfs:// URL: .*needs a SparkSession"):
        open_dir("hdfs://127.0.0.1:1/x")


def test_file_urls_give_the_outputs_of_plain_paths_and_no_file_colon_directory(spark, data, reference, tmp_path,
                                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    got = run(spark, data, f"file://{tmp_path}/ck", f"file://{tmp_path}/out", "urls")
    assert got == reference and got
    assert sorted(p.name for p in (tmp_path / "ck" / "urls" / "squall" / "batch-times").iterdir()) == [
        "0.json", "1.json", "2.json"]
    assert (tmp_path / "ck" / "urls" / "spark" / "commits").is_dir()
    assert (tmp_path / "out" / "urls" / "final.jsonl").exists()
    no_scheme_directories(tmp_path)


def test_a_hadoop_filesystem_carries_batch_times_outputs_and_the_store_check(spark, data, reference, tmp_path,
                                                                             monkeypatch):
    monkeypatch.setattr(hadoop_fs, "LOCAL_SCHEMES", frozenset())  # file:// through Hadoop's FileSystem, as hdfs://
    monkeypatch.chdir(tmp_path)
    written: list[str] = []
    original = HadoopDir.write_text

    def spy(self, name, text):
        written.append(f"{self.location}/{name}")
        original(self, name, text)

    monkeypatch.setattr(HadoopDir, "write_text", spy)
    got = run(spark, data, f"file://{tmp_path}/hck", f"file://{tmp_path}/hout", "viahadoop")
    assert got == reference and got
    assert f"file://{tmp_path}/hck/viahadoop/squall/batch-times/0.json" in written
    assert f"file://{tmp_path}/hout/viahadoop/final.jsonl" in written
    files = sorted((tmp_path / "hout" / "viahadoop").glob("*.jsonl"))  # Hadoop's local FS adds .crc files
    records = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    assert [(r["component"], r["task"], r["stream"]) for r in records] == [(c, t, s) for c, t, s, _ in got]
    spark_dir = open_dir(f"file://{tmp_path}/hck/viahadoop/spark", spark)
    assert isinstance(spark_dir, HadoopDir) and last_committed_batch(spark_dir) == 2
    # The same classes over a Hadoop directory: a replayed batch time is read back, outputs read back in order.
    clock = BatchClock(open_dir(f"file://{tmp_path}/hck/viahadoop/squall/batch-times", spark), lambda: 1)
    assert clock.time_of(0, None) != 1
    log = OutputLog(open_dir(f"file://{tmp_path}/o2", spark))
    log.write(0, [])
    assert list(log.records()) == []
    no_scheme_directories(tmp_path)


def test_an_unreachable_namenode_fails_naming_the_path_and_creates_no_local_directory(spark, data, tmp_path,
                                                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = SparkRunner(spark, checkpoint_location="hdfs://127.0.0.1:1/squall/ck", clock=counting_clock())
    with pytest.raises(OSError, match=r"hdfs://127\.0\.0\.1:1/squall/ck/nonn/squall/batch-times.*ConnectException"):
        runner.submit("nonn", topology(data), available_now=True)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("hdfs")]
    no_scheme_directories(tmp_path)


def test_a_relative_checkpoint_is_where_python_was_when_the_runner_was_built(spark, data, tmp_path, monkeypatch,
                                                                            reference):
    # Spark would resolve a relative checkpoint against its JVM's start directory, squall against Python's.
    monkeypatch.chdir(tmp_path)
    runner = SparkRunner(spark, checkpoint_location="rel-ck", output_dir="rel-out", clock=counting_clock())
    assert runner.checkpoint_location == tmp_path / "rel-ck" and runner.output_dir == tmp_path / "rel-out"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    handle = runner.submit("rel", topology(data), available_now=True)
    assert handle.await_termination(120)
    assert [(o.component, o.task, o.stream, o.values) for o in handle.outputs()] == reference
    assert (tmp_path / "rel-ck" / "rel" / "spark" / "commits").is_dir()
    assert (tmp_path / "rel-ck" / "rel" / "squall").is_dir() and (tmp_path / "rel-out" / "rel").is_dir()
    assert not list(elsewhere.iterdir())
