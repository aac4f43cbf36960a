"""Arrow columns as Python values: zoned timestamps come back as ``datetime`` in ``datetime.UTC``, exactly."""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from windowing.arrow_values import in_utc, python_values

# The microseconds a datetime holds (years 1 to 9999), in each unit that divides them.
LOWEST, HIGHEST = -62_135_596_800_000_000, 253_402_300_799_999_999
PER_MICRO = {"s": 1_000_000, "ms": 1_000, "us": 1}


@given(st.sampled_from(sorted(PER_MICRO)), st.sampled_from(["UTC", "Europe/Paris", "+02:00", "+00:00"]),
       st.data())
def test_zoned_timestamps_come_back_as_pyarrow_gives_them_in_utc(unit, zone, data):
    step = PER_MICRO[unit]
    values = data.draw(st.lists(st.integers(LOWEST // step, HIGHEST // step), max_size=20))
    nulls = data.draw(st.booleans())
    column = pa.chunked_array([pa.array(values + ([None] if nulls else []), pa.timestamp(unit, tz=zone))])
    got = python_values(column)
    assert got == in_utc(column).to_pylist()
    assert all(type(v) is datetime and v.tzinfo is UTC for v in got if v is not None)


def test_a_timestamp_past_what_a_datetime_holds_raises_as_pyarrow_does():
    for unit, value in (("s", 10**15), ("us", 2**62)):
        with pytest.raises(OverflowError):
            python_values(pa.array([value], pa.timestamp(unit, tz="UTC")))
