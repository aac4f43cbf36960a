"""What the executor keeps per batch id beside Spark's checkpoint: processing times and outputs.

A batch's processing time is recorded under ``<checkpoint>/squall/`` the first
time the batch runs and read back when Spark runs it again. A batch's outputs
go to one file per batch id that has outputs, replaced as a whole, so a
replayed batch overwrites rather than duplicates them; a batch with none (an
idle heartbeat batch) writes no file. In memory only a bounded tail of outputs
is kept.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
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


OutputKey = int | str  # a batch id, or "final" for the shutdown flush
OutputSink = Callable[[OutputKey, list[Output]], None]
DEFAULT_OUTPUTS_IN_MEMORY = 10_000


class OutputLog:
    """The topology's outputs: a bounded tail in memory and (with ``directory``) every batch's as JSON lines.

    ``write(key, outputs)`` records batch ``key``. With ``directory``, a batch
    with outputs is written to ``batch-<id>.jsonl`` (``final.jsonl`` for the
    shutdown flush), replaced atomically, so a replayed batch overwrites its
    file exactly; a batch with none writes no file, and removes the file an
    earlier run of the same id left. ``final.jsonl`` is always written, empty
    or not: it records that the flush ran. In memory, :attr:`batches` keeps
    only the last ``keep`` outputs (``None``: all of them), trimming the oldest
    batches first. ``on_output(key, outputs)`` is called after each batch with
    outputs is recorded, and again with the same key and outputs when Spark
    replays the batch: a sink that stores by key stays exact.
    """

    FINAL = "final"

    def __init__(
        self, directory: Path | None, keep: int | None = DEFAULT_OUTPUTS_IN_MEMORY, on_output: OutputSink | None = None,
    ) -> None:
        self.directory = directory
        self.keep = keep
        self.on_output = on_output
        self.batches: dict[OutputKey, list[Output]] = {}
        self.held = 0  # outputs in self.batches
        self.count = 0  # outputs recorded by this log, a replayed batch counted once
        self.trimmed = False  # whether older outputs were dropped from memory
        self._last: tuple[OutputKey, int] | None = None  # the last batch written and its number of outputs
        self._ids: tuple[int, int] | None = None  # the first and last batch ids written
        self._flushed = False  # whether the final flush was written
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)

    def write(self, key: OutputKey, outputs: Iterable[Output]) -> None:
        """Record (replace) the outputs of batch ``key`` (a batch id, or ``"final"`` for the shutdown flush)."""
        records = list(outputs)
        if self.directory is not None:
            self._write_file(key, records)
        if self._last is not None and self._last[0] == key:
            self.count -= self._last[1]
        self.count += len(records)
        self._last = (key, len(records))
        if isinstance(key, int):
            self._ids = (key, key) if self._ids is None else (min(self._ids[0], key), max(self._ids[1], key))
        else:
            self._flushed = True
        self.held -= len(self.batches.pop(key, []))
        if records:
            self.batches[key] = records
            self.held += len(records)
            self._trim()
        if records and self.on_output is not None:
            self.on_output(key, records)

    def _write_file(self, key: OutputKey, records: list[Output]) -> None:
        path = self.directory / self.file_name(key)  # type: ignore[operator]
        if not records and key != self.FINAL:
            path.unlink(missing_ok=True)
            return
        lines = [json.dumps({"component": o.component, "task": o.task, "stream": o.stream,
                             "values": to_json(o.values)}) for o in records]
        _write_atomically(path, "".join(line + "\n" for line in lines))

    def _trim(self) -> None:
        if self.keep is None:
            return
        while self.held > self.keep:
            oldest = next(iter(self.batches))
            excess, records = self.held - self.keep, self.batches[oldest]
            if len(records) <= excess:
                del self.batches[oldest]
                self.held -= len(records)
            else:
                self.batches[oldest] = records[excess:]
                self.held -= excess
            self.trimmed = True

    @classmethod
    def file_name(cls, key: OutputKey) -> str:
        """The name of batch ``key``'s file: ``batch-<id, 12 digits>.jsonl`` or ``final.jsonl``."""
        return f"batch-{key:012d}.jsonl" if isinstance(key, int) else f"{key}.jsonl"

    def all(self) -> list[Output]:
        """The outputs held in memory: batches in id order, then the final flush.

        That is every output unless more than ``keep`` were recorded (:attr:`trimmed`):
        then the last ``keep`` of them; :meth:`records` reads back all of them from the files.
        """
        ids = sorted(k for k in self.batches if isinstance(k, int))
        result = [o for k in ids for o in self.batches[k]]
        return result + self.batches.get(self.FINAL, [])

    def records(self) -> Iterator[dict[str, Any]]:
        """Every output this log wrote, read back from its files as JSON records: batches in id order, then ``final``.

        Needs ``directory``. Only the batch ids this log wrote are read, not the
        files an earlier submission of the same name left.
        """
        if self.directory is None:
            msg = "OutputLog.records: the outputs were not written to files; give the runner an output_dir"
            raise ValueError(msg)
        names = []
        if self._ids is not None:
            first, last = self._ids
            names = sorted(p.name for p in self.directory.glob("batch-*.jsonl")
                           if first <= int(p.name.removeprefix("batch-").removesuffix(".jsonl")) <= last)
        if self._flushed:
            names.append(self.file_name(self.FINAL))
        for name in names:
            with (self.directory / name).open(encoding="utf-8") as lines:
                yield from (json.loads(line) for line in lines)
