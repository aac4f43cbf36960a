"""A commit checks every key and value at once, and still names the first wrong one as before."""

from __future__ import annotations

import re

import pytest

from state_backends import open_backend

MESSAGE = "commit: keys and values must be bytes; got {} instead"


@pytest.fixture
def backend():
    with open_backend("memory://") as b:
        yield b


@pytest.mark.parametrize(
    ("puts", "deletes", "wrong"),
    [
        ({b"a": b"1", "b": b"2"}, [], "str 'b'"),
        ({b"a": b"1", b"b": 2}, [], "int 2"),
        ({b"a": bytearray(b"1")}, [], "bytearray bytearray(b'1')"),
        ({b"a": b"1"}, [b"x", "y"], "str 'y'"),
        ({"k": 1}, ["y"], "str 'k'"),  # the first wrong one, puts before deletes
    ],
)
def test_a_wrong_key_or_value_is_named_and_nothing_is_written(backend, puts, deletes, wrong):
    ns = backend.namespace("n")
    with pytest.raises(TypeError, match=re.escape(MESSAGE.format(wrong))):
        backend.commit("n", 1, puts, deletes)
    with pytest.raises(TypeError, match=re.escape(MESSAGE.format(wrong))):
        ns.commit(1, puts, deletes)
    assert ns.committed_batch_id() is None


def test_bytes_subclasses_are_accepted_as_before(backend):
    class Key(bytes):
        pass

    ns = backend.namespace("n")
    assert ns.commit(1, {Key(b"a"): Key(b"1"), b"b": b"2"}, [Key(b"c")])
    assert backend.commit("n", 2, {Key(b"z"): Key(b"9")}, [Key(b"b")])
    assert ns.get(b"a") == b"1"
    assert backend.get("n", b"b") is None
    assert backend.get("n", b"z") == b"9"
