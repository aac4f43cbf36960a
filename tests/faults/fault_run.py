"""One driver process of the fault suite: runs the ``mixed`` topology to the end, or dies by SIGKILL at a named point.

Usage: ``python -m tests.faults.fault_run '<json>'`` with keys ``data`` (the
input files), ``checkpoint``, ``output`` (the runner's ``output_dir``),
``state`` (a Redis or HBase URL), ``name`` (the query name), ``tables``
(optional: ``{"component:stream": path}``, each stream also written there by a
Parquet :class:`~topologies.sinks.TableSink`), ``delta_tables`` (the same,
as Delta tables: needs ``delta_jars``, comma-separated, for a session with
Delta's jars and settings; a completed run writes their rows to
``<checkpoint>/delta-tables.json``), ``master``
(default ``local[1]``), ``mode`` (default ``driver``), ``conf`` (the
topology's conf, default none), and optionally
``hold_after``, a batch id: after running it the driver writes
``<checkpoint>/held`` and waits (up to 300 s) for ``<checkpoint>/release``
before it returns the batch to Spark (a test does something to the world meanwhile); and
``kill``: ``{"point": <name>, "batch": <id or null>, "hit": n}``. The
process then kills its whole process group (itself and Spark's JVM, as a
crashed driver host would) with SIGKILL the ``n``-th time it reaches the
point while running batch ``batch`` (null: outside batches, in the flush),
after writing ``<checkpoint>/killed`` naming it. Without ``kill`` (or when the point is
reached fewer than ``n`` times) the run ends normally, flushes, and writes
``<checkpoint>/hits.json``: how often it reached each point.

Start it with ``start_new_session=True`` so the group is the run's own.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

START = 100_000
STEP = 1_000
DELTA_CONF = {"spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
              "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
              # Delta rebuilds a table's snapshot in 50 partitions by default: a few rows here, so one will do.
              "spark.databricks.delta.snapshotPartitions": "1"}


def _points() -> dict[str, tuple[Any, str, str]]:
    """Each kill point: (owner, attribute, "before" or "after" the call)."""
    from topologies.engine import BatchLoop, stage, stored_task
    from topologies.engine.delivery import SinkDelivery
    from topologies.engine.flush_record import FlushRecord
    from topologies.engine.task_store import TaskStore

    return {
        # A task ran its batch (state in memory changed), nothing of it committed.
        "mid-batch": (stored_task, "before_commit", "after"),
        # Some tasks of the batch committed to the store, the others not.
        "between-task-commits": (TaskStore, "commit", "after"),
        # Every task committed, the batch's outputs not written.
        "before-outputs": (SinkDelivery, "write", "before-batch"),
        # The batch ran, committed and wrote its outputs; Spark has not committed it.
        "before-spark-commit": (BatchLoop, "_run", "after"),
        # The flush is recorded as begun; no task closed yet.
        "flush-begun": (FlushRecord, "begin", "after"),
        # Some tasks closed (their final panes emitted), others not.
        "flush-closing": (stage, "close_task", "after"),
        # The flush's outputs are written; it is not recorded as done.
        "flush-written": (SinkDelivery, "write", "after-final"),
    }


def _install(kill: dict[str, Any] | None, marker: Path) -> Counter[str]:

    hits: Counter[str] = Counter()  # per point, in all
    in_batch: Counter[tuple[str, int | None]] = Counter()  # per point and batch id (None: outside batches)
    current: list[int | None] = [None]

    def maybe_kill(point: str) -> None:
        hits[point] += 1
        in_batch[point, current[0]] += 1
        if (kill is not None and kill["point"] == point and kill.get("batch") == current[0]
                and in_batch[point, current[0]] == kill["hit"]):
            marker.write_text(json.dumps(kill))
            os.killpg(os.getpgrp(), signal.SIGKILL)

    for point, (owner, attribute, when) in _points().items():
        original = getattr(owner, attribute)
        setattr(owner, attribute, _hooked(original, point, when, maybe_kill))
    from topologies.engine import BatchLoop

    run = BatchLoop._run

    def tracked(self: Any, batch_id: int, *args: Any, **kwargs: Any) -> None:
        current[0] = batch_id
        try:
            run(self, batch_id, *args, **kwargs)
        finally:
            current[0] = None

    BatchLoop._run = tracked  # type: ignore[method-assign]
    return hits


def _hooked(original: Callable[..., Any], point: str, when: str, reach: Callable[[str], None]) -> Callable[..., Any]:
    from topologies.sinks.records import FINAL

    def hooked(*args: Any, **kwargs: Any) -> Any:
        key = getattr(args[1], "key", None) if len(args) > 1 else None  # SinkDelivery.write(self, batch)
        if when == "before-batch" and isinstance(key, int):
            reach(point)
        result = original(*args, **kwargs)
        if when == "after" or (when == "after-final" and key == FINAL):
            if point != "flush-begun" or result:
                reach(point)
        return result

    return hooked


def _hold_after(batch_id: int, checkpoint: Path) -> None:
    from topologies.engine import BatchLoop

    original = BatchLoop._run

    def run_then_hold(self: Any, bid: int, *args: Any, **kwargs: Any) -> None:
        original(self, bid, *args, **kwargs)
        if bid == batch_id:
            (checkpoint / "held").touch()
            deadline = time.monotonic() + 300
            while not (checkpoint / "release").exists() and time.monotonic() < deadline:
                time.sleep(0.05)

    BatchLoop._run = run_then_hold  # type: ignore[method-assign]


def main() -> None:
    args = json.loads(sys.argv[1])
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.cluster.cases import mixed
    from tests.topologies.distributed_run import session
    from topologies import SparkRunner
    from topologies.sinks import TableSink

    logging.basicConfig(level=logging.WARNING, format="%(name)s %(levelname)s %(message)s")
    logging.getLogger("squall.state").setLevel(logging.INFO)  # the store's retries, for the tests to see
    checkpoint = Path(args["checkpoint"])
    checkpoint.mkdir(parents=True, exist_ok=True)
    hits = _install(args.get("kill"), checkpoint / "killed")
    if args.get("hold_after") is not None:
        _hold_after(args["hold_after"], checkpoint)
    delta_jars, delta_tables = args.get("delta_jars"), args.get("delta_tables", {})
    spark = session(args.get("master", "local[1]"), DELTA_CONF | {"spark.jars": delta_jars} if delta_jars else None)
    times = checkpoint / args["name"] / "squall" / "batch-times"
    # Batch b runs at START + b * STEP in every process: a new batch id is the number of batches recorded so far.
    recorded = len(list(times.glob("*.json"))) if times.is_dir() else 0
    clock = iter(range(START + recorded * STEP, 2**62, STEP))
    runner = SparkRunner(spark, mode=args.get("mode", "driver"), state=args["state"], checkpoint_location=checkpoint,
                         output_dir=args["output"], clock=lambda: next(clock), conf=args.get("conf"),
                         sinks=[TableSink(s, path=p) for s, p in args.get("tables", {}).items()]
                         + [TableSink(s, path=p, format="delta", name=f"{s}-delta") for s, p in delta_tables.items()])
    handle = runner.submit(args["name"], mixed(Path(args["data"])), available_now=True)
    if not handle.await_termination(600):
        msg = f"fault_run: query {args['name']} did not end within 600 s"
        raise SystemExit(msg)
    (checkpoint / "hits.json").write_text(json.dumps(hits))
    if delta_tables:
        rows = {s: [json.dumps(r.asDict(recursive=True), sort_keys=True, default=str)
                    for r in spark.read.format("delta").load(p).collect()] for s, p in delta_tables.items()}
        (checkpoint / "delta-tables.json").write_text(json.dumps(rows))
    spark.stop()


if __name__ == "__main__":
    main()
