"""An in-process window store for stateful bolts in driver mode with ``memory://`` state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class MemoryWindowStore:
    """One task's namespace as a dict; a commit applies all writes at once and records the batch id.

    It lives in the driver's memory with the task, so it is snapshotted and
    restored with the task when Spark replays a batch in the same process, and
    lost when the process ends.
    """

    def __init__(self) -> None:
        self.data: dict[bytes, bytes] = {}
        self.batch_id: int | None = None

    def get(self, key: bytes) -> bytes | None:
        """The committed value of ``key``."""
        return self.data.get(key)

    def scan(self, prefix: bytes) -> list[tuple[bytes, bytes]]:
        """Committed pairs whose key starts with ``prefix``, in key order."""
        return sorted((k, v) for k, v in self.data.items() if k.startswith(prefix))

    def commit(self, batch_id: int, puts: Mapping[bytes, bytes], deletes: Iterable[bytes]) -> bool:
        """Apply the writes as batch ``batch_id``; False (nothing written) when it is not newer than the last."""
        if self.batch_id is not None and batch_id <= self.batch_id:
            return False
        for key in deletes:
            self.data.pop(key, None)
        self.data.update(puts)
        self.batch_id = batch_id
        return True
