"""Checkpoint and output locations as URLs: ``file://`` through Python's I/O, any other scheme through ``pyarrow.fs``.

A plain path or ``file://`` URL is a :class:`LocalDir`; every other scheme an
:class:`ArrowDir`, with no Spark session and no JVM involved. That route is
run for real twice: over pyarrow's local filesystem (``LOCAL_SCHEMES``
emptied, so ``file://`` goes the way ``hdfs://`` goes), and against a real S3
endpoint (moto's server on 127.0.0.1), where a whole run writes its batch times
and output files into the bucket. Neither route may create a local directory
named ``file:``, ``s3:`` or ``hdfs:``.
"""

from __future__ import annotations

import json
import os
import pickle
import zipfile
from contextlib import contextmanager
from pathlib import Path

import pyarrow.fs as pafs
import pytest

from bolts import Fields
from tests.service_fixtures import free_port
from tests.topologies.helpers import FIELDS, SCHEMA, Record, batches_of_rows, counting_clock, write_batches
from topologies import SparkRunner, TopologyBuilder, storage
from topologies.engine import BatchClock
from topologies.engine.delivery import HeldOutputs
from topologies.engine.store_check import last_committed_batch
from topologies.sinks.output_log import OutputFiles
from topologies.spouts import FileSpout
from topologies.storage import ArrowDir, LocalDir, join, local_path, open_dir, shown
from windowing import Duration

BUCKET = "squall-test"
SECRET = "s3cr3t-Value"


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


def records_of(directory) -> list[tuple]:
    """The (component, task, stream) of every output file's records, batches in id order, then final."""
    names = [*sorted(n for n in directory.names() if n.startswith("batch-")), "final.jsonl"]
    return [(r["component"], r["task"], r["stream"])
            for n in names for r in map(json.loads, directory.read_text(n).splitlines())]


