"""The sinks every run has: the outputs a handle reads, ``output_dir``'s files, and ``on_output``.

They are sinks like any other (:class:`~topologies.sinks.base.Sink`): the
batch loop writes every batch, and the shutdown flush (key ``"final"``), to
each, and again when Spark replays a batch, which replaces what its first run
wrote. They take the outputs that come to the batch loop's process: every
output stream but those a ``TableSink`` keeps on the executors in distributed
mode (``streams``, set by the runner).

- :class:`OutputLog`: a bounded tail in memory (:meth:`TopologyHandle.outputs`).
- :class:`OutputFiles`: each batch's outputs as JSON lines under ``output_dir``.
- :class:`OutputCallback`: ``SparkRunner(on_output=...)``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from topologies.sinks.base import OutputBatch
from topologies.sinks.records import FINAL, Output, OutputKey, record_line
from topologies.storage import StorageDir, as_dir

OutputSink = Callable[[OutputKey, list[Output]], None]
DEFAULT_OUTPUTS_IN_MEMORY = 10_000


class OutputLog:
    """The run's outputs in memory: batches in id order, then the flush; only the last ``keep`` of them.

    ``keep`` None keeps all (short runs only); with ``keep`` 0 it reads no
    stream (so a stream no other sink reads does not leave where its tuples
    were emitted, and is not counted either). A replayed batch replaces its
    outputs and counts once (:attr:`count`); :attr:`trimmed` says whether
    older outputs were dropped.
    """

    name = "outputs in memory"
    schemas: Mapping[str, Any] = {}
    keeps_on_executors = False

    def __init__(self, keep: int | None = DEFAULT_OUTPUTS_IN_MEMORY, streams: Collection[str] | None = None) -> None:
        self.keep = keep
        self.streams = frozenset() if keep == 0 else None if streams is None else frozenset(streams)
        self.batches: dict[OutputKey, Sequence[Output]] = {}  # a batch's tables built into records when read
        self.held = 0  # outputs in self.batches
        self.count = 0  # outputs recorded, a replayed batch counted once
        self.trimmed = False
        self._last: tuple[OutputKey, int] | None = None  # the last batch written and its number of outputs

    def write(self, batch: OutputBatch) -> None:
        """Record (replace) the outputs of ``batch``."""
        records = batch.records(self.streams)
        key = batch.key
        if self._last is not None and self._last[0] == key:
            self.count -= self._last[1]
        self.count += len(records)
        self._last = (key, len(records))
        self.held -= len(self.batches.pop(key, []))
        if records:
            self.batches[key] = records
            self.held += len(records)
            self._trim()

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

    def all(self) -> list[Output]:
        """The outputs held: batches in id order, then the final flush (the last ``keep`` when :attr:`trimmed`)."""
        ids = sorted(k for k in self.batches if isinstance(k, int))
        return [o for k in [*ids, FINAL] for o in self.batches.get(k, ())]


class OutputFiles:
    """Each batch's outputs as JSON lines: ``batch-<id, 12 digits>.jsonl``, and ``final.jsonl`` for the flush.

    A batch's file is replaced as a whole, so a replayed batch overwrites it; a
    batch without outputs writes no file (and removes one an earlier run of
    the same id left); ``final.jsonl`` is always written: it records that the
    flush ran. ``fields``: each ``(component, stream)``'s field names, which
    give a record its ``fields`` object (:mod:`topologies.sinks.records`).
    ``directory``: local, or on a filesystem of pyarrow's (``hdfs://``,
    ``s3://``, ``gs://``).
    """

    name = "output_dir"
    schemas: Mapping[str, Any] = {}
    keeps_on_executors = False

    def __init__(self, directory: StorageDir | Path, fields: Mapping[tuple[str, str], Sequence[str]],
                 streams: Collection[str] | None = None) -> None:
        self.directory = as_dir(directory)
        self.fields = dict(fields)
        self.streams = None if streams is None else frozenset(streams)
        self._ids: tuple[int, int] | None = None  # the first and last batch ids written
        self._flushed = False
        self.directory.mkdirs()

    @staticmethod
    def file_name(key: OutputKey) -> str:
        """The name of batch ``key``'s file."""
        return f"batch-{key:012d}.jsonl" if isinstance(key, int) else f"{key}.jsonl"

    def write(self, batch: OutputBatch) -> None:
        """Write (replace) ``batch``'s file."""
        key, records = batch.key, batch.records(self.streams)
        if isinstance(key, int):
            self._ids = (key, key) if self._ids is None else (min(self._ids[0], key), max(self._ids[1], key))
        else:
            self._flushed = True
        name = self.file_name(key)
        if not records and key != FINAL:
            self.directory.delete(name)
            return
        lines = [record_line(o, self.fields.get((o.component, o.stream))) for o in records]
        self.directory.write_text(name, "".join(line + "\n" for line in lines))

    def records(self) -> Iterator[dict[str, Any]]:
        """Every output written, read back as JSON records: batches in id order, then ``final``.

        Only the batch ids this sink wrote are read, not the files an earlier
        submission of the same name left.
        """
        names = []
        if self._ids is not None:
            first, last = self._ids
            names = sorted(name for name in self.directory.names()
                           if name.startswith("batch-") and name.endswith(".jsonl")
                           and first <= int(name.removeprefix("batch-").removesuffix(".jsonl")) <= last)
        if self._flushed:
            names.append(self.file_name(FINAL))
        for name in names:
            yield from (json.loads(line) for line in self.directory.read_text(name).splitlines() if line)


class OutputCallback:
    """``on_output(key, outputs)``, called after each batch that has outputs, again when Spark replays it."""

    name = "on_output"
    schemas: Mapping[str, Any] = {}
    keeps_on_executors = False

    def __init__(self, function: OutputSink, streams: Collection[str] | None = None) -> None:
        self.function = function
        self.streams = None if streams is None else frozenset(streams)

    def write(self, batch: OutputBatch) -> None:
        """Call the function with the batch's outputs, if it has any."""
        records = batch.records(self.streams)
        if records:
            self.function(batch.key, list(records))
