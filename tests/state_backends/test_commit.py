"""Contract: commits are atomic with their batch id, replays are ignored, state survives a reopen."""

from state_backends import StateBackend, open_backend


def test_write_batch_commits_puts_and_deletes(ns):
    batch = ns.begin()
    batch.put(b"a", b"1")
    batch.put(b"b", b"2")
    batch.put(b"c", b"3")
    batch.delete(b"c")  # the later write of a key wins
    assert len(batch) == 3
    assert ns.get(b"a") is None  # nothing is visible before commit
    assert batch.commit(1)
    assert list(ns.scan()) == [(b"a", b"1"), (b"b", b"2")]


def test_put_wins_over_delete_of_the_same_key_in_one_commit(ns):
    ns.commit(1, {b"k": b"old"})
    assert ns.commit(2, {b"k": b"new"}, [b"k"])
    assert ns.get(b"k") == b"new"


def test_same_batch_id_twice_is_applied_once(ns):
    assert ns.commit(7, {b"n": b"1"}) is True
    assert ns.commit(7, {b"n": b"2", b"extra": b"x"}, [b"n"]) is False
    assert ns.get(b"n") == b"1"
    assert ns.get(b"extra") is None
    assert ns.committed_batch_id() == 7


def test_lower_batch_id_is_ignored_and_the_id_only_goes_forward(ns):
    assert ns.commit(10, {b"k": b"ten"})
    assert ns.commit(3, {b"k": b"three"}) is False
    assert ns.commit(0, {}, [b"k"]) is False
    assert ns.get(b"k") == b"ten"
    assert ns.committed_batch_id() == 10
    assert ns.commit(11, {b"k": b"eleven"})
    assert ns.committed_batch_id() == 11


def test_batch_ids_may_skip_and_start_at_zero(ns):
    assert ns.commit(0, {b"k": b"0"})
    assert ns.committed_batch_id() == 0
    assert ns.commit(2**40, {b"k": b"big"})
    assert ns.committed_batch_id() == 2**40


def test_empty_commit_records_the_batch_id(ns):
    assert ns.commit(4, {})
    assert ns.committed_batch_id() == 4
    assert ns.commit(4, {b"late": b"x"}) is False


def test_each_commit_sees_exactly_the_state_of_its_batch(ns):
    # keys deleted and re-put across batches: every batch is visible whole
    model: dict[bytes, bytes] = {}
    for batch_id in range(1, 13):
        puts = {f"k{(batch_id * 7 + i) % 10}".encode(): f"b{batch_id}".encode() for i in range(3)}
        deletes = [f"k{(batch_id * 3 + i) % 10}".encode() for i in range(2)]
        for key in deletes:
            model.pop(key, None)
        model.update(puts)
        assert ns.commit(batch_id, puts, deletes)
        assert dict(ns.scan()) == model
        assert ns.committed_batch_id() == batch_id


def test_state_survives_closing_and_reopening(backend_url, backend: StateBackend, ns):
    ns.commit(3, {b"a": b"1", b"gone": b"x"})
    ns.commit(4, {b"b": b"2"}, [b"gone"])
    backend.close()
    with open_backend(backend_url) as reopened:
        again = reopened.namespace(ns.name)
        assert again.committed_batch_id() == 4
        assert list(again.scan()) == [(b"a", b"1"), (b"b", b"2")]
        assert again.commit(4, {b"c": b"3"}) is False
        assert again.commit(5, {b"c": b"3"})
        assert again.get(b"c") == b"3"


def test_backend_level_calls_match_namespace_calls(backend: StateBackend, ns):
    assert backend.commit(ns.name, 1, {b"k": b"v"})
    assert backend.get(ns.name, b"k") == b"v"
    assert list(backend.scan(ns.name, b"k")) == [(b"k", b"v")]
    assert backend.committed_batch_id(ns.name) == 1
    batch = backend.begin(ns.name)
    batch.delete(b"k")
    assert batch.commit(2)
    assert ns.get(b"k") is None
