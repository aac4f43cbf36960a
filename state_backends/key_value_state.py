"""``KeyValueState``: Storm's ``KeyValueState<K, V>`` over one namespace, with staged writes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from state_backends.base import Namespace, WriteBatch, check_key
from state_backends.serialization import decode, encode

_DELETED = object()


class KeyValueState:
    """User key-value state: reads see staged writes; the owner's commit persists them.

    Keys and values are plain data (see :mod:`state_backends.serialization`),
    stored under ``prefix`` + the msgpack bytes of the key, so that several
    states can share a namespace. ``put`` refuses an unstorable value at once,
    not at commit. Iteration and ``len`` merge committed and staged entries;
    iteration order is the byte order of the encoded keys (stable, but not the
    natural order of the keys). A tuple key comes back as a list.

    ``codec``: the functions values are written and read with (plain msgpack
    by default); a bolt's state takes squall's value codec, so dataclasses and
    registered classes can be values too.
    """

    def __init__(
        self, namespace: Namespace, prefix: bytes = b"",
        codec: tuple[Callable[[Any], bytes], Callable[[bytes], Any]] | None = None,
    ) -> None:
        self._namespace = namespace
        self._prefix = check_key("KeyValueState", prefix)
        self._staged: dict[bytes, Any] = {}
        self._encode, self._decode = codec or (encode, decode)

    def _key(self, key: Any) -> bytes:
        return self._prefix + encode(key)

    def get(self, key: Any, default: Any = None) -> Any:
        """The value of ``key`` (staged, else committed), or ``default`` if it has none."""
        raw = self._key(key)
        if raw in self._staged:
            value = self._staged[raw]
            return default if value is _DELETED else value
        data = self._namespace.get(raw)
        return default if data is None else self._decode(data)

    def put(self, key: Any, value: Any) -> None:
        """Stage ``key = value``; TypeError if either cannot be stored."""
        self._encode(value)
        self._staged[self._key(key)] = value

    def delete(self, key: Any) -> None:
        """Stage the removal of ``key``; deleting an absent key is not an error."""
        self._staged[self._key(key)] = _DELETED

    def __contains__(self, key: Any) -> bool:
        return self.get(key, _DELETED) is not _DELETED

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        """``(key, value)`` pairs, committed merged with staged, in encoded-key order."""
        merged: dict[bytes, Any] = {k: v for k, v in self._namespace.scan(self._prefix)}
        merged.update(self._staged)
        for raw in sorted(merged):
            value = merged[raw]
            if value is _DELETED:
                continue
            yield decode(raw[len(self._prefix) :]), value if raw in self._staged else self._decode(value)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def write_to(self, batch: WriteBatch) -> None:
        """Add the staged writes to ``batch`` (call :meth:`committed` once it is committed)."""
        for raw, value in self._staged.items():
            if value is _DELETED:
                batch.delete(raw)
            else:
                batch.put(raw, self._encode(value))

    def committed(self) -> None:
        """Forget the staged writes: the owner has committed them."""
        self._staged.clear()

    def commit(self, batch_id: int) -> bool:
        """Commit the staged writes alone with ``batch_id``; see ``StateBackend.commit``.

        The staged writes are kept if the store fails (retry with the same id)
        and dropped once the batch is committed or found already committed.
        """
        batch = self._namespace.begin()
        self.write_to(batch)
        applied = batch.commit(batch_id)
        self.committed()
        return applied
