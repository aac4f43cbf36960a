"""A persistent window's tuples are stored as one chunk per commit (``c/``) plus their dead seqs (``d/``).

Restoring reads the chunks minus the dead tuples, and the ``e/<seq>`` records
that stores written before chunks hold; a chunk goes once all its tuples died.
"""

from __future__ import annotations

import random

import pytest

from bolts import Fields, Tuple
from bolts.codecs import window_state_codec as codec
from bolts.codecs.window_state_codec import (
    CHUNK_PREFIX,
    DEAD_PREFIX,
    EVENT_PREFIX,
    Chunks,
    Schemas,
    dead_key,
    decode_page,
    encode_event,
    seq_key,
    unpack,
)
from state_backends import open_backend
from tests.bolts_for_tests import StatefulWindowIds
from tests.service_fixtures import fresh_namespace as fresh
from topologies.testing import BoltHarness
from windowing import Count, Duration, Event


def _event(seq: int) -> Event[Tuple]:
    return Event(Tuple([seq, seq * 10], Fields("id", "ts"), "default", "src", 0), seq * 10, seq)


def _keys(ns, prefix: bytes) -> list[bytes]:
    return [key for key, _ in ns.scan(prefix)]


@pytest.mark.parametrize("seed", range(6))
def test_chunks_restore_the_live_tuples_after_many_commits_with_expiries_in_any_order(seed, monkeypatch):
    monkeypatch.setattr(codec, "CHUNK_EVENTS", 5)  # a commit's tuples split over several chunks
    # Any live tuple may expire at any commit (event time expires out of arrival order); restarts at random.
    rng = random.Random(seed)
    ns = open_backend("memory://").namespace("chunks")
    chunks, schemas, live, next_seq = Chunks(), Schemas(), set(), 0
    for batch_id in range(1, 40):
        added = {s: _event(s) for s in range(next_seq, next_seq + rng.randint(0, 12))}
        next_seq += len(added)
        removed = set(rng.sample(sorted(live), rng.randint(0, len(live))))  # any tuples, in any order
        live = (live - removed) | set(added)
        puts, deletes = chunks.writes(added, removed, schemas)
        assert ns.commit(batch_id, puts, deletes)
        chunks.committed()
        reloaded = Chunks()
        restored = reloaded.load(ns, Schemas(schemas.to_data()))
        assert [e.seq for e in restored] == sorted(live)
        assert [e.value.values for e in restored] == [(s, s * 10) for s in sorted(live)]
        stored = {seq for _, value in ns.scan(CHUNK_PREFIX) for seq, *_ in unpack(value)}
        chunk_keys = set(_keys(ns, CHUNK_PREFIX))
        assert {CHUNK_PREFIX + key[2:10] for key in _keys(ns, DEAD_PREFIX)} <= chunk_keys  # none left behind
        for key in _keys(ns, CHUNK_PREFIX):  # every stored chunk still holds a live tuple
            assert {e.seq for e in decode_page(ns.get(key), schemas)} & live
        assert live <= stored
        if rng.random() < 0.3:  # a restart: go on from what the store holds
            chunks = reloaded


def test_a_chunk_and_its_dead_list_are_deleted_once_all_its_tuples_expired():
    ns = open_backend("memory://").namespace("chunks")
    bolt = StatefulWindowIds().with_window(Count(3), Count(1)).with_persistence()
    h = BoltHarness(bolt, fields=("id", "ts"), state=ns)
    h.feed_batch([[1, 0], [2, 0], [3, 0]])
    h.commit()
    assert _keys(ns, CHUNK_PREFIX) == [seq_key(CHUNK_PREFIX, 0)]
    assert _keys(ns, EVENT_PREFIX) == []
    h.feed_batch([[4, 0]])
    h.commit()  # tuple 1 expired: recorded dead in the first chunk
    assert _keys(ns, DEAD_PREFIX) == [dead_key(0, 0)]
    assert unpack(ns.get(dead_key(0, 0))) == [0]
    h.feed_batch([[5, 0], [6, 0]])
    h.commit()  # tuples 2 and 3 expired too: the first chunk is gone
    assert _keys(ns, CHUNK_PREFIX) == [seq_key(CHUNK_PREFIX, 3), seq_key(CHUNK_PREFIX, 4)]
    assert _keys(ns, DEAD_PREFIX) == []
    h.feed_batch([[7, 0], [8, 0], [9, 0]])
    h.commit()
    assert _keys(ns, CHUNK_PREFIX) == [seq_key(CHUNK_PREFIX, 6)]
    h.restart()
    h.feed_batch([[10, 0]])
    assert h.emitted[-1] == ("default", [[8, 9, 10]])


def _to_old_format(ns, batch_id: int) -> None:
    """Rewrite the window's chunks as one ``e/<seq>`` record per live tuple, as squall stored them before."""
    schemas = Schemas(unpack(ns.get(b"meta"))["schemas"])
    dead = {seq for _, value in ns.scan(DEAD_PREFIX) for seq in unpack(value)}
    puts = {
        seq_key(EVENT_PREFIX, e.seq): encode_event(e, schemas)
        for _, value in ns.scan(CHUNK_PREFIX)
        for e in decode_page(value, schemas)
        if e.seq not in dead
    }
    deletes = _keys(ns, CHUNK_PREFIX) + _keys(ns, DEAD_PREFIX)
    assert ns.commit(batch_id, puts, deletes)


def _feed(h, ids, ts_of):
    h.feed_batch([{"id": i, "ts": ts_of(i)} for i in ids])


@pytest.mark.parametrize("chunk_events", [3, codec.CHUNK_EVENTS])
def test_a_store_written_with_one_record_per_tuple_still_resumes(backend, chunk_events, monkeypatch):
    monkeypatch.setattr(codec, "CHUNK_EVENTS", chunk_events)

    def bolt():  # event time with disorder: tuples expire out of arrival order
        return (
            StatefulWindowIds().with_window(Duration(20), Duration(5)).with_timestamp_field("ts").with_lag(Duration(4))
            .with_persistence()
        )

    def ts_of(i):
        return i * 3 + 5 * (i % 4)

    straight, old = (
        BoltHarness(bolt(), fields=("id", "ts"), state=fresh(backend), watermark_per_batch=True) for _ in range(2)
    )
    for h in (straight, old):
        _feed(h, range(1, 15), ts_of)
        h.commit(1)
    _to_old_format(old.state, 2)
    old.restart()
    assert len(_keys(old.state, EVENT_PREFIX)) > 3
    for batch_id, ids in enumerate((range(15, 22), range(22, 40), range(40, 60)), start=3):
        for h in (straight, old):
            _feed(h, ids, ts_of)
            h.commit(batch_id)
    assert old.emitted == straight.emitted
    assert len(straight.emitted) > 5
    assert _keys(old.state, EVENT_PREFIX) == []  # the old records are deleted as their tuples expire
    old.restart()
    for h in (straight, old):
        _feed(h, range(60, 70), ts_of)
        h.commit(7)
    assert old.emitted == straight.emitted

