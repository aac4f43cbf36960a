"""A bolt's attributes as stored state: exact round trips, what is refused, incremental writes, restore."""

from __future__ import annotations

import os
import re
from collections import Counter, OrderedDict, defaultdict, deque
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import BaseStatefulWindowedBolt, Fields, Tuple
from bolts.instance_fields import FIELD_PREFIX, InstanceFields, decode_field, encode_field
from topologies.testing import BoltHarness
from windowing import Count

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), st.floats(), st.text(max_size=8),
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
    """Equal, and of the same types all the way down (-0.0 is not 0.0, True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return repr(a) == repr(b)
    if isinstance(a, deque) and a.maxlen != b.maxlen:
        return False
    if isinstance(a, defaultdict) and a.default_factory is not b.default_factory:
        return False
    if isinstance(a, dict):  # in order: msgpack keeps a dict's order (and a NaN key is found by no lookup)
        return len(a) == len(b) and all(
            same(k, k2) and same(v, v2) for (k, v), (k2, v2) in zip(a.items(), b.items(), strict=True))
    if isinstance(a, set | frozenset):
        return len(a) == len(b) and all(any(same(x, y) for y in b) for x in a)
    if isinstance(a, list | tuple | deque):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@settings(deadline=None)  # no wall-clock limit on a noisy machine
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
        self.pid = os.getpid()


def tracked(bolt=None):
    bolt = bolt or Bolt()
    fields = InstanceFields(bolt, "count")
    fields.track_prepare(bolt.prepare)
    return bolt, fields


def test_what_prepare_left_is_not_written_and_what_execute_changed_is():
    bolt, fields = tracked()
    assert fields.writes() == ({}, [])
    bolt.total, bolt.seen = 5, {"a"}
    puts, deletes = fields.writes()
    assert set(puts) == {FIELD_PREFIX + b"total", FIELD_PREFIX + b"seen"}
    assert deletes == []


def test_only_changed_attributes_are_written_again_and_back_to_prepares_value_is_deleted():
    bolt, fields = tracked()
    bolt.total, bolt.names = 7, ["x"]
    fields.writes()
    fields.committed()
    bolt.total = 8
    bolt.names = []  # as prepare() left it: the rebuilt task's prepare() gives it again
    puts, deletes = fields.writes()
    assert list(puts) == [FIELD_PREFIX + b"total"]
    assert deletes == [FIELD_PREFIX + b"names"]


def test_an_attribute_execute_deleted_is_deleted_on_the_rebuilt_task_too():
    bolt, fields = tracked()
    del bolt.names
    puts, _ = fields.writes()
    again, fields_again = tracked()
    fields_again.restore(sorted(puts.items()))
    assert not hasattr(again, "names")


def test_an_attribute_rebound_to_an_object_after_prepare_fails_the_commit_naming_bolt_and_attribute():
    bolt, fields = tracked()
    bolt.client = object()
    with pytest.raises(TypeError, match=r"commit: bolt 'count' \(Bolt\): attribute 'client' holds .*prepare\(\)"):
        fields.writes()
    bolt2, fields2 = tracked()
    bolt2.cache = {"k": object()}
    with pytest.raises(TypeError, match="attribute 'cache'"):
        fields2.writes()


def test_a_plain_attribute_that_comes_to_hold_an_object_fails_the_commit():
    bolt, fields = tracked()
    bolt.names.append(object())  # the same list prepare() built, no longer plain data
    with pytest.raises(TypeError, match="attribute 'names'"):
        fields.writes()


def test_a_rebuilt_task_gets_the_committed_attributes_after_prepare_and_keeps_its_own_prepared_values():
    bolt, fields = tracked()
    bolt.total, bolt.names, bolt.pid = 9, ["a", ("b", 1)], -1  # pid: as if prepared in another process
    fields._initial["pid"] = encode_field(-1)
    puts, _ = fields.writes()
    fields.committed()
    again, fields_again = tracked()
    fields_again.restore(sorted(puts.items()))
    assert (again.total, again.names, again.limit, again.pid) == (9, ["a", ("b", 1)], 3, os.getpid())
    assert again.client is not bolt.client  # prepare() built its own
    assert fields_again.writes()[0] == {}  # nothing changed since the commit it came from


class _Plus3(tzinfo):
    """A zone of the user's own: the codec cannot rebuild it."""

    def utcoffset(self, dt):
        return timedelta(hours=3)

    def dst(self, dt):
        return timedelta(0)


def test_a_zoneinfo_zone_comes_back_as_itself():
    value = datetime(2026, 3, 29, 1, tzinfo=ZoneInfo("Europe/Paris"))
    again = decode_field(encode_field(value))
    assert repr(again) == repr(value) and again.tzinfo is ZoneInfo("Europe/Paris")


@pytest.mark.parametrize("value", [datetime(2026, 3, 29, 1, tzinfo=_Plus3()),
                                   type("Stamp", (datetime,), {})(2026, 1, 1)])
def test_datetimes_that_would_not_come_back_as_they_were_are_refused(value):
    with pytest.raises(TypeError):
        encode_field(value)
    assert same(decode_field(encode_field(datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2))))),
                datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2))))


def test_a_value_that_holds_itself_is_refused_with_a_type_error():
    loop: list = []
    loop.append(loop)
    with pytest.raises(TypeError, match="holding itself"):
        encode_field(loop)


class Counting(BaseStatefulWindowedBolt):
    def prepare(self, conf, context, collector):
        self.collector = collector
        self.fired = 0

    def execute(self, window):
        self.fired += 1
        self.collector.emit([self.fired, len(window.get())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("fired", "size"))


def test_the_harness_commits_and_restores_attributes_as_the_executor_does():
    h = BoltHarness(Counting().with_tumbling_window(Count(2)).with_persistence(), state="memory://")
    h.feed_batch([[1], [2], [3], [4]])
    h.commit()
    h.feed_batch([[5]])
    h.restart()  # the attribute comes back as committed: two windows fired
    h.feed_batch([[5], [6]])
    assert [v for _, v in h.emitted] == [[1, 2], [2, 2], [3, 2]]


def test_the_harness_commit_refuses_an_attribute_that_could_not_move():
    h = BoltHarness(Counting().with_tumbling_window(Count(2)).with_persistence(), state="memory://")
    h.bolt.client = object()
    with pytest.raises(TypeError, match="attribute 'client'"):
        h.commit()
