"""What the executor keeps per batch id beside Spark's checkpoint: processing times and outputs.

A batch's processing time is recorded under ``<checkpoint>/squall/`` the first
time the batch runs and read back when Spark runs it again. A batch's outputs
go to one file per batch id that has outputs, replaced as a whole, so a
replayed batch overwrites rather than duplicates them; a batch with none (an
idle heartbeat batch) writes no file. In memory only a bounded tail of outputs
is kept. Both directories are ``StorageDir`` objects (``storage``):
local, or on a filesystem of pyarrow's (``hdfs://``, ``s3://`` or ``s3a://``, ``gs://``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from topologies.executor.storage import StorageDir, as_dir, local_path
from topologies.sinks.records import FINAL, Output, OutputKey, record_line, to_json

KEEP_TIMES = 200  # batch times kept on disk; Spark never replays more than the last batch


__all__ = ["BatchClock", "OutputLog", "local_path", "to_json"]


def wall_clock_ms() -> int:
    """The wall clock in epoch milliseconds: read once per new batch, by the executor only."""
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
    replays the batch: a sink that stores by key stays exact. ``fields``: each
    ``(component, stream)``'s field names, which give a file's record its
    ``fields`` object (see :mod:`topologies.sinks.records`). ``mirror(key, outputs)`` is
    called for every batch written, one without outputs too (a replay may have none where its first run had).
    """

    FINAL = FINAL

    def __init__(
        self, directory: StorageDir | Path | None, keep: int | None = DEFAULT_OUTPUTS_IN_MEMORY,
        on_output: OutputSink | None = None, mirror: OutputSink | None = None,
        fields: Mapping[tuple[str, str], Sequence[str]] | None = None,
    ) -> None:
        self.fields = dict(fields or {})
        self.directory = None if directory is None else as_dir(directory)
        self.mirror = mirror
        self.keep = keep
        self.on_output = on_output
        self.batches: dict[OutputKey, list[Output]] = {}
        self.held = 0  # outputs in self.batches
        self.count = 0  # outputs recorded by this log, a replayed batch counted once
        self.trimmed = False  # whether older outputs were dropped from memory
        self._last: tuple[OutputKey, int] | None = None  # the last batch written and its number of outputs
        self._ids: tuple[int, int] | None = None  # the first and last batch ids written
        self._flushed = False  # whether the final flush was written
        if self.directory is not None:
            self.directory.mkdirs()

    def write(self, key: OutputKey, outputs: Iterable[Output]) -> None:
        """Record (replace) the outputs of batch ``key`` (a batch id, or ``"final"`` for the shutdown flush)."""
        records = list(outputs)
        if self.directory is not None:
            self._write_file(key, records)
        if self.mirror is not None:
            self.mirror(key, records)
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
        directory = self.directory
        if directory is None:
            return
        name = self.file_name(key)
        if not records and key != self.FINAL:
            directory.delete(name)
            return
        lines = [record_line(o, self.fields.get((o.component, o.stream))) for o in records]
        directory.write_text(name, "".join(line + "\n" for line in lines))

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
            names = sorted(name for name in self.directory.names()
                           if name.startswith("batch-") and name.endswith(".jsonl")
                           and first <= int(name.removeprefix("batch-").removesuffix(".jsonl")) <= last)
        if self._flushed:
            names.append(self.file_name(self.FINAL))
        for name in names:
            yield from (json.loads(line) for line in self.directory.read_text(name).splitlines() if line)
