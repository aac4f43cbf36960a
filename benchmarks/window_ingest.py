"""Ingest cost of a Storm-style event-time window: a batch's tuples one by one or at once (``execute_batch``).

Workload as ``benchmarks/race.py``, without Spark: N events (default 400,000) of
100 keys, 1 ms apart with up to 2 s of disorder, in 10 micro-batches, routed by
key to 2 tasks; sliding event-time windows of 10 s every 5 s, lag 5 s, the
watermark emitted at every batch end; the bolt sums ``window.get()`` per key.
Each task runs as the driver runs it (``advance_to``, the batch's tuples,
``end_batch``), in memory (``WindowedBoltTask``) and stored
(``StoredWindowedBoltTask`` with a memory backend and a commit per batch,
as driver mode runs it). Prints, per path, the seconds spent adding tuples
(``ingest``: ``execute`` of each or ``execute_batch``), firing windows and
running the bolt (``windows``: ``end_batch`` and ``close``) and committing; the
``Tuple`` objects are built before timing (the same for both paths). Then checks
that both paths give the same activations (tuples, new, expired, bounds) and
emissions.

Run: ``python benchmarks/window_ingest.py [--events N] [--no-check]``.
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.race import CLOCK_STEP, DISORDER, LAG, LENGTH, SLIDE, StormKeyedSum, storm_bolt
from bolts import Fields, TaskOptions, make_task
from bolts.task_input import TaskInput
from state_backends.memory import MemoryBackend

KEYS, BATCHES, TASKS = 100, 10, 2
FIELDS = ("key", "ts", "value")


def bolt() -> StormKeyedSum:
    return storm_bolt()  # the race's Storm bolt and windows


def generate(events: int) -> list[list[TaskInput]]:
    """Per batch, per task, the task's share of the batch (Arrow segments, as the batch loop cuts them)."""
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(7)
    per_batch = events // BATCHES
    fields = Fields(*FIELDS)
    batches = []
    for b in range(BATCHES):
        arrival = np.arange(b * per_batch, (b + 1) * per_batch, dtype=np.int64)
        ts = np.maximum(arrival - rng.integers(0, DISORDER + 1, per_batch), 0)
        keys = np.char.add("k", rng.integers(0, KEYS, per_batch).astype(str))
        table = pa.table({"key": keys, "ts": ts, "value": rng.integers(0, 100, per_batch)})
        owner = np.array([zlib.crc32(k.encode()) % TASKS for k in keys.tolist()])
        inputs = []
        for task in range(TASKS):
            batch = TaskInput()
            batch.append_table("events", 0, "default", fields, table.filter(pa.array(owner == task)))
            batch.tuples()  # built before timing: the same for both paths
            inputs.append(batch)
        batches.append(inputs)
    return batches


def run(batches: list[list[TaskInput]], batched: bool, stored: bool,
        observer: Callable[[Any], None] | None = None) -> tuple[dict[str, float], list[Any]]:
    """Drive the tasks through every batch; returns the seconds per phase and the emissions per task."""
    emitted: list[list[Any]] = [[] for _ in range(TASKS)]
    tasks = []
    for i in range(TASKS):
        store = MemoryBackend().namespace(f"sum/{i}") if stored else None
        task = make_task(bolt(), TaskOptions("sum", (("events", "default"),), i, TASKS, 0, store,
                                             observer, watermark_at_batch_end=True))
        task.prepare({}, lambda stream, values, out=emitted[i]: out.append(values))
        tasks.append(task)
    seconds = {"ingest": 0.0, "windows": 0.0, "commit": 0.0}
    for b, inputs in enumerate(batches):
        for task, batch in zip(tasks, inputs, strict=True):
            task.advance_to((b + 1) * CLOCK_STEP)
            start = time.perf_counter()
            if batched:
                task.execute_batch(batch)
            else:
                for tup in batch.tuples():
                    task.execute(tup)
            mid = time.perf_counter()
            task.end_batch()
            end = time.perf_counter()
            if stored:
                task.commit(b + 1)
            seconds["ingest"] += mid - start
            seconds["windows"] += end - mid
            seconds["commit"] += time.perf_counter() - end
    start = time.perf_counter()
    for task in tasks:
        task.close()
    seconds["windows"] += time.perf_counter() - start
    return seconds, emitted


def activations(batches: list[list[TaskInput]], batched: bool) -> tuple[list[Any], list[Any]]:
    """Every activation (tuples, new and expired as values, bounds) and the emissions."""
    seen: list[Any] = []

    def record(window: Any) -> None:
        values = [[t.values for t in part] for part in (window.get(), window.get_new(), window.get_expired())]
        seen.append((*values, window.start_timestamp, window.end_timestamp))

    _, emitted = run(batches, batched, stored=False, observer=record)
    return seen, emitted


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", type=int, default=400_000)
    p.add_argument("--no-check", action="store_true", help="skip the equality check of both paths")
    args = p.parse_args()
    batches = generate(args.events)
    events = sum(len(b) for inputs in batches for b in inputs)
    print(f"{events:,} events, {BATCHES} batches, {TASKS} tasks; sliding {LENGTH} ms / {SLIDE} ms, lag {LAG} ms")
    print(f"{'task':8} {'path':10} {'ingest s':>9} {'windows s':>10} {'commit s':>9} {'total s':>8} "
          f"{'ingest ev/s':>12}")
    for stored in (False, True):
        for batched in (False, True):
            seconds, _ = run(batches, batched, stored)
            total = sum(seconds.values())
            print(f"{'stored' if stored else 'memory':8} {'batch' if batched else 'per-tuple':10} "
                  f"{seconds['ingest']:9.3f} {seconds['windows']:10.3f} {seconds['commit']:9.3f} {total:8.3f} "
                  f"{events / seconds['ingest']:12,.0f}")
    if not args.no_check:
        one_by_one, batch = activations(batches, False), activations(batches, True)
        if one_by_one != batch:
            raise SystemExit("MISMATCH: execute_batch and execute one by one gave different windows or emissions")
        print(f"check: both paths gave the same {len(batch[0])} activations and {sum(map(len, batch[1]))} emissions")


if __name__ == "__main__":
    main()
