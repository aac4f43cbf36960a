"""Per-batch figures of a running topology, and where Spark users look for them.

Every batch a topology runs records a :class:`BatchMetrics`: per bolt, the tuples
delivered to its tasks, the tuples they emitted, the windows fired, the late
tuples, the bytes its tasks' commits wrote to the state store, and the wall time
the bolt took; plus the lowest watermark after the batch. The executor keeps the
last ``keep`` (100) of them in a :class:`MetricsHistory`, keyed by batch id (a
replayed batch replaces its entry).

Spark's ``StreamingQueryProgress`` cannot carry them as observed metrics: those
are aggregates over the rows of the streaming DataFrame, computed before
``foreachBatch`` hands the batch to the bolts, and a ``Dataset.observe`` run
inside ``foreachBatch`` is not reported in the query's progress. So squall
offers a listener instead: ``topologies.progress_listener.SquallProgressListener`` (a
module of its own, since it subclasses pyspark's class) is a
``StreamingQueryListener`` that, on each ``onQueryProgress`` of its query,
pairs Spark's progress with squall's :class:`BatchMetrics` of the same batch id
and hands both to a callback.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from bolts.storm.windowed_bolt_task import END_OF_TIME  # a task's watermark after the shutdown flush

if TYPE_CHECKING:
    from pyspark.sql.streaming.query import StreamingQueryProgress

DEFAULT_KEEP = 100


@dataclass(frozen=True)
class BoltMetrics:
    """One bolt's figures in one batch, summed over its tasks.

    ``tuples_in``: tuples delivered to the bolt's tasks; ``tuples_out``: tuples
    they emitted (on every stream); ``windows_fired``: window activations;
    ``late_tuples``: tuples that arrived behind the watermark; ``state_bytes``:
    key plus value bytes the tasks' commits wrote to the state store;
    ``batch_ms``: wall time of the bolt in this batch (in distributed mode, of
    the Spark job of its layer); ``watermark``: the bolt's lowest task watermark after the
    batch (epoch ms; None when a task has none); ``tasks_built``: its tasks
    built from the store for this batch rather than kept warm from the one
    before (a new process, a task that moved to another Python worker or
    executor, a replay).
    """

    tuples_in: int = 0
    tuples_out: int = 0
    windows_fired: int = 0
    late_tuples: int = 0
    state_bytes: int = 0
    batch_ms: float = 0.0
    watermark: int | None = None
    tasks_built: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The figures as a JSON-ready dict."""
        return {
            "tuples_in": self.tuples_in, "tuples_out": self.tuples_out, "windows_fired": self.windows_fired,
            "late_tuples": self.late_tuples, "state_bytes": self.state_bytes,
            "batch_ms": round(self.batch_ms, 3), "watermark": self.watermark, "tasks_built": self.tasks_built,
        }


@dataclass(frozen=True)
class BatchMetrics:
    """squall's figures of one batch: its id, input rows, processing time, watermark, and each bolt's figures.

    ``time_ms`` is the batch's processing time (epoch ms, as the bolts saw it);
    ``watermark`` the lowest watermark of any bolt task after the batch (None
    when no bolt runs in event time); ``replay`` whether Spark ran this batch id
    before; ``bolts`` maps each bolt id, in topological order, to its
    :class:`BoltMetrics`.
    """

    batch_id: int
    input_rows: int
    time_ms: int
    watermark: int | None
    bolts: Mapping[str, BoltMetrics] = field(default_factory=dict)
    replay: bool = False

    @property
    def windows_fired(self) -> int:
        """Windows fired by all bolts in this batch."""
        return sum(b.windows_fired for b in self.bolts.values())

    @property
    def late_tuples(self) -> int:
        """Late tuples of all bolts in this batch."""
        return sum(b.late_tuples for b in self.bolts.values())

    @property
    def state_bytes(self) -> int:
        """Bytes all bolts' commits wrote in this batch."""
        return sum(b.state_bytes for b in self.bolts.values())

    @property
    def batch_ms(self) -> float:
        """Wall time of all bolts in this batch."""
        return sum(b.batch_ms for b in self.bolts.values())

    def as_dict(self) -> dict[str, Any]:
        """The figures as a JSON-ready dict (the bolts' under ``"bolts"``)."""
        return {
            "batch_id": self.batch_id, "input_rows": self.input_rows, "time_ms": self.time_ms,
            "watermark": self.watermark, "replay": self.replay, "windows_fired": self.windows_fired,
            "late_tuples": self.late_tuples, "state_bytes": self.state_bytes, "batch_ms": round(self.batch_ms, 3),
            "bolts": {bid: b.as_dict() for bid, b in self.bolts.items()},
        }

    def bolts_line(self) -> str:
        """The bolts' figures in a compact form: ``sum in 40 out 3 fired 3 late 0 state 1.2 KB 4.1 ms``."""
        return "; ".join(
            f"{bid} in {b.tuples_in} out {b.tuples_out} fired {b.windows_fired} late {b.late_tuples} "
            f"state {format_bytes(b.state_bytes)} {b.batch_ms:.1f} ms"
            for bid, b in self.bolts.items()
        )


class MetricsHistory:
    """The :class:`BatchMetrics` of the last ``keep`` batches, by batch id; safe to read from another thread."""

    def __init__(self, keep: int = DEFAULT_KEEP) -> None:
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            msg = f"MetricsHistory: `keep` must be a positive int; got {keep!r} instead"
            raise ValueError(msg)
        self.keep = keep
        self._items: OrderedDict[int, BatchMetrics] = OrderedDict()
        self._lock = threading.Lock()

    def record(self, metrics: BatchMetrics) -> None:
        """Keep ``metrics`` (replacing an earlier run of its batch id), dropping the oldest past ``keep``."""
        with self._lock:
            self._items.pop(metrics.batch_id, None)
            self._items[metrics.batch_id] = metrics
            while len(self._items) > self.keep:
                self._items.popitem(last=False)

    def get(self, batch_id: int | None = None) -> BatchMetrics | None:
        """The figures of ``batch_id`` (the latest batch when None); None when not (or no longer) kept."""
        with self._lock:
            if batch_id is None:
                return next(reversed(self._items.values()), None)
            return self._items.get(batch_id)

    def __iter__(self) -> Iterator[BatchMetrics]:
        """The kept figures, oldest batch first."""
        with self._lock:
            items = list(self._items.values())
        return iter(items)

    def __len__(self) -> int:
        """How many batches are kept."""
        return len(self._items)


def format_bytes(n: int) -> str:
    """``512 B``, ``1.2 KB``, ``3.4 MB``."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def format_watermark(watermark: int | None, now_ms: int | None = None) -> str:
    """A watermark for people: ``2026-11-23T03:15:02.125Z (lag 4.2 s)``, ``end of time``, or ``-`` for none."""
    if watermark is None:
        return "-"
    if watermark >= END_OF_TIME:
        return "end of time"
    try:
        when = datetime.fromtimestamp(watermark / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return f"{watermark} ms"
    text = when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
    if now_ms is None:
        return text
    return f"{text} (lag {(now_ms - watermark) / 1000:.1f} s)"


ProgressCallback = Callable[["StreamingQueryProgress", "BatchMetrics | None"], None]


MetricsSource = MetricsHistory | Callable[[], "MetricsHistory | None"]
