"""What a task needs of its state backend: one namespace with reads, prefix scans and an atomic commit per batch."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol


class WindowStore(Protocol):
    """One task's namespace in a state backend: reads, prefix scans, and an atomic commit per batch."""

    def get(self, key: bytes) -> bytes | None:
        """The committed value of ``key``."""
        ...

    def scan(self, prefix: bytes) -> Iterable[tuple[bytes, bytes]]:
        """Committed ``(key, value)`` pairs whose key starts with ``prefix``, in key order."""
        ...

    def commit(self, batch_id: int, puts: Mapping[bytes, bytes], deletes: Iterable[bytes]) -> bool:
        """Apply the writes atomically with ``batch_id``; False (and nothing written) if already committed."""
        ...
