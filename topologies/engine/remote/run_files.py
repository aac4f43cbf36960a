"""What a client reads of a run whose batches run in another process: outputs and figures, through storage.

Under Spark Connect ``foreachBatch`` runs in a Python process beside the
server, so the handle in the client cannot look into the batch loop's memory.
That loop writes, beside the checkpoint (``<checkpoint>/<name>/squall/run``):

- ``outputs/batch-<id>.msgpack`` (``final.msgpack`` for the shutdown flush):
  the batch's terminal outputs with their values as they were emitted
  (:mod:`bolts.codecs.value_codec`), replaced by a replay, none for a batch
  without outputs;
- ``metrics/<id>.json``: the batch's :class:`~topologies.metrics.BatchMetrics`
  and the run's totals after it (the last :data:`KEEP` batches are kept).

:class:`RunReader` reads them back for :class:`~topologies.runner.TopologyHandle`.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from bolts.codecs.value_codec import pack_value, unpack_value
from topologies.metrics import BatchMetrics, BoltMetrics
from topologies.sinks.base import OutputBatch
from topologies.sinks.records import Output
from topologies.storage import StorageDir

KEEP = 100
FINAL = "final"


def outputs_name(key: int | str) -> str:
    """The file of batch ``key``'s outputs."""
    return f"batch-{key:012d}.msgpack" if isinstance(key, int) else f"{key}.msgpack"


class RunWriter:
    """Writes a run's outputs and figures for a client (see the module docstring); a sink of the run's outputs.

    ``streams``: the output streams that come to the batch loop's process.
    """

    name = "run files"
    schemas: Mapping[str, Any] = {}
    keeps_on_executors = False

    def __init__(self, directory: StorageDir, streams: Collection[str] | None = None) -> None:
        self.outputs = directory.child("outputs")
        self.metrics = directory.child("metrics")
        self.streams = None if streams is None else frozenset(streams)
        self.outputs.mkdirs()
        self.metrics.mkdirs()

    def write(self, batch: OutputBatch) -> None:
        """Replace batch ``key``'s outputs (a batch with none has no file, except the flush's)."""
        key = batch.key
        records = [[o.component, o.task, o.stream, list(o.values)] for o in batch.records(self.streams)]
        if not records and key != FINAL:
            self.outputs.delete(outputs_name(key))
            return
        self.outputs.write_bytes(outputs_name(key), pack_value(records))

    def write_metrics(self, metrics: BatchMetrics, totals: dict[str, Any]) -> None:
        """Record batch ``metrics`` with the run's ``totals`` after it; forget the batch :data:`KEEP` before."""
        record = {"batch": metrics.as_dict(), "totals": totals}
        self.metrics.write_text(f"{metrics.batch_id:012d}.json", json.dumps(record))
        self.metrics.delete(f"{metrics.batch_id - KEEP:012d}.json")


def metrics_from(record: dict[str, Any]) -> BatchMetrics:
    """The :class:`BatchMetrics` that :meth:`BatchMetrics.as_dict` made ``record`` from."""
    bolts = {bid: BoltMetrics(**b) for bid, b in record["bolts"].items()}
    return BatchMetrics(batch_id=record["batch_id"], input_rows=record["input_rows"], time_ms=record["time_ms"],
                        watermark=record["watermark"], bolts=bolts, replay=record["replay"])


class RunReader:
    """A client's view of the files a :class:`RunWriter` wrote for batch ids from ``first`` on."""

    def __init__(self, directory: StorageDir, first: int) -> None:
        self.outputs_dir = directory.child("outputs")
        self.metrics_dir = directory.child("metrics")
        self.first = first

    def _batch_ids(self, directory: StorageDir, prefix: str, suffix: str) -> list[int]:
        ids = []
        for name in directory.names():
            stem = name.removeprefix(prefix).removesuffix(suffix)
            if name.startswith(prefix) and name.endswith(suffix) and stem.isdigit() and int(stem) >= self.first:
                ids.append(int(stem))
        return sorted(ids)

    def outputs(self, flushed: bool) -> list[Output]:
        """Every output of this run: batches in id order, then the flush's when ``flushed``."""
        keys: list[int | str] = list(self._batch_ids(self.outputs_dir, "batch-", ".msgpack"))
        if flushed and self.outputs_dir.exists(outputs_name(FINAL)):
            keys.append(FINAL)
        result = []
        for key in keys:
            for component, task, stream, values in unpack_value(self.outputs_dir.read_bytes(outputs_name(key))):
                result.append(Output(component, task, stream, list(values)))
        return result

    def metrics(self) -> list[tuple[BatchMetrics, dict[str, Any]]]:
        """The kept batches' figures with the run's totals after each, oldest first."""
        records = []
        for batch_id in self._batch_ids(self.metrics_dir, "", ".json"):
            record = json.loads(self.metrics_dir.read_text(f"{batch_id:012d}.json"))
            records.append((metrics_from(record["batch"]), record["totals"]))
        return records
