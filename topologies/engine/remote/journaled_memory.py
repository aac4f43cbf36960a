"""``memory://`` state that outlives the process running the batches: memory, plus a journal in storage.

Under Spark Connect the batches run in a Python process beside the server,
one per query, which ends with the query; the shutdown flush then runs in the
client, and the next submit in a new server process. So there ``memory://``
keeps its data in a :class:`~state_backends.memory.MemoryBackend` as always
and also writes every commit to a journal directory beside the checkpoint
(:class:`~topologies.storage.StorageDir`: local, HDFS, S3, GCS). A
process that opens the journal replays it and holds the same data.

Each batch's commits go to the journal as one file (``<seq>.journal``, msgpack
``[[namespace, batch id, puts, deletes], ...]``), written when the batch ends
(:meth:`JournaledMemoryBackend.hold`); a commit outside a batch (the flush
record) is written at once. Every :data:`SNAPSHOT_EVERY` files the whole store
is written as ``<seq>.snapshot`` and the files before it are deleted, so
opening reads one snapshot and at most that many files. Files are replaced
atomically (written aside, then moved), so a reader never sees half of one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import msgpack

from state_backends.base import StateBackend
from state_backends.memory import MemoryBackend
from topologies.storage import StorageDir

SNAPSHOT_EVERY = 50
_JOURNAL = ".journal"
_SNAPSHOT = ".snapshot"

Commit = tuple[str, int, dict[bytes, bytes], list[bytes]]


def _seq(name: str) -> int | None:
    stem = name.removesuffix(_JOURNAL).removesuffix(_SNAPSHOT)
    return int(stem) if stem.isdigit() and stem != name else None


class JournaledMemoryBackend(StateBackend):
    """A :class:`MemoryBackend` whose commits are also journaled to ``directory`` (see the module docstring)."""

    def __init__(self, directory: StorageDir) -> None:
        self.url = "memory://"
        self.directory = directory
        self.memory = MemoryBackend()
        self._pending: list[Commit] = []
        self._holding = 0
        directory.mkdirs()
        self._seq = self._replay()

    def _replay(self) -> int:
        """Load the newest snapshot and the journal files after it; the last sequence number (0 for none)."""
        names = self.directory.names()
        snapshots = sorted(s for n in names if n.endswith(_SNAPSHOT) and (s := _seq(n)) is not None)
        base = snapshots[-1] if snapshots else 0
        if snapshots:
            for namespace, batch_id, pairs in _unpack(self.directory.read_bytes(f"{base:012d}{_SNAPSHOT}")):
                self.memory._apply(namespace, batch_id, dict(pairs), [])
        journals = sorted(s for n in names if n.endswith(_JOURNAL) and (s := _seq(n)) is not None and s > base)
        for seq in journals:
            for namespace, batch_id, puts, deletes in _unpack(self.directory.read_bytes(f"{seq:012d}{_JOURNAL}")):
                self.memory._apply(namespace, batch_id, dict(puts), list(deletes))
        return max([base, *journals])

    def get(self, namespace: str, key: bytes) -> bytes | None:
        """The committed value of ``key`` in ``namespace``, or None."""
        return self.memory.get(namespace, key)

    def scan(self, namespace: str, prefix: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
        """Committed pairs whose key starts with ``prefix``, in key order."""
        return self.memory.scan(namespace, prefix)

    def committed_batch_id(self, namespace: str) -> int | None:
        """The last committed batch id of ``namespace``, or None."""
        return self.memory.committed_batch_id(namespace)

    def _apply(self, namespace: str, batch_id: int, puts: dict[bytes, bytes], deletes: list[bytes]) -> bool:
        if not self.memory._apply(namespace, batch_id, puts, deletes):
            return False
        self._pending.append((namespace, batch_id, dict(puts), list(deletes)))
        if not self._holding:
            self.sync()
        return True

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Journal the block's commits as one file when it ends (also when it fails: they are applied)."""
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1
            if not self._holding:
                self.sync()

    def sync(self) -> None:
        """Write the pending commits as the next journal file (and a snapshot every :data:`SNAPSHOT_EVERY`)."""
        if not self._pending:
            return
        seq = self._seq + 1
        records = [[ns, batch_id, sorted(puts.items()), deletes] for ns, batch_id, puts, deletes in self._pending]
        self.directory.write_bytes(f"{seq:012d}{_JOURNAL}", msgpack.packb(records, use_bin_type=True))
        self._pending, self._seq = [], seq
        if seq % SNAPSHOT_EVERY == 0:
            self._snapshot(seq)

    def _snapshot(self, seq: int) -> None:
        spaces = self.memory._store.spaces
        with self.memory._store.lock:
            records = [[ns, space.batch_id, sorted(space.data.items())] for ns, space in spaces.items()]
        self.directory.write_bytes(f"{seq:012d}{_SNAPSHOT}", msgpack.packb(records, use_bin_type=True))
        for name in self.directory.names():  # what the snapshot holds: older snapshots and journal files
            s = _seq(name)
            if s is not None and (s < seq or (s == seq and name.endswith(_JOURNAL))):
                self.directory.delete(name)

    def close(self) -> None:
        """Write what is pending, then detach."""
        self.sync()
        self.memory.close()


def _unpack(data: bytes) -> list[list[object]]:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)  # type: ignore[no-any-return]
