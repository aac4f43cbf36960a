"""What the executor keeps per batch id beside Spark's checkpoint: processing times and outputs.

Both are written under ``<checkpoint>/squall/``: a batch's processing time is
recorded the first time the batch runs and read back when Spark runs it again;
a batch's outputs are written to one file per batch id, replaced as a whole, so
a replayed batch overwrites rather than duplicates them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from bolts import Tuple
from topologies.executor.runtime import Output

KEEP_TIMES = 200  # batch times kept on disk; Spark never replays more than the last batch


def local_path(location: str) -> Path:
    """A local filesystem path from ``location`` (``file:`` URLs included)."""
    return Path(location.removeprefix("file://").removeprefix("file:"))


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class BatchClock:
    """Processing time per batch id: recorded once from ``clock``, reused on replay, never going back."""

    def __init__(self, directory: Path, clock: Callable[[], int]) -> None:
        self.directory = directory
        self.clock = clock
        directory.mkdir(parents=True, exist_ok=True)

    def time_of(self, batch_id: int, previous_ms: int | None) -> int:
        """The processing time of ``batch_id`` in ms (at least ``previous_ms``)."""
        path = self.directory / f"{batch_id}.json"
        if path.exists():
            return int(json.loads(path.read_text(encoding="utf-8"))["time_ms"])
        now = self.clock()
        if previous_ms is not None:
            now = max(now, previous_ms)
        _write_atomically(path, json.dumps({"batch_id": batch_id, "time_ms": now}))
        old = self.directory / f"{batch_id - KEEP_TIMES}.json"
        old.unlink(missing_ok=True)
        return now


def to_json(value: Any) -> Any:
    """A JSON-ready form of an emitted value: tuples (late tuples) as dicts, datetimes as ISO text."""
    if isinstance(value, Tuple):
        return {"stream": value.stream, "source_component": value.source_component,
                "values": {k: to_json(v) for k, v in value.as_dict().items()}}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, datetime):
        return value.isoformat()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


class OutputLog:
    """The outputs of every batch, in memory and (with ``directory``) as JSON lines per batch id."""

    FINAL = "final"

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.batches: dict[int | str, list[Output]] = {}
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)

    def write(self, key: int | str, outputs: Iterable[Output]) -> None:
        """Record (replace) the outputs of batch ``key`` (a batch id, or ``"final"`` for the shutdown flush)."""
        records = list(outputs)
        self.batches[key] = records
        if self.directory is not None:
            name = f"batch-{key:012d}.jsonl" if isinstance(key, int) else f"{key}.jsonl"
            lines = [json.dumps({"component": o.component, "task": o.task, "stream": o.stream,
                                 "values": to_json(o.values)}) for o in records]
            _write_atomically(self.directory / name, "".join(line + "\n" for line in lines))

    def all(self) -> list[Output]:
        """Every output: batches in id order, then the final flush."""
        ids = sorted(k for k in self.batches if isinstance(k, int))
        result = [o for k in ids for o in self.batches[k]]
        return result + self.batches.get(self.FINAL, [])
