"""The contract every state backend implements: namespaced bytes, committed atomically with a batch id.

A backend holds any number of *namespaces* (one per bolt task, say). Each
namespace maps ``bytes`` keys to ``bytes`` values and records the id of the last
batch committed to it. Writes are never applied one by one: a caller stages
puts and deletes and commits them with a batch id, and the store applies all of
them and the new batch id as one atomic step, or none of them. Committing a
batch id that is not greater than the committed one writes nothing and returns
False, so a batch Spark replays after a failure is not applied twice.

Readers see committed data only: a commit is never half-visible.
"""

from __future__ import annotations

import re
import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from types import TracebackType
from typing import Self

#: Largest batch id a backend accepts (ids are compared as doubles in Redis' Lua).
MAX_BATCH_ID = 2**53 - 1

_NAMESPACE = re.compile(r"[^\x00-\x20{}\x7f]{1,200}")


class StateBackendError(Exception):
    """The store could not be reached or refused an operation; committed state is unchanged.

    Raised for a server that refuses the credentials, or that is down, goes
    down during a commit or times out for longer than the backend retries
    (``retry_seconds``). Retrying the same commit once the store is back
    completes it (or returns False if it had in fact been applied).
    """


class CorruptStateError(Exception):
    """A stored record is not what squall committed: it fails its checksum, or the store's index disagrees.

    The message names the backend (without password), the namespace and the
    key. squall never builds a window from such a record; restore the store,
    or start the query afresh (a new name, or its checkpoint deleted).
    """


def check_namespace(method: str, name: object) -> str:
    """Return ``name`` if it is a valid namespace name, else raise.

    Valid names are 1 to 200 characters with no whitespace, control characters,
    ``{`` or ``}`` (Redis keys use ``{name}`` as a cluster hash tag).
    """
    if not isinstance(name, str):
        msg = f"{method}: namespace must be a str; got {type(name).__name__} {name!r} instead"
        raise TypeError(msg)
    if not _NAMESPACE.fullmatch(name):
        msg = (
            f"{method}: namespace must be 1 to 200 characters without whitespace, control characters, "
            f"'{{' or '}}'; got {name!r} instead"
        )
        raise ValueError(msg)
    return name


def check_key(method: str, key: object) -> bytes:
    """Return ``key`` if it is ``bytes``, else raise ``TypeError``."""
    if not isinstance(key, bytes):
        msg = f"{method}: keys and values must be bytes; got {type(key).__name__} {key!r:.80} instead"
        raise TypeError(msg)
    return key


def _all_bytes(*groups: Iterable[object]) -> bool:
    """Whether every item of ``groups`` is exactly ``bytes`` (one C-level pass; subclasses take the slow path)."""
    types = set()
    for group in groups:
        types.update(map(type, group))
    return types <= {bytes}


def check_batch_id(method: str, batch_id: object) -> int:
    """Return ``batch_id`` if it is an int in ``[0, MAX_BATCH_ID]``, else raise."""
    if isinstance(batch_id, bool) or not isinstance(batch_id, int):
        msg = f"{method}: batch_id must be an int; got {type(batch_id).__name__} {batch_id!r} instead"
        raise TypeError(msg)
    if not 0 <= batch_id <= MAX_BATCH_ID:
        msg = f"{method}: batch_id must be between 0 and 2**53 - 1; got {batch_id} instead"
        raise ValueError(msg)
    return batch_id


