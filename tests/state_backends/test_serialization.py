"""Serialisation: msgpack round trips of plain data, refusal of anything else, no pickle."""

import math
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from state_backends import decode, encode

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text()
    | st.binary()
)
keys = st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.text() | st.binary()
values = st.recursive(scalars, lambda inner: st.lists(inner) | st.dictionaries(keys, inner), max_leaves=30)


@given(values)
def test_round_trip(value):
    data = encode(value)
    assert isinstance(data, bytes)
    assert decode(data) == value
    assert type(decode(data)) is type(value)


def test_tuples_come_back_as_lists_and_nan_stays_nan():
    assert decode(encode((1, (2, "x")))) == [1, [2, "x"]]
    assert math.isnan(decode(encode(float("nan"))))
    assert decode(encode({1: "int key", b"b": "bytes key"})) == {1: "int key", b"b": "bytes key"}


@pytest.mark.parametrize("value", [object(), {1, 2}, 2**64, -(2**63) - 1, [1, object()], complex(1, 2)])
def test_unsupported_values_are_refused(value):
    with pytest.raises(TypeError, match=r"encode: cannot store .*supported are None, bool"):
        encode(value)


@pytest.mark.parametrize("data", [b"", b"\xc1", b"\x92\x01", b"\x01\x02", b"\xa3\xff\xfe\xfd", b"\x81\x91\x01\x02"])
def test_corrupt_data_is_a_clear_value_error(data):
    with pytest.raises(ValueError, match="decode: not a value written by squall"):
        decode(data)


def test_pickled_data_is_never_unpickled():
    class Boom:
        def __reduce__(self):
            return (exec, ("raise SystemExit('pickle was loaded')",))

    data = pickle.dumps(Boom())
    try:
        decode(data)  # msgpack reads some prefix as a value and refuses the rest
    except ValueError:
        pass


def test_decode_wants_bytes():
    with pytest.raises(TypeError, match="decode: expected bytes; got str"):
        decode("text")
