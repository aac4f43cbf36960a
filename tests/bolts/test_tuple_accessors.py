"""Storm's typed getters on a squall Tuple: Java's casts, as a TypeError naming the getter, the field and the value."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bolts import Fields, Tuple

KINDS = ("string", "integer", "long", "short", "byte", "double", "float", "boolean", "binary")
RANGES = {"integer": 2**31, "long": 2**63, "short": 2**15, "byte": 2**7}


def tuple_of(*values):
    return Tuple(list(values), Fields(*(f"f{i}" for i in range(len(values)))), "counts", "splitter", 3)


def accepted(kind: str, value) -> bool:
    """What Java's cast (and for double/float, Python's int-as-number) would take: the test's own statement."""
    if value is None:
        return True
    if kind == "string":
        return type(value) is str
    if kind in RANGES:
        return type(value) is int and -RANGES[kind] <= value < RANGES[kind]
    if kind in ("double", "float"):
        return type(value) in (int, float)
    if kind == "boolean":
        return type(value) is bool
    return type(value) in (bytes, bytearray)


VALUES = st.one_of(st.none(), st.text(max_size=5), st.integers(min_value=-(2**70), max_value=2**70), st.booleans(),
                   st.floats(allow_nan=False), st.binary(max_size=4), st.lists(st.integers(), max_size=2))


@given(value=VALUES, kind=st.sampled_from(KINDS))
@example(value=2**7 - 1, kind="byte").via("the top of Java's byte")
@example(value=2**7, kind="byte").via("one past it")
@example(value=-(2**15), kind="short").via("the bottom of Java's short")
@example(value=-(2**15) - 1, kind="short").via("one below it")
@example(value=2**31 - 1, kind="integer").via("the top of Java's int")
@example(value=2**31, kind="integer").via("one past it")
@example(value=-(2**63), kind="long").via("the bottom of Java's long")
@example(value=2**63, kind="long").via("one past the top")
@example(value=bytearray(b"ab"), kind="binary").via("a bytearray comes back as bytes")
def test_each_getter_takes_what_javas_cast_takes_and_names_the_field_otherwise(value, kind):
    t = tuple_of("x", value)
    by_index, by_field = getattr(t, f"get_{kind}"), getattr(t, f"get_{kind}_by_field")
    if accepted(kind, value):
        got = by_index(1)
        assert got == by_field("f1")
        if value is not None and kind in ("double", "float"):
            assert type(got) is float and got == float(value)
        elif value is not None:
            assert got == value
            if kind == "binary":
                assert type(got) is bytes
    else:
        with pytest.raises(TypeError, match=rf"^Tuple\.get_{kind}\(1\): the value .* is not "):
            by_index(1)
        with pytest.raises(TypeError, match=rf"^Tuple\.get_{kind}_by_field\('f1'\): the value .*splitter:counts"):
            by_field("f1")


def test_the_source_and_the_shape_as_storm_names_them():
    t = tuple_of("the", 2, 0.5)
    assert t.get_source_component() == "splitter"
    assert t.get_source_stream_id() == "counts"
    assert t.get_source_task() == 3
    assert t.get_source_global_stream_id() == ("splitter", "counts")
    assert t.get_values() == ["the", 2, 0.5] and t.size() == 3
    assert t.get_fields() == Fields("f0", "f1", "f2")
    assert t.field_index("f2") == 2
    assert t.select(Fields("f2", "f0")) == [0.5, "the"]
    assert t.get_value(1) == t.get_value_by_field("f1") == 2


def test_a_missing_field_or_position_says_which_fields_there_are():
    t = tuple_of("the")
    with pytest.raises(KeyError, match=r"no field 'word'; the fields are: f0"):
        t.get_string_by_field("word")
    with pytest.raises(KeyError, match=r"no field 'word'"):
        t.field_index("word")
    with pytest.raises(IndexError):
        t.get_string(4)


def test_a_getter_takes_a_position_or_a_field_name_as_java_does_not_both():
    t = tuple_of("the", 2)
    with pytest.raises(TypeError, match=r"^Tuple\.get_string\(.f0.\): a position must be an int; .*by_field"):
        t.get_string("f0")
    with pytest.raises(TypeError, match=r"^Tuple\.get_long_by_field\(1\): a field name must be a str"):
        t.get_long_by_field(1)
    with pytest.raises(IndexError, match=r"^Tuple\.get_string\(-1\): no position -1; the tuple has 2 values"):
        t.get_string(-1)
    with pytest.raises(TypeError, match=r"Fields\('f0'\), not a str"):
        t.select("f0")


def test_get_value_takes_a_position_from_zero_as_java_does():
    from bolts import Fields, Tuple

    t = Tuple([1, "a"], Fields("n", "s"))
    assert t.get_value(1) == "a"
    with pytest.raises(IndexError, match=r"Tuple.get_value\(-1\): no position -1; the tuple has 2 values"):
        t.get_value(-1)
    with pytest.raises(TypeError, match=r"Tuple.get_value\('s'\): a position must be an int"):
        t.get_value("s")
