"""``memory://`` of a Spark Connect run: a memory store whose commits are journaled, so another process sees them.

The contract suite (tests/state_backends) runs on it as ``journaled``; these
tests check what the journal adds: a new instance over the same directory
holds what was committed, a batch's commits are one file, snapshots bound
the files, and a directory on an object store works as a local one.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topologies.engine.remote import journaled_memory
from topologies.engine.remote.journaled_memory import SNAPSHOT_EVERY, JournaledMemoryBackend
from topologies.storage import ArrowDir, LocalDir


def journal_files(directory) -> list[str]:
    return sorted(n for n in directory.names() if not n.startswith("."))


def test_a_new_instance_replays_every_commit(tmp_path):
    directory = LocalDir(tmp_path / "j")
    first = JournaledMemoryBackend(directory)
    ns = first.namespace("t/bolt/0")
    assert ns.commit(0, {b"a": b"1", b"b": b"2"})
    assert ns.commit(1, {b"c": b"3"}, [b"a"])
    assert not ns.commit(1, {b"z": b"9"})  # a replayed batch writes nothing, in memory or in the journal
    again = JournaledMemoryBackend(directory).namespace("t/bolt/0")
    assert again.committed_batch_id() == 1
    assert dict(again.scan()) == {b"b": b"2", b"c": b"3"}


def test_a_batch_held_is_one_file_written_when_it_ends(tmp_path):
    directory = LocalDir(tmp_path / "j")
    backend = JournaledMemoryBackend(directory)
    with backend.hold():
        for task in range(3):
            backend.namespace(f"t/bolt/{task}").commit(0, {b"k": str(task).encode()})
        assert journal_files(directory) == []  # nothing written until the batch ends
        assert backend.namespace("t/bolt/2").get(b"k") == b"2"  # but readers see the commits
    assert journal_files(directory) == ["000000000001.journal"]
    backend.namespace("t/__flush").commit(1, {b"after": b"0"})  # outside a batch: written at once
    assert journal_files(directory) == ["000000000001.journal", "000000000002.journal"]


def test_a_failed_batch_still_journals_what_it_committed(tmp_path):
    directory = LocalDir(tmp_path / "j")
    backend = JournaledMemoryBackend(directory)
    with pytest.raises(RuntimeError), backend.hold():
        backend.namespace("t/bolt/0").commit(0, {b"k": b"v"})
        raise RuntimeError("the next task failed")
    assert JournaledMemoryBackend(directory).namespace("t/bolt/0").get(b"k") == b"v"


def test_snapshots_bound_the_files_read_on_open(tmp_path):
    directory = LocalDir(tmp_path / "j")
    backend = JournaledMemoryBackend(directory)
    ns = backend.namespace("t/bolt/0")
    for batch in range(2 * SNAPSHOT_EVERY + 3):
        ns.commit(batch, {f"k{batch % 7}".encode(): str(batch).encode()}, [b"k3"] if batch % 5 == 0 else [])
    names = journal_files(directory)
    assert names[0] == f"{2 * SNAPSHOT_EVERY:012d}.snapshot"
    assert len(names) == 1 + 3
    reopened = JournaledMemoryBackend(directory).namespace("t/bolt/0")
    assert dict(reopened.scan()) == dict(ns.scan())
    assert reopened.committed_batch_id() == 2 * SNAPSHOT_EVERY + 2


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.dictionaries(st.binary(max_size=3), st.binary(max_size=3),
                                                                       max_size=4),
                          st.lists(st.binary(max_size=3), max_size=2)), max_size=30),
       st.integers(min_value=2, max_value=6))
def test_reopening_anywhere_gives_the_same_store(tmp_path_factory, commits, every):
    directory = LocalDir(tmp_path_factory.mktemp("j"))
    original = journaled_memory.SNAPSHOT_EVERY
    journaled_memory.SNAPSHOT_EVERY = every
    try:
        backend = JournaledMemoryBackend(directory)
        for batch, (ns, puts, deletes) in enumerate(commits):
            backend.namespace(ns).commit(batch, puts, deletes)
            reopened = JournaledMemoryBackend(directory)
            for name in ("a", "b"):
                assert dict(reopened.namespace(name).scan()) == dict(backend.namespace(name).scan())
                assert reopened.committed_batch_id(name) == backend.committed_batch_id(name)
    finally:
        journaled_memory.SNAPSHOT_EVERY = original


def test_a_journal_on_a_pyarrow_filesystem(tmp_path):
    from pyarrow import fs

    directory = ArrowDir(fs.LocalFileSystem(), str(tmp_path / "j"))
    backend = JournaledMemoryBackend(directory)
    backend.namespace("t/x/0").commit(0, {b"k": b"v"})
    assert JournaledMemoryBackend(directory).namespace("t/x/0").get(b"k") == b"v"
