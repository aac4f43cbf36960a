"""A bolt's attributes as stored state: exact round trips, what is refused, incremental writes, restore."""

from __future__ import annotations

import re
from collections import Counter, OrderedDict, defaultdict, deque
from datetime import UTC
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bolts import Fields, Tuple
from bolts.instance_fields import FIELD_PREFIX, InstanceFields, decode_field, encode_field

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), st.floats(allow_nan=False), st.text(max_size=8),
    st.binary(max_size=8), st.datetimes(timezones=st.just(UTC)), st.dates(), st.timedeltas(),
    st.decimals(allow_nan=False, allow_infinity=False, places=3),
)
hashable = st.recursive(scalars.filter(lambda v: not isinstance(v, Decimal)),
                        lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3), max_leaves=6)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.tuples(inner, inner), st.dictionaries(hashable, inner, max_size=4),
        st.sets(hashable, max_size=4), st.frozensets(hashable, max_size=3),
        st.dictionaries(st.text(max_size=3), st.integers(-5, 5), max_size=4).map(Counter),
        st.dictionaries(hashable, inner, max_size=3).map(OrderedDict),
        st.dictionaries(st.text(max_size=3), st.lists(inner, max_size=2), max_size=3).map(
            lambda d: defaultdict(list, d)),
        st.tuples(st.none() | st.integers(3, 6), st.lists(inner, max_size=3)).map(lambda p: deque(p[1], p[0])),
    ),
    max_leaves=12,
)


def same(a, b) -> bool:
    """Equal, and of the same types all the way down."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        if isinstance(a, defaultdict) and a.default_factory is not b.default_factory:
            return False
        if isinstance(a, deque) and a.maxlen != b.maxlen:
            return False
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple | deque):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@given(values)
def test_plain_data_comes_back_equal_and_of_the_same_types(value):
    assert same(decode_field(encode_field(value)), value)


def test_tuples_and_dict_keys_keep_their_types():
    tup = Tuple([1, "a"], Fields("n", "s"), "default", "spout", 0)
    value = {(1, "a"): {frozenset({2}), (3,)}, "t": tup, "d": deque([1], maxlen=2), "c": Counter(a=2)}
    back = decode_field(encode_field(value))
    assert same(back, value)
    back["c"]["missing"] += 1  # still a Counter
    assert back["c"]["missing"] == 1


@pytest.mark.parametrize("value", [object(), re.compile("x"), defaultdict(lambda: 0), 2**70, {1: object()},
                                   (x for x in ()), type("Sub", (dict,), {})()])
def test_values_that_cannot_be_rebuilt_elsewhere_are_refused(value):
    with pytest.raises(TypeError):
        encode_field(value)


class Bolt:
    def __init__(self):
        self.pattern = re.compile("w+")  # not plain, comes with the configured bolt
        self.limit = 3

    def prepare(self):
        self.client = object()  # built by prepare()
        self.total = 0
        self.names = []


def tracked(bolt=None):
    bolt = bolt or Bolt()
    fields = InstanceFields(bolt, "count")
    fields.track_prepare(bolt.prepare)
    return bolt, fields


def test_plain_attributes_are_written_and_objects_the_task_started_with_are_not():
    bolt, fields = tracked()
    bolt.total = 5
    puts, deletes = fields.writes()
    assert set(puts) == {FIELD_PREFIX + n for n in (b"limit", b"total", b"names")}
    assert deletes == []


def test_only_changed_attributes_are_written_again_and_removed_ones_deleted():
    bolt, fields = tracked()
    fields.writes()
    fields.committed()
    bolt.total = 7
    del bolt.names
    puts, deletes = fields.writes()
    assert list(puts) == [FIELD_PREFIX + b"total"]
    assert deletes == [FIELD_PREFIX + b"names"]


def test_an_attribute_rebound_to_an_object_after_prepare_fails_the_commit_naming_bolt_and_attribute():
    bolt, fields = tracked()
    bolt.client = object()
    with pytest.raises(TypeError, match=r"commit: bolt 'count' \(Bolt\): attribute 'client' holds .*prepare\(\)"):
        fields.writes()
    bolt2, fields2 = tracked()
    bolt2.cache = {"k": object()}
    with pytest.raises(TypeError, match="attribute 'cache'"):
        fields2.writes()


def test_a_rebuilt_task_gets_the_committed_attributes_after_prepare():
    bolt, fields = tracked()
    bolt.total, bolt.names = 9, ["a", ("b", 1)]
    puts, _ = fields.writes()
    fields.committed()
    again, fields_again = tracked()
    fields_again.restore(sorted(puts.items()))
    assert (again.total, again.names, again.limit) == (9, ["a", ("b", 1)], 3)
    assert again.client is not bolt.client  # prepare() built its own
    assert fields_again.writes() == ({}, [])  # nothing changed since the commit it came from
