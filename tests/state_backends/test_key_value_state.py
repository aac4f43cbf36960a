"""Contract: KeyValueState reads its own staged writes and persists them only on commit."""

import pytest

from state_backends import KeyValueState, open_backend


def test_reads_see_staged_writes_before_commit(ns):
    state = KeyValueState(ns)
    state.put("count", 3)
    state.put(("user", 1), {"name": "ann", "tags": ["a", "b"]})
    assert state.get("count") == 3
    assert state.get(("user", 1)) == {"name": "ann", "tags": ["a", "b"]}
    assert state.get("missing") is None
    assert state.get("missing", default=0) == 0
    assert ns.get(b"") is None
    assert list(ns.scan()) == []  # nothing persisted yet


def test_commit_persists_and_a_new_state_reads_it(backend_url, ns):
    state = KeyValueState(ns, prefix=b"u/")
    state.put("a", 1)
    state.put("b", 2.5)
    assert state.commit(1)
    with open_backend(backend_url) as reopened:
        fresh = KeyValueState(reopened.namespace(ns.name), prefix=b"u/")
        assert fresh.get("a") == 1
        assert fresh.get("b") == 2.5
        assert dict(fresh) == {"a": 1, "b": 2.5}


def test_delete_hides_committed_value_until_and_after_commit(ns):
    state = KeyValueState(ns)
    state.put("k", "v")
    state.commit(1)
    state.delete("k")
    assert state.get("k") is None
    assert "k" not in state
    assert ns.get(KeyValueState(ns)._key("k")) is not None  # still committed
    state.commit(2)
    assert KeyValueState(ns).get("k") is None
    state.delete("never-there")
    assert state.commit(3)


def test_iteration_and_len_merge_committed_and_staged(ns):
    state = KeyValueState(ns)
    for i in range(5):
        state.put(i, i * i)
    state.commit(1)
    state.put(5, 25)
    state.put(0, "changed")
    state.delete(1)
    assert len(state) == 5
    assert dict(state) == {0: "changed", 2: 4, 3: 9, 4: 16, 5: 25}
    assert 3 in state
    assert 1 not in state


def test_states_with_different_prefixes_share_a_namespace(ns):
    left, right = KeyValueState(ns, b"L"), KeyValueState(ns, b"R")
    left.put("k", "left")
    right.put("k", "right")
    batch = ns.begin()
    left.write_to(batch)
    right.write_to(batch)
    assert batch.commit(1)
    left.committed()
    right.committed()
    assert dict(KeyValueState(ns, b"L")) == {"k": "left"}
    assert dict(KeyValueState(ns, b"R")) == {"k": "right"}


def test_replayed_commit_drops_the_staged_writes(ns):
    state = KeyValueState(ns)
    state.put("k", 1)
    assert state.commit(1)
    state.put("k", 2)
    assert state.commit(1) is False  # batch 1 is committed: its replay writes nothing
    assert state.get("k") == 1


def test_unstorable_values_are_refused_at_put(ns):
    state = KeyValueState(ns)
    with pytest.raises(TypeError, match="encode: cannot store"):
        state.put("k", object())
    with pytest.raises(TypeError, match="encode: cannot store"):
        state.put({1, 2}, "set key")
    assert len(state) == 0
