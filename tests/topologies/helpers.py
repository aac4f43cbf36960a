"""Shared pieces of the topology tests: a recording bolt, input files, and the BoltHarness reference."""

from __future__ import annotations

import copy
import itertools
import tempfile
from collections import deque
from collections.abc import Generator, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from bolts import BaseBolt, BaseWindowedBolt, Fields
from topologies.engine import BatchClock, BatchLoop, batch_loop
from topologies.examples._run import write_json_files
from topologies.groupings import AllGrouping, FieldsGrouping, GlobalGrouping, Grouping, ShuffleGrouping
from topologies.testing import BoltHarness

R = TypeVar("R")
FIELDS = ("key", "ts", "value")
SCHEMA = "key STRING, ts BIGINT, value BIGINT"
START = 100_000
STEP = 1_000


class Record(BaseWindowedBolt):
    """Emits what each activation held: bounds, values, and how many tuples were new and expired."""

    def execute(self, window):
        values = [t["value"] for t in window.get()]
        self.collector.emit([window.start_timestamp, window.end_timestamp, values,
                             len(window.get_new()), len(window.get_expired())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("start", "end", "values", "new", "expired"))


class LateValues(BaseBolt):
    def execute(self, input):
        late = input["late_tuple"]
        self.collector.emit([late["key"], late["ts"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "ts"))


def batches_of_rows(files: int = 4, per_file: int = 8) -> list[list[dict[str, Any]]]:
    """Rows in event-time order per file, with one row per file (after the first) far too old: late."""
    out = []
    for f in range(files):
        rows = [{"key": f"k{(f + i) % 3}", "ts": f * 2_000 + i * 250, "value": f * 100 + i} for i in range(per_file)]
        if f:
            rows.insert(3, {"key": "k1", "ts": f * 2_000 - 1_900, "value": -f})
        out.append(rows)
    return out


def write_batches(directory: Path, batches: list[list[dict[str, Any]]]) -> Path:
    return write_json_files(directory, batches)


def loop_of(topology: Any, times: Iterable[int], directory: Path | None = None, **options: Any) -> BatchLoop:
    """A batch loop of ``topology`` (driver mode, memory state unless ``options`` say otherwise), batches at ``times``.

    Each new batch id takes the next of ``times`` as its processing time; ``options`` are :func:`batch_loop`'s.
    """
    where = directory if directory is not None else Path(tempfile.mkdtemp(prefix="squall-loop-"))
    return batch_loop(topology, BatchClock(where, iter(times).__next__), **options)


def counting_clock(start: int = START, step: int = STEP):
    counter = itertools.count(start, step)
    return lambda: next(counter)


def side_by_side(runs: Mapping[str, Generator[Any, None, R]], width: int = 2, timeout: float = 600) -> dict[str, R]:
    """Each run's result, by its key, with up to ``width`` runs' queries running at once in the session.

    A run is a generator that submits a query and yields its handle, as many times as it has queries one after
    another (a restart resubmits), and returns its result; each yielded handle is awaited (``timeout`` seconds,
    else ``SystemExit`` naming the run) before the run goes on. Runs are started in order. For test runs of
    independent queries (their own names, checkpoints and clocks), whose outputs are those of runs one after
    another: the wall time is less, as one query's Python and scheduling gaps leave the cores to another's, and the
    session runs several queries at once, as an application's does.
    """
    results: dict[str, R] = {}
    waiting = deque(runs.items())
    running: deque[tuple[str, Generator[Any, None, R], Any]] = deque()

    def advance(key: str, run: Generator[Any, None, R]) -> None:
        try:
            running.append((key, run, next(run)))
        except StopIteration as end:
            results[key] = end.value

    while waiting or running:
        while waiting and len(running) < width:
            advance(*waiting.popleft())
        if not running:  # the runs started last ended without a query to await
            continue
        key, run, handle = running.popleft()
        if not handle.await_termination(timeout):
            raise SystemExit(f"{key}: a query did not end within {timeout:g} s")
        advance(key, run)
    return results


def route(grouping: Grouping, batches: list[list[dict[str, Any]]], n: int) -> list[list[list[dict[str, Any]]]]:
    """rows per batch per task, as the grouping should send them: [batch][task] -> rows."""
    counter = 0
    routed = []
    fields = Fields(FIELDS)
    for rows in batches:
        per_task: list[list[dict[str, Any]]] = [[] for _ in range(n)]
        for row in rows:
            values = [row[f] for f in FIELDS]
            for t in grouping.targets(values, fields, n, counter):
                per_task[t].append(row)
            counter += 1
        routed.append(per_task)
    return routed


def harness_outputs(bolt: BaseBolt, grouping: Grouping, n: int, batches, component: str,
                    source: str = "events", times: Sequence[int] | None = None) -> dict[int, list]:
    """What BoltHarness gives per task for the same input, batch times, and a final close().

    ``watermark_per_batch``: the executor emits event-time watermarks at the end of every batch.
    """
    times = times or [START + STEP * b for b in range(len(batches))]
    expected = {}
    routed = route(grouping, batches, n)
    for task in range(n):
        h = BoltHarness(copy.deepcopy(bolt), fields=FIELDS, source_component=source, component=component,
                        start_time_ms=times[0], watermark_per_batch=True)
        for b, per_task in enumerate(routed):
            h.advance_to(times[b])
            h.feed_batch(per_task[task])
        h.close()
        expected[task] = [(s, list(v)) for s, v in h.emitted]
    return expected


def actual_outputs(outputs, component: str, n: int) -> dict[int, list]:
    return {task: [(o.stream, list(o.values)) for o in outputs if o.component == component and o.task == task]
            for task in range(n)}


GROUPINGS = {
    "fields": FieldsGrouping(Fields("key")),
    "shuffle": ShuffleGrouping(),
    "global": GlobalGrouping(),
    "all": AllGrouping(),
}


class Averages:
    """An object of the user's, as storm-starter's bolts emit them (not plain data)."""

    def __init__(self, total: int) -> None:
        self.total = total

    def __repr__(self) -> str:
        return f"Averages{{total={self.total}}}"


class EmitsAverages(BaseBolt):
    def execute(self, input):
        self.collector.emit("averages", [input["key"], Averages(input["value"])])

    def declare_output_fields(self, declarer):
        declarer.declare_stream("averages", Fields("key", "averages"))
