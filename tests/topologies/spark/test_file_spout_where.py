"""FileSpout(where=...): only the rows the predicate keeps become tuples, filtered in Spark's scan.

A Parquet spout's predicate reaches the scan as a pushed filter (in the plan of
the micro-batch that read it); a JSON spout's malformed records still go to its
error stream whatever the predicate; a predicate Spark refuses fails the submit
with a message naming `where`, and a predicate that is not a str fails at once.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout

EVENTS = [("bid", 1_000, 5), ("person", 2_000, 6), ("bid", 3_000, 7), ("auction", 4_000, 8), ("bid", None, 9)]


def outputs_of(spark, tmp_path, name: str, spout: FileSpout) -> list[tuple[str, list]]:
    builder = TopologyBuilder()
    builder.set_spout("events", spout)
    handle = SparkRunner(spark, checkpoint_location=tmp_path / f"ck-{name}").submit(name, builder.create_topology(),
                                                                                   available_now=True)
    assert handle.await_termination(120)
    return [(out.stream, out.values) for out in handle.outputs()]


def test_a_parquet_spout_reads_only_the_rows_where_holds_and_spark_pushes_it_into_the_scan(spark, tmp_path, capsys):
    data = tmp_path / "events"
    data.mkdir()
    kinds, ts, values = zip(*EVENTS, strict=True)
    pq.write_table(pa.table({"kind": kinds, "ts": pa.array(ts, pa.int64()), "value": values}), data / "part.parquet")
    spout = FileSpout(data, "parquet", ("ts", "value"), schema="kind STRING, ts BIGINT, value BIGINT",
                      where="kind = 'bid' AND ts > 0")

    # The field the predicate reads need not be declared; the NULL ts row is dropped, as by SQL's WHERE.
    assert outputs_of(spark, tmp_path, "where_parquet", spout) == [("default", [1_000, 5]), ("default", [3_000, 7])]

    query = spout.dataframe(spark).writeStream.format("memory").queryName("where_plan").trigger(
        availableNow=True).option("checkpointLocation", str(tmp_path / "ck-plan")).start()
    try:
        query.awaitTermination(120)
        capsys.readouterr()
        query.explain()
        plan = capsys.readouterr().out
    finally:
        query.stop()
    assert "PushedFilters: [IsNotNull(kind), IsNotNull(ts), EqualTo(kind,bid), GreaterThan(ts,0)]" in plan, plan


def test_malformed_json_records_reach_the_error_stream_whatever_the_predicate(spark, tmp_path):
    data = tmp_path / "events"
    data.mkdir()
    lines = ['{"kind": "bid", "ts": 1000, "value": 5}', '{"kind": "person", "ts": 2000, "value": 6}',
             '{"kind": "bid", "ts": ', '{"kind": "bid", "ts": "soon", "value": 8}']
    (data / "part.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    spout = FileSpout(data, "json", ("kind", "ts", "value"), schema="kind STRING, ts BIGINT, value BIGINT",
                      where="kind = 'bid'")

    outputs = outputs_of(spark, tmp_path, "where_json", spout)
    assert [values for stream, values in outputs if stream == "default"] == [["bid", 1_000, 5]]
    assert [values[0] for stream, values in outputs if stream == "errors"] == [lines[2], lines[3]]


def test_a_predicate_spark_refuses_fails_the_submit_naming_where_and_the_columns(spark, tmp_path):
    (tmp_path / "events").mkdir()
    spout = FileSpout(tmp_path / "events", "json", ("ts",), schema="kind STRING, ts BIGINT", where="no_such = 1")
    builder = TopologyBuilder()
    builder.set_spout("events", spout)
    with pytest.raises(ValueError, match=r"FileSpout: `where` must be a boolean Spark SQL predicate over the "
                                         r"files' columns \(kind, ts\); got 'no_such = 1', which Spark refuses"):
        SparkRunner(spark, checkpoint_location=tmp_path / "ck").submit("where_bad", builder.create_topology(),
                                                                       available_now=True)
    with pytest.raises(ValueError, match="got 'ts', which Spark refuses"):  # a BIGINT is not a predicate
        FileSpout(tmp_path / "events", "json", ("ts",), schema="kind STRING, ts BIGINT", where="ts").dataframe(spark)


@pytest.mark.parametrize(("where", "error"), [(3, TypeError), ("  ", ValueError)])
def test_a_where_that_is_not_a_predicate_string_fails_when_the_spout_is_made(where, error, tmp_path):
    with pytest.raises(error, match=r"FileSpout: `where` must be a Spark SQL predicate .*such as \"kind = 'bid'\""):
        FileSpout(tmp_path, "json", ("ts",), where=where)
