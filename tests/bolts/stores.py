"""Window stores for stateful-bolt tests."""

from __future__ import annotations


class DictStore:
    """A WindowStore over a dict, committing atomically by building the new dict first."""

    def __init__(self):
        self.data: dict[bytes, bytes] = {}
        self.batch_id: int | None = None
        self.commits: list[tuple[int, int, int]] = []  # (batch id, bytes put, keys deleted)

    def get(self, key):
        return self.data.get(key)

    def scan(self, prefix):
        return sorted((k, v) for k, v in self.data.items() if k.startswith(prefix))

    def commit(self, batch_id, puts, deletes):
        if self.batch_id is not None and batch_id <= self.batch_id:
            return False
        new = dict(self.data)
        for key in deletes:
            new.pop(key, None)
        new.update(puts)
        self.data, self.batch_id = new, batch_id
        self.commits.append((batch_id, sum(len(k) + len(v) for k, v in puts.items()), len(list(deletes))))
        return True
