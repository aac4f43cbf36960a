"""Values between tasks and in the store: plain data plus Tuple, datetime, date and PaneInfo, nothing else."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bolts import Fields, Tuple
from bolts.codecs.value_codec import (
    DATETIME_EXT,
    UTC_DATETIME_EXT,
    pack_value,
    unpack_value,
    value_pack_function,
)
from state_backends import open_backend
from tests.bolts_for_tests import StatefulWindowIds
from topologies.testing import BoltHarness
from windowing import Count
from windowing.panes import PaneInfo

scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False),
                    st.text(), st.binary(), st.datetimes(timezones=st.just(UTC)), st.dates(),
                    st.builds(PaneInfo, st.sampled_from(["EARLY", "ON_TIME", "LATE"]), st.integers(0, 9),
                              st.integers(-1, 9), st.booleans()))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=5), inner, max_size=4)),
                      max_leaves=12)


@given(values)
def test_values_come_back_equal_and_of_the_same_type(value):
    back = unpack_value(pack_value(value))
    assert back == value
    assert type(back) is type(value)


def test_panes_tuples_and_time_zones_survive_nesting():
    pane = PaneInfo("LATE", 3, 1, True)
    inner = Tuple([1, datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))], Fields("a", "t"),
                  "s", "c", 4)
    outer = Tuple([inner, [pane], date(2026, 1, 2)], Fields("late_tuple", "panes", "d"), "late", "b", 0)
    back = unpack_value(pack_value({"x": [outer, (pane, 1)]}))
    assert back == {"x": [outer, [pane, 1]]}
    assert back["x"][0]["panes"][0].timing == "LATE"
    assert back["x"][0]["late_tuple"]["t"].utcoffset() == timedelta(hours=2)


@given(st.datetimes(timezones=st.just(UTC)))
def test_a_utc_datetime_travels_as_its_microseconds_and_comes_back_in_utc_itself(value):
    data = pack_value(value)
    assert msgpack.unpackb(data).code == UTC_DATETIME_EXT
    back = unpack_value(data)
    assert back == value and back.tzinfo is UTC and back.isoformat() == value.isoformat()


def test_a_datetime_written_as_text_by_an_earlier_squall_still_reads_back():
    # Stores written before UTC datetimes had their own extension hold every datetime as its ISO text.
    value = datetime(2026, 11, 29, 3, 4, 5, 6, tzinfo=UTC)
    back = unpack_value(msgpack.packb(msgpack.ExtType(DATETIME_EXT, value.isoformat().encode())))
    assert back == value and back.utcoffset() == timedelta(0)


@given(st.lists(st.one_of(values, st.just([1, {1, 2}]), st.just(["a", 2**64])), max_size=8))
def test_a_pack_function_writes_what_pack_value_writes_and_a_refused_value_leaves_nothing_behind(run):
    pack = value_pack_function()
    for value in run:
        try:
            expected = pack_value(value)
        except TypeError as refused:
            with pytest.raises(TypeError, match=re.escape(str(refused))):
                pack(value)
        else:
            assert pack(value) == expected


def test_other_types_are_refused_by_name():
    with pytest.raises(TypeError, match=r"cannot send .*\(set\)"):
        pack_value([{1, 2}])


def test_a_persistent_window_keeps_datetime_values_across_a_restart():
    store = open_backend("memory://").namespace("n")
    bolt = StatefulWindowIds("at").with_window(Count(3), Count(1)).with_persistence()
    h = BoltHarness(bolt, fields=("at",), state=store)
    first, second = datetime(2026, 11, 22, 9, 0, tzinfo=UTC), date(2026, 11, 23)
    h.feed({"at": first})
    h.feed({"at": second})
    h.commit()
    h.restart()
    h.feed({"at": None})
    assert h.emitted[-1] == ("default", [[first, second, None]])


def test_subclasses_of_plain_types_travel_as_their_plain_value():
    from collections import OrderedDict, namedtuple
    from enum import IntEnum

    from windowing.panes import Timing

    class Level(IntEnum):
        HIGH = 3

    point = namedtuple("point", "x y")
    values = [Timing.LATE, Level.HIGH, point(1, 2), OrderedDict(a=1), (1, (2,)), bytearray(b"z")]
    back = unpack_value(pack_value(values))
    assert back == ["LATE", 3, [1, 2], {"a": 1}, [1, [2]], b"z"]
    assert [type(v) for v in back] == [str, int, list, dict, list, bytes]
