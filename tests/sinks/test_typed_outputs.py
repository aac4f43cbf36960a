"""Typed columns of a terminal stream: DDL types, inference pinned once, and misfits named."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bolts import Fields
from topologies.sinks.typed_outputs import StreamTypes, ddl_of, infer_type, parse_schema, parse_type
from windowing.panes import PaneInfo

SIMPLE = ["boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "string", "binary", "date",
          "timestamp", "timestamp_ntz", "decimal(10,2)"]


def types() -> st.SearchStrategy[str]:
    simple = st.sampled_from(SIMPLE)
    return st.recursive(simple, lambda inner: st.one_of(
        inner.map(lambda t: f"array<{t}>"),
        inner.map(lambda t: f"map<string,{t}>"),
        st.lists(inner, min_size=1, max_size=3).map(
            lambda ts: "struct<" + ",".join(f"`f{i}`:{t}" for i, t in enumerate(ts)) + ">")), max_leaves=6)


@given(types())
def test_every_ddl_type_goes_to_arrow_and_back(ddl):
    assert ddl_of(parse_type(ddl)) == ddl


def test_a_schema_is_read_from_ddl_a_struct_or_an_arrow_schema():
    expected = [("word", pa.string()), ("count", pa.int64()), ("avg", pa.decimal128(10, 2))]
    assert parse_schema("word STRING, count BIGINT, avg DECIMAL(10, 2)") == expected
    assert parse_schema("struct<word:string,count:bigint,avg:decimal(10,2)>") == expected
    assert parse_schema(pa.schema(expected)) == expected
    assert parse_schema("`odd name` string") == [("odd name", pa.string())]


@pytest.mark.parametrize(("schema", "message"), [
    ("word strng", "unknown type 'strng'"),
    ("word string, word bigint", "a field is named twice"),
    ("count decimal(40,2)", "out of range"),
    ("values array<bigint", "expected >"),
])
def test_a_bad_schema_is_refused_naming_it(schema, message):
    with pytest.raises(ValueError, match="TableSink: `schema`") as err:
        parse_schema(schema, "TableSink: `schema`")
    assert message in str(err.value)


def test_values_infer_their_spark_types():
    assert infer_type(True) == pa.bool_()
    assert infer_type(3) == pa.int64()
    assert infer_type(1.5) == pa.float64()
    assert infer_type(datetime(2026, 1, 1, tzinfo=UTC)) == pa.timestamp("us", tz="UTC")
    assert infer_type(date(2026, 1, 1)) == pa.date32()
    assert infer_type(Decimal("1.5")) == pa.decimal128(38, 18)
    assert infer_type([1, None, 2]) == pa.list_(pa.int64())
    assert infer_type({"a": 1.0}) == pa.map_(pa.string(), pa.float64())
    with pytest.raises(TypeError, match="object has no column type"):
        infer_type(object())


def test_a_type_is_pinned_by_the_first_value_and_nulls_do_not_change_it():
    columns = StreamTypes("counter", "default", ["word", "count"])
    assert columns.observe([["a", None]])
    assert columns.schema().field("count").type == pa.string()  # unknown so far: written as string if it stays so
    assert columns.observe([["b", 3]])
    assert not columns.observe([["c", None]])  # a batch of nulls changes nothing
    assert columns.schema() == pa.schema([("word", pa.string()), ("count", pa.int64())])
    table = columns.table([["d", 4], ["e", None]])
    assert table.column("count").to_pylist() == [4, None]


def test_a_value_of_another_type_fails_naming_the_bolt_stream_field_and_value():
    columns = StreamTypes("counter", "totals", ["word", "count"])
    columns.observe([["a", 3]])
    with pytest.raises(TypeError, match=r"bolt 'counter', stream 'totals', field 'count': the value 2.5 \(float\)"):
        columns.observe([["b", 2.5]])
    with pytest.raises(TypeError, match="field 'count'"):
        columns.table([["b", "three"]])


def test_a_field_settled_while_unknown_is_string_and_stays_so():
    columns = StreamTypes("c", "default", ["x"])
    columns.observe([[None]])
    assert columns.settle()
    with pytest.raises(TypeError, match=r"field 'x'.*is not string"):
        columns.observe([[1]])


def test_given_types_convert_as_arrow_does_and_name_a_misfit():
    columns = StreamTypes("printer", "default", ["source", "value"], {"value": pa.float64()})
    table = columns.table([["slidingsum", 3], ["tumblingavg", 2.5]])
    assert table.column("value").type == pa.float64() and table.column("value").to_pylist() == [3.0, 2.5]
    with pytest.raises(TypeError, match=r"field 'value': the value 'x' \(str\) does not fit the column's type double"):
        columns.table([["slidingsum", "x"]])


def test_a_tuple_the_store_gives_back_as_a_list_is_read_as_the_struct_known():
    columns = StreamTypes("agg", "default", ["pane", "pair"])
    columns.observe([[PaneInfo("ON_TIME", 0, 0, False), ("a", 1)]])
    columns.observe([[["LATE", 1, 1, True], ["b", 2]]])  # a replay re-sends committed emissions, tuples as lists
    table = columns.table([[["LATE", 1, 1, True], ["b", 2]]])
    assert table.column("pane").to_pylist() == [
        {"timing": "LATE", "index": 1, "nonspeculative_index": 1, "is_last": True}]
    assert table.column("pair").to_pylist() == [{"_1": "b", "_2": 2}]
    first_replayed = StreamTypes("agg", "default", ["pane"])  # a list first, then the named tuple: one struct
    first_replayed.observe([[["LATE", 1, 1, True]]])
    first_replayed.observe([[PaneInfo("ON_TIME", 0, 0, False)]])
    assert [f.name for f in first_replayed.pinned["pane"]] == list(PaneInfo._fields)


def test_a_value_with_no_column_type_is_named():
    with pytest.raises(TypeError, match=r"field 'v': the value \{1\} has no column type"):
        StreamTypes("c", "default", ["v"]).observe([[{1}]])


def test_a_row_of_the_wrong_width_names_the_stream():
    with pytest.raises(TypeError, match="stream 'default': 1 values"):
        StreamTypes("c", "default", ["a", "b"]).table([[1]])


def test_fields_carry_types_checked_when_declared():
    fields = Fields("word", "count", types={"count": "bigint"})
    assert fields.types == {"count": "bigint"} and fields == Fields("word", "count")
    with pytest.raises(ValueError, match="`types` names 'cnt', which is not one of the fields"):
        Fields("word", "count", types={"cnt": "bigint"})
    with pytest.raises(ValueError, match="Fields: the type of 'count': unknown type 'bigin'"):
        Fields("word", "count", types={"count": "bigin"})