class StateBackend(ABC):
    """A store of namespaces; subclasses implement the five abstract methods.

    Open one with :func:`state_backends.open_backend`. Backends are context
    managers; :meth:`close` releases connections (the data stays in the store).
    """

    #: The URL the backend was opened from, without any password.
    url: str

    def namespace(self, name: str) -> Namespace:
        """The namespace ``name``, created on first commit (reads of a new one are empty)."""
        return Namespace(self, check_namespace("namespace", name))

    @abstractmethod
    def get(self, namespace: str, key: bytes) -> bytes | None:
        """The committed value of ``key`` in ``namespace``, or None."""

    @abstractmethod
    def scan(self, namespace: str, prefix: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
        """Committed ``(key, value)`` pairs whose key starts with ``prefix``, in byte order of the key.

        Large namespaces are read in pages; a commit that lands between pages
        may be seen in later pages only (have one writer per namespace).
        """

    @abstractmethod
    def committed_batch_id(self, namespace: str) -> int | None:
        """The id of the last batch committed to ``namespace``, or None if none was."""

    @abstractmethod
    def _apply(self, namespace: str, batch_id: int, puts: dict[bytes, bytes], deletes: list[bytes]) -> bool:
        """Atomically apply deletes, then puts, and set the batch id, unless it does not go forward."""

    @abstractmethod
    def close(self) -> None:
        """Release the connections; later calls fail. Closing twice is allowed."""

    def commit(self, namespace: str, batch_id: int, puts: Mapping[bytes, bytes], deletes: Iterable[bytes] = ()) -> bool:
        """Apply ``deletes`` then ``puts`` to ``namespace`` atomically, together with ``batch_id``.

        Returns True if applied. Returns False, writing nothing, when ``batch_id``
        is not greater than the committed batch id (a replayed batch). A key both
        deleted and put ends up put. An empty commit still records the batch id.
        Raises StateBackendError if the store fails; the committed state is then
        unchanged, or (if the failure hit after the store applied it) the commit
        is complete and a retry returns False.
        """
        check_namespace("commit", namespace)
        check_batch_id("commit", batch_id)
        deletes = list(deletes)
        if _all_bytes(puts.keys(), puts.values(), deletes):
            put_map = dict(puts)
            delete_list = [k for k in deletes if k not in put_map]
        else:  # the checks one by one, in order, for the first wrong key's or value's message
            put_map = {check_key("commit", k): check_key("commit", v) for k, v in puts.items()}
            delete_list = [check_key("commit", k) for k in deletes if k not in put_map]
        return self._apply(namespace, batch_id, put_map, delete_list)

    def begin(self, namespace: str) -> WriteBatch:
        """A new, empty write batch for ``namespace``."""
        return self.namespace(namespace).begin()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


#: Bytes of the checksum in front of every value a namespace stores: CRC-32 of the key, then the value.
CHECKSUM_BYTES = 4


def _checksum(key: bytes, value: bytes) -> bytes:
    # Over the key too, so a value moved to another key fails as well.
    return zlib.crc32(value, zlib.crc32(key)).to_bytes(CHECKSUM_BYTES, "big")


class Namespace:
    """One namespace of a backend: what a bolt task reads and commits.

    It satisfies ``bolts.WindowStore``: ``get``, ``scan`` and ``commit(batch_id,
    puts, deletes)``.
    """

    def __init__(self, backend: StateBackend, name: str) -> None:
        self.backend = backend
        self.name = name

    def get(self, key: bytes) -> bytes | None:
        """The committed value of ``key``, or None; :class:`CorruptStateError` when it fails its checksum."""
        sealed = self.backend.get(self.name, check_key("get", key))
        return None if sealed is None else self._open(key, sealed)

    def scan(self, prefix: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
        """Committed ``(key, value)`` pairs whose key starts with ``prefix``, in key byte order (checksums checked)."""
        pairs = self.backend.scan(self.name, check_key("scan", prefix))  # a bad prefix fails here, not when iterated
        return self._checked(pairs)

    def _checked(self, pairs: Iterator[tuple[bytes, bytes]]) -> Iterator[tuple[bytes, bytes]]:
        try:
            for key, sealed in pairs:
                yield key, self._open(key, sealed)
        finally:  # a scan left early (a failed check, a consumer that stops) releases the store's cursor now
            close = getattr(pairs, "close", None)
            if close is not None:
                close()

    def _open(self, key: bytes, sealed: bytes) -> bytes:
        value = bytes(sealed[CHECKSUM_BYTES:])
        if len(sealed) < CHECKSUM_BYTES or bytes(sealed[:CHECKSUM_BYTES]) != _checksum(key, value):
            msg = (
                f"{self.backend.url}: namespace {self.name!r}, key {key!r}: the stored record fails its checksum "
                "(changed or damaged outside squall); restore the store, or start the query afresh under a new "
                "name (or with its checkpoint deleted)"
            )
            raise CorruptStateError(msg)
        return value

    def committed_batch_id(self) -> int | None:
        """The id of the last batch committed here, or None."""
        return self.backend.committed_batch_id(self.name)

    def commit(self, batch_id: int, puts: Mapping[bytes, bytes], deletes: Iterable[bytes] = ()) -> bool:
        """See :meth:`StateBackend.commit`; each value is stored with a checksum of its key and itself."""
        if not _all_bytes(puts.keys(), puts.values()):
            for k, v in puts.items():  # the first wrong key or value, in order, for its message
                check_key("commit", k)
                check_key("commit", v)
        crc32 = zlib.crc32  # _checksum inline: a commit seals tens of thousands of values
        sealed = {k: crc32(v, crc32(k)).to_bytes(CHECKSUM_BYTES, "big") + v for k, v in puts.items()}
        return self.backend.commit(self.name, batch_id, sealed, deletes)

    def begin(self) -> WriteBatch:
        """A new, empty write batch for this namespace."""
        return WriteBatch(self)

    def __repr__(self) -> str:
        return f"Namespace({self.name!r} in {self.backend.url!r})"


class WriteBatch:
    """Staged puts and deletes for one namespace, applied by :meth:`commit`.

    A later put or delete of the same key replaces the earlier one. Nothing is
    sent to the store before :meth:`commit`. Reading staged writes back is
    :class:`~state_backends.KeyValueState`'s job.
    """

    def __init__(self, namespace: Namespace) -> None:
        self.namespace = namespace
        self.puts: dict[bytes, bytes] = {}
        self.deletes: set[bytes] = set()

    def put(self, key: bytes, value: bytes) -> None:
        """Stage ``key = value``."""
        check_key("WriteBatch.put", key)
        self.puts[key] = check_key("WriteBatch.put", value)
        self.deletes.discard(key)

    def delete(self, key: bytes) -> None:
        """Stage the removal of ``key`` (no error at commit if it is absent)."""
        self.deletes.add(check_key("WriteBatch.delete", key))
        self.puts.pop(key, None)

    def commit(self, batch_id: int) -> bool:
        """Commit the staged writes with ``batch_id``; see :meth:`StateBackend.commit`.

        The batch keeps its writes, so after a StateBackendError the same batch
        can be committed again with the same id.
        """
        return self.namespace.commit(batch_id, self.puts, sorted(self.deletes))

    def __len__(self) -> int:
        return len(self.puts) + len(self.deletes)
