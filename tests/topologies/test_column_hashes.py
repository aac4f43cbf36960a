"""Spark's hash over whole Arrow columns equals the hash of each row's Python values."""

from __future__ import annotations

import math

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import Fields
from topologies.groupings import FieldsGrouping, fields_task
from topologies.spark_hash import column_hashes, spark_hash

INTEGER_TYPES = {
    pa.int8(): (-(2**7), 2**7 - 1), pa.int16(): (-(2**15), 2**15 - 1), pa.int32(): (-(2**31), 2**31 - 1),
    pa.int64(): (-(2**63), 2**63 - 1), pa.uint8(): (0, 2**8 - 1), pa.uint16(): (0, 2**16 - 1),
    pa.uint32(): (0, 2**32 - 1), pa.uint64(): (0, 2**64 - 1),
}


@st.composite
def columns(draw, rows: int) -> pa.Array:
    """A column of ``rows`` values of one type column_hashes takes, nulls among them."""
    kind = draw(st.sampled_from([*INTEGER_TYPES, pa.bool_(), pa.float32(), pa.float64()]))
    if kind in INTEGER_TYPES:
        low, high = INTEGER_TYPES[kind]
        values = st.integers(low, high) | st.sampled_from([low, high, 0, -1 if low else 1])
    elif kind == pa.bool_():
        values = st.booleans()
    else:
        values = st.floats(width=32 if kind == pa.float32() else 64) | st.sampled_from([0.0, -0.0, math.nan])
    return pa.array(draw(st.lists(st.none() | values, min_size=rows, max_size=rows)), kind)


@st.composite
def keys(draw) -> list[pa.Array]:
    rows = draw(st.integers(0, 30))
    return [draw(columns(rows)) for _ in range(draw(st.integers(1, 3)))]


@settings(max_examples=300, deadline=None)
@given(keys(), st.integers(1, 4))
def test_each_rows_hash_is_the_hash_of_its_python_values(key_columns, chunks):
    if chunks > 1 and len(key_columns[0]) > 1:  # several chunks, as a table from Spark holds
        step = max(1, len(key_columns[0]) // chunks)
        key_columns = [pa.chunked_array([c.slice(i, step) for i in range(0, len(c), step)], c.type)
                       for c in key_columns]
    rows = list(zip(*(c.to_pylist() for c in key_columns), strict=True))
    assert column_hashes(key_columns).tolist() == [spark_hash(row) for row in rows]


def test_columns_of_other_types_are_left_to_the_python_hash():
    ints = pa.array([1, 2])
    for other in (pa.array(["a", "b"]), pa.array([1, 2], pa.timestamp("us", "UTC")), pa.array([b"a", b"b"])):
        assert column_hashes([ints, other]) is None
    with pytest.raises(ValueError, match="column_hashes: no columns to hash"):
        column_hashes([])


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_a_fields_grouping_on_numbers_sends_each_row_to_its_fields_task(n):
    table = pa.table({"k": pa.array([5, None, -3, 5, 2**62], pa.int64()), "x": pa.array([0.5, -0.0, None, 0.5, 1e300]),
                      "v": list(range(5))})
    parts = FieldsGrouping(Fields("k", "x")).split(table, Fields("k", "x", "v"), n, 0)
    got = {v: task for task, part in enumerate(parts) for v in part.column("v").to_pylist()}
    assert got == {v: fields_task([k, x], n) for k, x, v in zip(*(table.column(c).to_pylist() for c in "kxv"),
                                                                 strict=True)}
