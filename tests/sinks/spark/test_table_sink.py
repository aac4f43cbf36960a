"""TableSink: each batch's rows of a stream to a table through Spark's writer, typed, once per batch id."""

from __future__ import annotations

import random
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from bolts import BaseBolt, Fields
from tests.topologies.helpers import counting_clock, write_batches
from topologies import SparkRunner, TopologyBuilder
from topologies.engine.run import RunSpec, build_loop
from topologies.examples import sliding_window
from topologies.sinks import TableSink
from topologies.spouts import FileSpout

README_SCHEMA = "source string, value double"


def test_a_sink_names_what_is_wrong_with_its_settings():
    with pytest.raises(ValueError, match="give exactly one of `path` and `table`"):
        TableSink("printer")
    with pytest.raises(ValueError, match="give exactly one of `path` and `table`"):
        TableSink("printer", path="/tmp/x", table="t")
    with pytest.raises(ValueError, match="TableSink: `stream`: a stream is named 'component' or 'component:stream'"):
        TableSink("a:b:c", path="/tmp/x")
    with pytest.raises(ValueError, match="`partition_by` need not name 'batch_id'"):
        TableSink("printer", path="/tmp/x", partition_by=["batch_id"])
    with pytest.raises(ValueError, match="TableSink: `schema`: unknown type 'dbl'"):
        TableSink("printer", path="/tmp/x", schema="source string, value dbl")
    with pytest.raises(ValueError, match="`schema` must not name 'batch_id'"):
        TableSink("printer", path="/tmp/x", schema="batch_id bigint")
    with pytest.raises(TypeError, match="`sinks` holds 'printer', which is not a sink"):
        SparkRunner(None, checkpoint_location="/tmp/x", sinks=["printer"])  # type: ignore[arg-type,list-item]


def readme_topology(tmp_path: Path):
    data = tmp_path / "data"
    sliding_window.generate(data, random.Random(42))
    return sliding_window.build_topology(str(data))


def printed(outputs) -> list[tuple[Any, ...]]:
    return sorted((o.values[0], float(o.values[1])) for o in outputs if o.component == "printer")


def test_the_readme_windows_reach_a_parquet_table_as_typed_columns(spark, tmp_path):
    sink = TableSink("printer", path=str(tmp_path / "windows"), schema=README_SCHEMA)
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck", sinks=[sink], clock=counting_clock())
    handle = runner.submit("readme-table", readme_topology(tmp_path), available_now=True)
    assert handle.await_termination(300)
    table = spark.read.parquet(str(tmp_path / "windows"))
    assert [(f.name, f.dataType.simpleString()) for f in table.schema.fields] == [
        ("source", "string"), ("value", "double"), ("batch_id", "int")]
    rows = table.collect()
    assert sorted((r.source, r.value) for r in rows) == printed(handle.outputs())
    assert {r.batch_id for r in rows} == set(range(5))  # one partition per batch that had windows


def echo_executor(spark, tmp_path: Path, sink: TableSink):
    """A driver-mode executor of spout -> Echo with ``sink``, run batch by batch in this process."""
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(tmp_path / "unused", "json", ("key", "ts", "value"),
                                    schema="key STRING, ts BIGINT, value BIGINT"))
    b.set_bolt("echo", Echo()).shuffle_grouping("events")
    spec = RunSpec(name=f"echo-{uuid.uuid4().hex[:6]}", topology=b.create_topology(), mode="driver",
                   state="memory://", checkpoint_location=tmp_path / "ck", clock=counting_clock(), sinks=(sink,))
    return build_loop(spec, spark=spark)


def test_a_replayed_batch_replaces_its_partition_and_the_flush_replaces_the_last_flush(spark, tmp_path):
    rows = [[k, 1_000 * i, i] for i in range(6) for k in ("a", "b")]
    executor = echo_executor(spark, tmp_path, TableSink("echo", path=str(tmp_path / "t"), format="json"))
    executor.run(0, {"events": []})  # a first batch without rows pins no type (a string here would stay)
    executor.run(1, {"events": rows[:6]})
    executor.run(1, {"events": rows[:6]})  # Spark runs it again
    executor.run(2, {"events": rows[6:]})
    executor.flush()
    written = spark.read.json(str(tmp_path / "t"))
    assert sorted((r.batch_id, r.key, r.value) for r in written.collect()) == sorted(
        [(1, k, v) for k, _, v in rows[:6]] + [(2, k, v) for k, _, v in rows[6:]])
    assert dict(written.dtypes) == {"key": "string", "value": "bigint", "batch_id": "int"}