@pytest.fixture(scope="module")
def s3():
    """moto's S3 server on 127.0.0.1 (a free port), the bucket made; pyarrow finds it through the AWS_* variables."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}
    try:
        with pytest.MonkeyPatch.context() as mp:
            for key, value in env.items():
                mp.setenv(key, value)
            bucket = pafs.S3FileSystem(endpoint_override=f"127.0.0.1:{port}", scheme="http", access_key="testing",
                                       secret_key="testing", region="us-east-1", allow_bucket_creation=True)
            bucket.create_dir(BUCKET)
            yield bucket
    finally:
        server.stop()


class RefusingMoves(pafs.FileSystemHandler):
    """pyarrow's local filesystem, except that a move onto an existing file fails (as HDFS's rename does),
    or, with ``moves=False``, that there is no move at all (as on Azure Blob without a hierarchical namespace)."""

    def __init__(self, moves: bool = True) -> None:
        self.local, self.moves = pafs.LocalFileSystem(), moves

    def move(self, src, dest):
        if not self.moves:
            raise NotImplementedError("no move on this filesystem")
        if self.local.get_file_info(dest).type != pafs.FileType.NotFound:
            raise OSError(f"rename {src} to {dest}: the destination exists")
        self.local.move(src, dest)

    def get_type_name(self):
        return "refusing-moves"

    def normalize_path(self, path):
        return path

    def get_file_info(self, paths):
        return self.local.get_file_info(paths)

    def get_file_info_selector(self, selector):
        return self.local.get_file_info(selector)

    def create_dir(self, path, recursive):
        self.local.create_dir(path, recursive=recursive)

    def delete_dir(self, path):
        self.local.delete_dir(path)

    def delete_dir_contents(self, path, missing_dir_ok=False):
        self.local.delete_dir_contents(path, missing_dir_ok=missing_dir_ok)

    def delete_root_dir_contents(self):
        raise NotImplementedError

    def delete_file(self, path):
        self.local.delete_file(path)

    def copy_file(self, src, dest):
        self.local.copy_file(src, dest)

    def open_input_stream(self, path):
        return self.local.open_input_stream(path)

    def open_input_file(self, path):
        return self.local.open_input_file(path)

    def open_output_stream(self, path, metadata):
        return self.local.open_output_stream(path, metadata=metadata)

    def open_append_stream(self, path, metadata):
        return self.local.open_append_stream(path, metadata=metadata)


@pytest.fixture(params=["local", "arrow-local", "refusing-moves", "no-moves", "s3"])
def storage_dir(request, tmp_path):
    """The directory ``d/e`` (not made) in each kind of storage, and the local path it is at (None on S3)."""
    where = tmp_path / "d" / "e"
    if request.param == "local":
        return LocalDir(f"file://{where}"), where
    if request.param == "s3":
        request.getfixturevalue("s3")
        return open_dir(f"s3://{BUCKET}/{tmp_path.name}/d/e"), None
    filesystem = {"arrow-local": pafs.LocalFileSystem(),
                  "refusing-moves": pafs.PyFileSystem(RefusingMoves()),
                  "no-moves": pafs.PyFileSystem(RefusingMoves(moves=False))}[request.param]
    return ArrowDir(filesystem, str(where), f"file://{where}"), where


def test_a_storage_dir_reads_replaces_lists_and_deletes(storage_dir, tmp_path):
    d, where = storage_dir
    assert not d.is_dir() and d.names() == []
    d.mkdirs()
    d.mkdirs()
    assert d.is_dir()
    d.write_text("a.json", "one\n")
    d.write_text("a.json", "twö\n")  # replaced, not appended
    d.write_text("b.json", "")
    assert d.read_text("a.json") == "twö\n" and d.read_text("b.json") == ""
    assert sorted(d.names()) == ["a.json", "b.json"] and d.exists("a.json")  # no temporary file left
    d.delete("a.json")
    d.delete("a.json")  # missing is fine
    assert d.names() == ["b.json"] and not d.exists("a.json")
    with pytest.raises(FileNotFoundError, match=r"d/e/a\.json"):
        d.read_text("a.json")
    assert d.child("f").names() == [] and str(d.child("f")) == str(join(d.location, "f"))
    assert pickle.loads(pickle.dumps(d)).read_text("b.json") == ""  # foreachBatch's function ships it pickled
    if where is not None:
        assert (where / "b.json").exists()
    no_scheme_directories(tmp_path, Path.cwd())


def test_locations_pick_python_io_or_pyarrow_by_scheme_and_s3a_is_s3(s3, tmp_path):
    assert local_path("file:///a/b") == local_path("file:/a/b") == local_path("file://localhost/a/b") == Path("/a/b")
    assert isinstance(open_dir(tmp_path), LocalDir) and isinstance(open_dir(f"file://{tmp_path}"), LocalDir)
    assert isinstance(open_dir(f"file://{tmp_path}", spark=None), LocalDir)  # the old keyword is still taken
    written = open_dir(f"s3a://{BUCKET}/alias")
    assert isinstance(written, ArrowDir) and isinstance(written.filesystem, pafs.S3FileSystem)
    written.mkdirs()
    written.write_text("x.json", "{}")
    assert open_dir(f"s3://{BUCKET}/alias").read_text("x.json") == "{}"
    assert open_dir(f"s3n://{BUCKET}/alias").names() == ["x.json"]
    assert str(written.child("y")) == f"s3a://{BUCKET}/alias/y"
    assert join(f"s3://{BUCKET}/o?region=us-east-1", "q", "r") == f"s3://{BUCKET}/o/q/r?region=us-east-1"


def test_an_unknown_scheme_is_refused_listing_the_supported_ones_and_no_secret(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"no filesystem for the scheme 'wasb'.*supported schemes are: file, hdfs, "
                                         r"viewfs, s3, s3a, s3n, gs, gcs") as refused:
        open_dir(f"wasb://user:{SECRET}@container/ck")
    assert SECRET not in str(refused.value) and "wasb://user:***@container/ck" in str(refused.value)
    with pytest.raises(ValueError, match=r"pyarrow refuses the URL .*Unexpected query parameter") as refused:
        open_dir(f"s3://{BUCKET}/x?region=us-east-1&secret_key={SECRET}")
    assert SECRET not in str(refused.value)
    assert shown(f"s3://AKID:{SECRET}@b/x?session_token={SECRET}&region=r") == "s3://AKID:***@b/x?session_token=***&region=r"
    no_scheme_directories(tmp_path)


def test_a_failing_store_names_the_operation_and_the_url_never_the_secret(s3, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    missing = open_dir(f"s3://AKID:{SECRET}@no-such-bucket/ck")
    with pytest.raises(OSError, match=r"create the directory s3://AKID:\*\*\*@no-such-bucket/ck failed: ") as failed:
        missing.mkdirs()
    assert SECRET not in str(failed.value) and SECRET not in repr(missing)
    with pytest.raises(OSError, match=r"write s3://AKID:\*\*\*@no-such-bucket/ck/0\.json failed: ") as failed:
        missing.write_text("0.json", "{}")
    assert SECRET not in str(failed.value)
    with pytest.raises(OSError, match=r"open the filesystem of hdfs://127\.0\.0\.1:1/ck") as failed:
        open_dir("hdfs://127.0.0.1:1/ck")  # no namenode, and here not even libhdfs: refused at open
    assert "\n" not in str(failed.value)
    no_scheme_directories(tmp_path)


@pytest.fixture
def data(tmp_path) -> Path:
    return write_batches(tmp_path / "in", batches_of_rows(files=3, per_file=6))


@pytest.fixture
def reference(spark, data, tmp_path) -> list:
    return run(spark, data, tmp_path / "ref-ck", tmp_path / "ref-out", "ref")


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


def test_pyarrows_filesystem_carries_batch_times_outputs_and_the_store_check(spark, data, reference, tmp_path,
                                                                              monkeypatch):
    monkeypatch.setattr(storage, "LOCAL_SCHEMES", frozenset())  # file:// through pyarrow, as hdfs:// or s3://
    monkeypatch.chdir(tmp_path)
    written: list[str] = []
    original = ArrowDir.write_text

    def spy(self, name, text):
        written.append(f"{self.location}/{name}")
        original(self, name, text)

    monkeypatch.setattr(ArrowDir, "write_text", spy)
    got = run(spark, data, f"file://{tmp_path}/ack", f"file://{tmp_path}/aout", "viaarrow")
    assert got == reference and got
    assert f"file://{tmp_path}/ack/viaarrow/squall/batch-times/0.json" in written
    assert f"file://{tmp_path}/aout/viaarrow/final.jsonl" in written
    assert records_of(LocalDir(tmp_path / "aout" / "viaarrow")) == [(c, t, s) for c, t, s, _ in got]
    spark_dir = open_dir(f"file://{tmp_path}/ack/viaarrow/spark")
    assert isinstance(spark_dir, ArrowDir) and last_committed_batch(spark_dir) == 2
    # The same classes over pyarrow: a replayed batch time is read back, outputs read back in order.
    clock = BatchClock(open_dir(f"file://{tmp_path}/ack/viaarrow/squall/batch-times"), lambda: 1)
    assert clock.time_of(0, None) != 1
    files = OutputFiles(open_dir(f"file://{tmp_path}/o2"), {})
    files.write(HeldOutputs(0, [], None))
    assert list(files.records()) == []
    no_scheme_directories(tmp_path)


def _checkpoint_file_manager() -> str:
    """Spark's FileSystem-based checkpoint manager (its package moved in Spark 4.1), found in pyspark's jars."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    names = {n for jar in jars.glob("spark-sql_*.jar") for n in zipfile.ZipFile(jar).namelist()}
    for package in ("streaming/checkpointing", "streaming"):
        if f"org/apache/spark/sql/execution/{package}/FileSystemBasedCheckpointFileManager.class" in names:
            return f"org.apache.spark.sql.execution.{package.replace('/', '.')}.FileSystemBasedCheckpointFileManager"
    raise AssertionError(f"no FileSystemBasedCheckpointFileManager in {jars}")


