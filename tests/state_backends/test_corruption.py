"""Stored records are checked when read: a damaged or moved record fails naming backend, namespace and key."""

from __future__ import annotations

import re

import pytest

from bolts import BaseStatefulWindowedBolt, Fields
from state_backends import CorruptStateError, Namespace, StateBackend
from topologies.testing import BoltHarness
from windowing import Count


def tamper(backend: StateBackend, ns: Namespace, key: bytes, value: bytes) -> None:
    """Write ``value`` under ``key`` as something other than squall would: without its checksum."""
    backend.commit(ns.name, (ns.committed_batch_id() or 0) + 1, {key: value})


def test_a_changed_value_fails_its_checksum_on_get_and_scan(backend, ns):
    ns.commit(1, {b"a": b"one", b"b": b"two"})
    assert ns.get(b"a") == b"one" and list(ns.scan()) == [(b"a", b"one"), (b"b", b"two")]
    sealed = backend.get(ns.name, b"b")
    tamper(backend, ns, b"b", sealed[:-1] + b"X")  # one byte changed
    with pytest.raises(CorruptStateError, match=rf"namespace '{ns.name}', key b'b': the stored record fails"):
        ns.get(b"b")
    with pytest.raises(CorruptStateError, match="key b'b'") as failed:
        list(ns.scan())
    assert str(failed.value).startswith(backend.url)  # the backend, without any password


def test_a_value_moved_to_another_key_or_cut_short_fails(backend, ns):
    ns.commit(1, {b"a": b"one", b"b": b"two"})
    tamper(backend, ns, b"b", backend.get(ns.name, b"a"))  # a's record under b: the checksum covers the key
    with pytest.raises(CorruptStateError, match="key b'b'"):
        ns.get(b"b")
    tamper(backend, ns, b"a", b"ab")  # shorter than a checksum
    with pytest.raises(CorruptStateError, match="key b'a'"):
        ns.get(b"a")


class Sizes(BaseStatefulWindowedBolt):
    def execute(self, window):
        self.collector.emit([len(window.get())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("n"))


def test_a_damaged_window_is_never_built_on_restart(backend, ns):
    h = BoltHarness(Sizes().with_window(Count(4), Count(1)).with_persistence(), state=ns)
    h.feed_batch([[1], [2], [3]])
    h.commit()
    event_key = next(key for key, _ in ns.scan(b"c/"))  # the chunk of the committed tuples
    tamper(backend, ns, event_key, b"\x00\x00\x00\x00garbage")
    with pytest.raises(CorruptStateError, match=re.escape(f"key {event_key!r}")):
        h.restart()


@pytest.mark.parametrize("structure", ["data", "keys"])
def test_a_redis_key_removed_from_one_of_its_two_structures_fails_the_scan(redis_url, structure):
    import uuid

    import redis

    from state_backends import open_backend

    with open_backend(redis_url) as backend:
        ns = backend.namespace(f"t-{uuid.uuid4().hex[:12]}")
        ns.commit(1, {b"e/1": b"x", b"e/2": b"y"})
        client = redis.Redis.from_url(redis_url)
        data, keys = (f"squall:{{{ns.name}}}:{part}" for part in ("data", "keys"))
        if structure == "data":
            client.hdel(data, b"e/2")
        else:
            client.zrem(keys, b"e/2")
        with pytest.raises(CorruptStateError, match=rf"namespace '{ns.name}'"):
            list(ns.scan(b"e/"))
