"""A batch's processing time, kept per batch id beside Spark's checkpoint.

A batch's processing time is recorded under ``<checkpoint>/squall/`` the first
time the batch runs and read back when Spark runs it again, in a ``StorageDir``
(:mod:`topologies.storage`): local, or on a filesystem of pyarrow's
(``hdfs://``, ``s3://`` or ``s3a://``, ``gs://``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from topologies.storage import StorageDir, as_dir

KEEP_TIMES = 200  # batch times kept on disk; Spark never replays more than the last batch


def wall_clock_ms() -> int:
    """The wall clock in epoch milliseconds: read once per new batch, by the batch loop only."""
    return time.time_ns() // 1_000_000


class BatchClock:
    """Processing time per batch id: recorded once from ``clock``, reused on replay, never going back."""

    def __init__(self, directory: StorageDir | Path, clock: Callable[[], int]) -> None:
        self.directory = as_dir(directory)
        self.clock = clock
        self.directory.mkdirs()

    def time_of(self, batch_id: int, previous_ms: int | None) -> int:
        """The processing time of ``batch_id`` in ms, recorded the first time it is asked for.

        It is at least ``previous_ms`` and at least the recorded time of
        ``batch_id - 1``: a new process resumes its tasks at that time, and a
        clock set back must not move them back.
        """
        recorded = self._recorded(batch_id)
        if recorded is not None:
            return recorded
        now = self.clock()
        floor = previous_ms if previous_ms is not None else self._recorded(batch_id - 1)
        if floor is not None:
            now = max(now, floor)
        name = f"{batch_id}.json"
        self.directory.write_text(name, json.dumps({"batch_id": batch_id, "time_ms": now}))
        self.directory.delete(f"{batch_id - KEEP_TIMES}.json")
        return now

    def started(self, batch_id: int) -> bool:
        """Whether ``batch_id`` was started before (its time is recorded): running it now is a replay."""
        return self._recorded(batch_id) is not None

    def _recorded(self, batch_id: int) -> int | None:
        name = f"{batch_id}.json"
        if batch_id < 0 or not self.directory.exists(name):
            return None
        return int(json.loads(self.directory.read_text(name))["time_ms"])
