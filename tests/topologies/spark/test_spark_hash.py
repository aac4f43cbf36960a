"""The fields grouping's hash is Spark's own: Python's ``spark_hash`` equals Spark's ``hash()`` for every key type.

So a spout's rows, whose task Spark computes in the plan, and a bolt's
emissions, whose task Python computes, send each key to the same task.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topologies.groupings import FieldsGrouping, fields_task
from topologies.spark_hash import hashes_in_plan, key_hash_column, spark_hash

INTS = [0, 1, -1, 4, 42, 2**31 - 1, -(2**31), 2**40 + 7, -(2**63), 2**63 - 1]
FLOATS = [0.0, -0.0, 1.5, -2.25, 1e300, math.inf, -math.inf, math.nan, 0.1]
STRINGS = ["", "a", "ab", "abc", "abcd", "abcde", "k17", "héllo wörld", "日本語のキー", "\x00\x7f\xff", "x" * 33]
DATES = [date(1970, 1, 1), date(1969, 12, 31), date(2026, 11, 27), date(1, 1, 1)]
TIMES = [datetime(1970, 1, 1, tzinfo=UTC), datetime(2026, 11, 27, 23, 38, 44, 123456, tzinfo=UTC),
         datetime(1969, 7, 20, 20, 17, 40, 1, tzinfo=UTC)]


def spark_hashes(spark, rows, ddl):
    from pyspark.sql.types import _parse_datatype_string

    df = spark.createDataFrame(rows, ddl)
    schema = _parse_datatype_string(ddl)
    column = key_hash_column([(f.name, f.dataType) for f in schema.fields])
    return [r[0] for r in df.select(column).collect()]


@pytest.mark.parametrize(("ddl", "values"), [
    ("v bigint", INTS), ("v int", [0, 1, -1, 4, 2**31 - 1, -(2**31)]), ("v smallint", [0, -5, 300]),
    ("v tinyint", [0, -5, 100]), ("v boolean", [True, False]), ("v double", FLOATS),
    ("v float", [0.0, 1.5, -2.25, 0.1]), ("v string", STRINGS), ("v binary", [s.encode("utf-8") for s in STRINGS]),
    ("v date", DATES), ("v timestamp", TIMES),
], ids=lambda x: x if isinstance(x, str) else "")
def test_each_key_type_hashes_as_spark_hashes_it(spark, ddl, values):
    rows = [(v,) for v in values] + [(None,)]
    got = spark_hashes(spark, rows, ddl)
    # The values as the batch brings them back to Python (a float column's values are float32's as doubles).
    back = [r[0] for r in spark.createDataFrame(rows, ddl).collect()]
    assert [spark_hash([v]) for v in back] == got


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=12), st.integers(-(2**63), 2**63 - 1),
                          st.one_of(st.none(), st.floats(allow_nan=False))), min_size=1, max_size=30))
def test_a_key_of_several_columns_hashes_as_spark_chains_them(spark, rows):
    got = spark_hashes(spark, rows, "s string, n bigint, f double")
    assert [spark_hash(list(r)) for r in rows] == got


def test_a_fields_grouping_picks_the_task_spark_picks_in_a_plan(spark):
    from pyspark.sql import functions as F

    keys = [(f"key-{i}", i % 7) for i in range(200)]
    df = spark.createDataFrame(keys, "k string, m bigint")
    for n in (1, 2, 3, 8):
        column = F.pmod(key_hash_column([(f.name, f.dataType) for f in df.schema.fields]), F.lit(n))
        assert [r[0] for r in df.select(column).collect()] == [fields_task(list(k), n) for k in keys]
    split = FieldsGrouping(["k", "m"]).split(df.toArrow(), ["k", "m"], 3, 0)  # the driver placement's, on columns
    assert sorted(len(s) for s in split) == sorted(sum(fields_task(list(k), 3) == t for k in keys) for t in range(3))


def test_the_types_spark_cannot_hash_as_squall_are_known(spark):
    from pyspark.sql.types import _parse_datatype_string

    schema = _parse_datatype_string("a decimal(10, 2), b timestamp_ntz, c array<int>, d bigint, e string")
    assert [hashes_in_plan(f.dataType) for f in schema.fields] == [False, False, False, True, True]
    with pytest.raises(ValueError, match="Spark cannot hash column 'a' of type decimal"):
        key_hash_column([("a", schema.fields[0].dataType)])


def test_values_of_other_kinds_hash_by_their_stable_text():
    assert fields_task([(1, 2)], 7) == fields_task([(1, 2)], 7)
    assert spark_hash([timedelta(seconds=1)]) == spark_hash([timedelta(seconds=1)])
