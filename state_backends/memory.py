"""``memory://``: state in process memory, for driver mode and fast tests.

``memory://`` gives a new private store. ``memory://<name>`` gives the store of
that name, shared by every backend opened with the same URL in this process,
so closing and reopening it keeps the data (as a server would) until the
process ends. Nothing survives the process.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field

from state_backends.base import StateBackend, StateBackendError
from state_backends.urls import redact


@dataclass
class _Space:
    data: dict[bytes, bytes] = field(default_factory=dict)
    batch_id: int | None = None


@dataclass
class _Store:
    spaces: dict[str, _Space] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


_NAMED: dict[str, _Store] = {}
_NAMED_LOCK = threading.Lock()


def open_memory(url: str) -> MemoryBackend:
    """The backend ``memory://<name>`` names: the private store (no name) or the process-wide store ``name``."""
    return MemoryBackend(url[len("memory://") :])


class MemoryBackend(StateBackend):
    """State in dicts; commits are atomic under a lock, with the same semantics as Redis and HBase."""

    def __init__(self, name: str = "") -> None:
        """Open the private store (``name=""``) or the process-wide store called ``name``."""
        self.url = redact(f"memory://{name}")
        if not name:
            self._store = _Store()
        else:
            with _NAMED_LOCK:
                self._store = _NAMED.setdefault(name, _Store())
        self._closed = False

    def _space(self, namespace: str) -> _Space:
        if self._closed:
            msg = f"{self.url}: the backend is closed"
            raise StateBackendError(msg)
        return self._store.spaces.get(namespace) or _Space()

    def get(self, namespace: str, key: bytes) -> bytes | None:
        """The committed value of ``key`` in ``namespace``, or None."""
        with self._store.lock:
            return self._space(namespace).data.get(key)

    def scan(self, namespace: str, prefix: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
        """Committed pairs whose key starts with ``prefix``, in key order, as of the call."""
        with self._store.lock:
            data = self._space(namespace).data
            keys = sorted(data)
            start = bisect_left(keys, prefix)
            rows = []
            for key in keys[start:]:
                if not key.startswith(prefix):
                    break
                rows.append((key, data[key]))
        return iter(rows)

    def committed_batch_id(self, namespace: str) -> int | None:
        """The last committed batch id of ``namespace``, or None."""
        with self._store.lock:
            return self._space(namespace).batch_id

    def _apply(self, namespace: str, batch_id: int, puts: dict[bytes, bytes], deletes: list[bytes]) -> bool:
        with self._store.lock:
            space = self._space(namespace)
            if space.batch_id is not None and batch_id <= space.batch_id:
                return False
            # Keys and values were checked before: nothing below can fail half-way.
            for key in deletes:
                space.data.pop(key, None)
            space.data.update(puts)
            space.batch_id = batch_id
            self._store.spaces[namespace] = space
            return True

    def close(self) -> None:
        """Detach from the store; a named store keeps its data for the next open."""
        self._closed = True
