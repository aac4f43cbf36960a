"""Contract: puts, gets, deletes and prefix scans over committed data; namespaces are isolated."""

import pytest

from state_backends import StateBackend


def test_new_namespace_is_empty(ns):
    assert ns.get(b"a") is None
    assert list(ns.scan()) == []
    assert ns.committed_batch_id() is None


def test_put_get_delete(ns):
    assert ns.commit(1, {b"a": b"1", b"b": b"2"})
    assert ns.get(b"a") == b"1"
    assert ns.commit(2, {b"a": b"10"}, [b"b"])
    assert ns.get(b"a") == b"10"
    assert ns.get(b"b") is None
    assert ns.committed_batch_id() == 2


def test_empty_keys_and_values_and_binary_bytes(ns):
    puts = {b"": b"empty key", b"e": b"", b"\x00\xff'\"": b"\x00\x01\xff", b"\xff\xff": b"top"}
    assert ns.commit(1, puts)
    for key, value in puts.items():
        assert ns.get(key) == value
    assert list(ns.scan()) == sorted(puts.items())


def test_delete_of_absent_key_is_no_error(ns):
    assert ns.commit(1, {}, [b"never-written"])
    assert ns.get(b"never-written") is None


def test_scan_returns_prefix_matches_in_key_order(ns):
    keys = [b"a", b"ab", b"abc", b"ab\xff", b"ac", b"b", b"a'b", b"\xffa", b"\xff\xff\x00"]
    ns.commit(1, {k: k.upper() for k in keys})
    for prefix in (b"", b"a", b"ab", b"abc", b"a'", b"\xff", b"\xff\xff", b"zzz"):
        expected = sorted((k, k.upper()) for k in keys if k.startswith(prefix))
        assert list(ns.scan(prefix)) == expected, prefix


def test_scan_of_many_keys_crosses_pages(ns):
    puts = {f"k{i:05d}".encode(): str(i).encode() for i in range(2500)}
    ns.commit(1, puts)
    assert list(ns.scan(b"k")) == sorted(puts.items())
    assert list(ns.scan(b"k01")) == sorted((k, v) for k, v in puts.items() if k.startswith(b"k01"))


def test_namespaces_are_isolated(backend: StateBackend, ns):
    other = backend.namespace(ns.name + "-other")
    prefixed = backend.namespace(ns.name[:-1])  # a name that is a prefix of the other
    ns.commit(5, {b"k": b"mine"})
    assert other.get(b"k") is None
    assert list(other.scan()) == []
    assert other.committed_batch_id() is None
    assert prefixed.get(b"k") is None
    assert other.commit(1, {b"k": b"theirs"})  # its own batch ids
    assert ns.get(b"k") == b"mine"
    assert other.get(b"k") == b"theirs"


def test_large_values(ns):
    big = bytes(range(256)) * 8192  # 2 MiB
    assert ns.commit(1, {b"big": big, b"small": b"s"})
    assert ns.get(b"big") == big
    assert dict(ns.scan()) == {b"big": big, b"small": b"s"}


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda ns: ns.get("str key"), TypeError),
        (lambda ns: ns.scan(1), TypeError),
        (lambda ns: ns.commit(1, {b"k": "str value"}), TypeError),
        (lambda ns: ns.commit(1, {}, ["str"]), TypeError),
        (lambda ns: ns.commit(-1, {}), ValueError),
        (lambda ns: ns.commit(True, {}), TypeError),
        (lambda ns: ns.commit(2**53, {}), ValueError),
        (lambda ns: ns.begin().put(b"k", 3), TypeError),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_written(ns, call, error):
    with pytest.raises(error, match=r"(get|scan|commit|WriteBatch\.put): "):
        call(ns)
    assert ns.committed_batch_id() is None


@pytest.mark.parametrize("name", ["", "a b", "a{b}", "x" * 201, "tab\t"])
def test_bad_namespace_names_are_refused(backend, name):
    with pytest.raises(ValueError, match="namespace: namespace must be"):
        backend.namespace(name)


def test_namespace_name_must_be_a_str(backend):
    with pytest.raises(TypeError, match="namespace: namespace must be a str; got int"):
        backend.namespace(3)