@contextmanager
def spark_checkpoints_of_bucket_on(spark, root: Path):
    """Spark's own checkpoint under ``s3a://BUCKET/`` goes to ``root``: pyspark has no S3A client (hadoop-aws and
    the AWS SDK are not in its jars), so Hadoop's ViewFileSystemOverloadScheme mounts the bucket on a local
    directory for Spark. squall's files do not go through Spark: pyarrow writes them to the S3 server."""
    conf = {
        "fs.s3a.impl": "org.apache.hadoop.fs.viewfs.ViewFileSystemOverloadScheme",
        "fs.s3a.impl.disable.cache": "true",
        f"fs.viewfs.mounttable.{BUCKET}.linkMergeSlash": root.as_uri(),
        # FileContext has no s3a implementation here; Spark then needs its FileSystem-based manager named.
        "spark.sql.streaming.checkpointFileManagerClass": _checkpoint_file_manager(),
    }
    for key, value in conf.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key in conf:
            spark.conf.unset(key)


def test_a_run_on_s3_writes_batch_times_and_outputs_to_the_bucket(spark, s3, data, reference, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    prefix = f"{BUCKET}/{tmp_path.name}"
    with spark_checkpoints_of_bucket_on(spark, tmp_path / "spark-side"):
        got = run(spark, data, f"s3a://{prefix}/ck", f"s3://{prefix}/out", "ons3")
    assert got == reference and got
    times = s3.get_file_info(pafs.FileSelector(f"{prefix}/ck/ons3/squall/batch-times"))
    assert sorted(info.base_name for info in times) == ["0.json", "1.json", "2.json"]
    assert records_of(open_dir(f"s3://{prefix}/out/ons3")) == [(c, t, s) for c, t, s, _ in got]
    # Spark wrote its checkpoint through Hadoop (here a local stand-in); squall wrote nothing there.
    assert (tmp_path / "spark-side" / tmp_path.name / "ck" / "ons3" / "spark" / "commits").is_dir()
    assert not (tmp_path / "spark-side" / tmp_path.name / "ck" / "ons3" / "squall").exists()
    clock = BatchClock(open_dir(f"s3a://{prefix}/ck/ons3/squall/batch-times"), lambda: 1)
    assert clock.time_of(2, None) == json.loads(open_dir(f"s3://{prefix}/ck/ons3/squall/batch-times")
                                                .read_text("2.json"))["time_ms"] != 1
    no_scheme_directories(tmp_path)


def test_an_unopenable_hdfs_fails_at_submit_naming_the_path_and_creates_no_local_directory(spark, data, tmp_path,
                                                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = SparkRunner(spark, checkpoint_location="hdfs://127.0.0.1:1/squall/ck", clock=counting_clock())
    with pytest.raises(OSError, match=r"hdfs://127\.0\.0\.1:1/squall/ck/nonn/"):
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
