"""The user state a stateful bolt receives in ``init_state``: Storm's ``KeyValueState``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from bolts.window_state_codec import pack, unpack

_DELETED = object()


class _Readable(Protocol):
    def get(self, key: bytes) -> bytes | None: ...

    def scan(self, prefix: bytes) -> Iterable[tuple[bytes, bytes]]: ...


class UserState:
    """Key-value user state: ``get``, ``put``, ``delete``, iteration; committed with the batch.

    Keys and values are plain data (str, int, float, bytes, bool, None, lists,
    dicts), stored with msgpack. Writes are staged until the task commits its
    batch and are visible to reads at once. A restarted task sees the state of
    the last committed batch.
    """

    def __init__(self, store: _Readable, prefix: bytes) -> None:
        self._store = store
        self._prefix = prefix
        self._staged: dict[bytes, Any] = {}

    def _key(self, key: Any) -> bytes:
        return self._prefix + pack(key)

    def get(self, key: Any, default: Any = None) -> Any:
        """The value of ``key``, or ``default``."""
        k = self._key(key)
        if k in self._staged:
            value = self._staged[k]
            return default if value is _DELETED else value
        data = self._store.get(k)
        return default if data is None else unpack(data)

    def put(self, key: Any, value: Any) -> None:
        """Set ``key`` to ``value`` (both plain data)."""
        pack(value)  # refuse what cannot be stored now, not at commit
        self._staged[self._key(key)] = value

    def delete(self, key: Any) -> None:
        """Remove ``key`` (no error when absent)."""
        self._staged[self._key(key)] = _DELETED

    def __contains__(self, key: Any) -> bool:
        return self.get(key, _DELETED) is not _DELETED

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        """``(key, value)`` pairs, committed and staged, in key order."""
        merged: dict[bytes, Any] = {k: unpack(v) for k, v in self._store.scan(self._prefix)}
        merged.update(self._staged)
        for k in sorted(merged):
            if merged[k] is not _DELETED:
                yield unpack(k[len(self._prefix) :]), merged[k]

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def staged(self) -> tuple[dict[bytes, bytes], list[bytes]]:
        """The writes to commit: ``(puts, deletes)`` with full keys."""
        puts = {k: pack(v) for k, v in self._staged.items() if v is not _DELETED}
        deletes = [k for k, v in self._staged.items() if v is _DELETED]
        return puts, deletes

    def committed(self) -> None:
        """The staged writes are now in the store."""
        self._staged.clear()