def test_declared_field_types_make_the_columns_and_convert_the_values(spark, tmp_path):
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(tmp_path / "unused", "json", ("key", "ts", "value"),
                                    schema="key STRING, ts BIGINT, value BIGINT"))
    b.set_bolt("echo", TypedEcho()).shuffle_grouping("events")
    sink = TableSink("echo", path=str(tmp_path / "t"))
    spec = RunSpec(name="typed", topology=b.create_topology(), mode="driver", state="memory://",
                   checkpoint_location=tmp_path / "ck", clock=counting_clock(), sinks=(sink,))
    build_loop(spec, spark=spark).run(0, {"events": [["a", 0, 1], ["b", 0, 2]]})
    written = spark.read.parquet(str(tmp_path / "t"))
    assert dict(written.dtypes)["value"] == "double"
    assert sorted((r.key, r.value) for r in written.collect()) == [("a", 1.0), ("b", 2.0)]


def test_inferred_types_are_kept_in_the_store_for_the_next_process(spark, tmp_path):
    sink = TableSink("echo", path=str(tmp_path / "t"))
    first = echo_executor(spark, tmp_path, sink)
    first.run(0, {"events": [["a", 0, 1]]})
    # A new executor over the same store (as a new driver process): it reads the pinned types back.
    spec = RunSpec(name=first.name, topology=first.topology, mode="driver", state="memory://",
                   checkpoint_location=tmp_path / "ck", clock=counting_clock(), sinks=(sink,))
    second = build_loop(spec, backend=first.backend, spark=spark)
    second.run(1, {"events": [["n", 0, None]]})  # only nulls: the column stays bigint, as the store says
    assert second.sinks.types.of("echo:default").pinned["value"] == pa.int64()
    written = spark.read.parquet(str(tmp_path / "t"))
    assert dict(written.dtypes)["value"] == "bigint"
    assert sorted((r.batch_id, r.key, r.value) for r in written.collect()) == [(0, "a", 1), (1, "n", None)]


def test_an_existing_table_not_partitioned_by_batch_id_is_refused_not_overwritten(spark, tmp_path):
    table = f"squall_flat_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE TABLE {table} (key string, value bigint, batch_id bigint) USING parquet")
    spark.sql(f"INSERT INTO {table} VALUES ('kept', 1, 7)")
    try:
        executor = echo_executor(spark, tmp_path, TableSink("echo", table=table))
        with pytest.raises(ValueError, match=rf"the table '{table}' is partitioned by \[\]; .* needs \['batch_id'\]"):
            executor.run(0, {"events": [["a", 0, 1]]})
        assert [tuple(r) for r in spark.table(table).collect()] == [("kept", 1, 7)]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table}")


class Echo(BaseBolt):
    def execute(self, input):
        self.collector.emit([input["key"], input["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "value"))


class TypedEcho(Echo):
    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "value", types={"value": "double"}))


class Sometimes(BaseBolt):
    """Emits ``value`` as it is, None for key "n", and a str for key "s": the last is a type the column cannot take."""

    def execute(self, input):
        value = {"n": None, "s": "text"}.get(input["key"], input["value"])
        self.collector.emit([input["key"], value])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "value"))


def sometimes_topology(tmp_path: Path, batches: list[list[str]]):
    write_batches(tmp_path / "in", [[{"key": k, "ts": i, "value": i} for i, k in enumerate(keys)] for keys in batches])
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(tmp_path / "in", "json", ("key", "ts", "value"),
                                    schema="key STRING, ts BIGINT, value BIGINT", max_files_per_trigger=1))
    b.set_bolt("sometimes", Sometimes()).shuffle_grouping("events")
    return b.create_topology()


@pytest.mark.parametrize("mode", ["driver", "distributed"])
def test_inferred_types_hold_through_null_batches_and_a_misfit_fails_naming_it(mode, spark, tmp_path, redis_url):
    state = "memory://" if mode == "driver" else redis_url
    name = f"types-{mode}-{uuid.uuid4().hex[:6]}"
    topology = sometimes_topology(tmp_path, [["a", "b"], ["n", "n"], ["c"]])
    sink = TableSink("sometimes", path=str(tmp_path / "t"))
    runner = SparkRunner(spark, mode=mode, state=state, checkpoint_location=tmp_path / "ck", sinks=[sink])
    handle = runner.submit(name, topology, available_now=True)
    assert handle.await_termination(300)
    table = spark.read.parquet(str(tmp_path / "t"))
    assert dict(table.dtypes)["value"] == "bigint"  # the batch of nulls did not make it string
    if mode == "driver":  # the handle's typed view of the same outputs
        held = handle.output_table("sometimes")
        assert held.schema.types == [pa.string(), pa.int64()]
        assert held.column("value").to_pylist() == [0, 1, None, None, 0]
    assert sorted((r.batch_id, r.key, r.value) for r in table.collect()) == [
        (0, "a", 0), (0, "b", 1), (1, "n", None), (1, "n", None), (2, "c", 0)]

    bad = sometimes_topology(tmp_path / "bad", [["a"], ["s"]])
    runner = SparkRunner(spark, mode=mode, state=state, checkpoint_location=tmp_path / "ck-bad",
                         sinks=[TableSink("sometimes", path=str(tmp_path / "bad-t"))])
    handle = runner.submit(f"{name}-bad", bad, available_now=True)
    with pytest.raises(Exception, match=r"bolt 'sometimes', stream 'default', field 'value'.*'text'|"
                                        r"bolt 'sometimes', stream 'default', field 'value'.*string"):
        handle.await_termination(300)


def test_a_sink_of_a_stream_the_topology_lacks_is_refused_at_submit(spark, tmp_path):
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck",
                         sinks=[TableSink("printr", path=str(tmp_path / "t"))])
    with pytest.raises(ValueError, match=r"TableSink 'printr:default': the topology has no stream 'printr:default'; "
                                         r"its terminal streams are \['printer:default'\]"):
        runner.submit("missing", readme_topology(tmp_path), available_now=True)
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck2",
                         sinks=[TableSink("printer", path=str(tmp_path / "t"), schema="source string")])
    with pytest.raises(ValueError, match=r"the schema names \['source'\]; the fields of 'printer:default' are"):
        runner.submit("schema", readme_topology(tmp_path), available_now=True)
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck3",
                         sinks=[TableSink("integer", path=str(tmp_path / "t"))])
    with pytest.raises(ValueError, match=r"'integer:default' is a spout's stream; a sink takes a bolt's"):
        runner.submit("spout", readme_topology(tmp_path), available_now=True)


def test_a_catalog_table_is_created_then_written_a_batch_at_a_time(spark, tmp_path):
    table = f"squall_windows_{uuid.uuid4().hex[:8]}"
    sink = TableSink("printer", table=table, schema=README_SCHEMA, options={"compression": "zstd"})
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck", sinks=[sink], clock=counting_clock())
    handle = runner.submit("catalog", readme_topology(tmp_path), available_now=True)
    assert handle.await_termination(300)
    try:
        written = spark.table(table)
        assert dict(written.dtypes) == {"source": "string", "value": "double", "batch_id": "bigint"}
        assert sorted((r.source, r.value) for r in written.collect()) == printed(handle.outputs())
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table}")


def test_output_dir_records_keep_their_types_when_spark_reads_them(spark, tmp_path):
    runner = SparkRunner(spark, checkpoint_location=tmp_path / "ck", output_dir=tmp_path / "out")
    handle = runner.submit("records", sometimes_topology(tmp_path, [["a", "b"], ["c"]]), available_now=True)
    assert handle.await_termination(300)
    read = spark.read.json(str(tmp_path / "out" / "records"))
    assert read.select("fields.*").dtypes == [("key", "string"), ("value", "bigint")]
    assert sorted(tuple(r) for r in read.select("fields.key", "fields.value").collect()) == [
        ("a", 0), ("b", 1), ("c", 0)]
