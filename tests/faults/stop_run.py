"""One driver process that stops its query while a batch runs on the executors, or that runs it to the end.

Usage: ``python -m tests.faults.stop_run '<json>'`` with keys ``data``,
``checkpoint``, ``output``, ``state``, ``name``, ``master``, ``mode``
(``driver`` or ``distributed``), ``pause`` (a directory), ``url`` (a Spark
Connect server to run on instead of a session of ``master``; its files are this
machine's) and ``how``:

- ``"stop"``: a processing-time query. The ``pause`` bolt, on the executors,
  meets the row whose ``msgid`` is ``pause_msgid``, writes ``<pause>/paused``
  and sleeps (until ``<pause>/release`` exists); this process then calls ``handle.stop()`` while that batch's
  Spark job runs, and prints one JSON line: how long the stop took, the
  exception it raised (None expected), the batch the store last committed and
  whether the shutdown flush after it is recorded as done.
- ``"fail"``: a topology whose bolt emits an object that cannot travel;
  prints what ``await_termination()`` and ``stop()`` raised.
- ``"run"``: an ``availableNow`` run to the end (the pause is over: ``paused``
  exists), then its flush; prints ``{}``.

The topology: spout, then ``pause`` (passes each row on, two tasks, shuffle),
then ``sum`` (``WindowedAggregateBolt``, event-time tumbling 2 s per key) and
``recent`` (a Storm count window of 3 per key).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bolts import BaseBolt, Fields, WindowedAggregateBolt
from tests.cluster.cases import spout
from tests.topologies.helpers import Record
from topologies import TopologyBuilder
from topologies.topology import Topology
from windowing import Count, Duration, aggregators
from windowing.assigners import FixedWindows

START, STEP = 100_000, 1_000


class PauseAt(BaseBolt):
    """Passes rows on; at the row with ``msgid``, the first time, writes ``<directory>/paused`` and sleeps."""

    def __init__(self, directory: str, msgid: int) -> None:
        self.directory, self.msgid = directory, msgid

    def execute(self, input: Any) -> None:
        marker = Path(self.directory) / "paused"
        if input["msgid"] == self.msgid and not marker.exists():
            marker.touch()
            deadline = time.monotonic() + 120  # until Spark kills the task of the cancelled job, or the release
            while not (Path(self.directory) / "release").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        self.collector.emit([input["key"], input["ts"], input["value"], input["msgid"]])

    def declare_output_fields(self, declarer: Any) -> None:
        declarer.declare(Fields("key", "ts", "value", "msgid"))


def batch_clock(checkpoint: Path, name: str) -> Callable[[], int]:
    """A clock giving batch ``b`` the time ``START + b * STEP`` in every process of query ``name``."""
    times = checkpoint / name / "squall" / "batch-times"
    recorded = len(list(times.glob("*.json"))) if times.is_dir() else 0
    ticks = iter(range(START + recorded * STEP, 2**62, STEP))
    return lambda: next(ticks)


def topology(data: Path, pause: Path, msgid: int) -> Topology:
    b = TopologyBuilder()
    b.set_spout("events", spout(data))
    # One task: the stop finds no task of batch 2 committed, so the flush runs (with two, the other could commit
    # batch 2 first, and then nothing is flushed: see FlushingExecutor.flush).
    b.set_bolt("pause", PauseAt(str(pause), msgid)).shuffle_grouping("events")
    b.set_bolt("sum", WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
               .with_windows(FixedWindows(Duration.seconds(2))).with_timestamp_field("ts")
               .with_lag(Duration.milliseconds(500)), parallelism=2).fields_grouping("pause", Fields("key"))
    b.set_bolt("recent", Record().with_tumbling_window(Count(3)), parallelism=2).fields_grouping("pause", Fields("key"))
    return b.create_topology()


def failure(runner: Any, data: Path, name: str) -> dict[str, Any]:
    """Run a topology whose bolt emits an object; what ``await_termination()`` and then ``stop()`` raised."""
    from tests.topologies.helpers import EmitsAverages

    b = TopologyBuilder()
    b.set_spout("events", spout(data))
    b.set_bolt("averages", EmitsAverages(), parallelism=2).shuffle_grouping("events")
    handle = runner.submit(name, b.create_topology(), available_now=True)
    raised = {}
    for method in ("await_termination", "stop"):
        try:
            getattr(handle, method)()
        except Exception as exc:  # reported: the test expects the bolt's error
            raised[method] = {"type": type(exc).__name__, "message": str(exc), "notes": getattr(exc, "__notes__", []),
                              "chained": exc.__cause__ is not None}
    return raised


def main() -> None:
    args = json.loads(sys.argv[1])
    from state_backends import open_backend
    from tests.topologies.distributed_run import session
    from topologies import SparkRunner
    from topologies.engine.flush_record import FlushRecord
    from topologies.engine.store_check import last_committed_batch

    if args.get("url"):
        from pyspark.sql import SparkSession

        spark = SparkSession.builder.remote(args["url"]).getOrCreate()
    else:
        spark = session(args["master"])
    checkpoint, pause = Path(args["checkpoint"]), Path(args["pause"])
    runner = SparkRunner(spark, mode=args["mode"], state=args["state"], checkpoint_location=checkpoint,
                         output_dir=args["output"], clock=batch_clock(checkpoint, args["name"]),
                         heartbeat=False)  # the same sources with and without availableNow: one checkpoint serves both
    if args["how"] == "fail":
        print(json.dumps(failure(runner, Path(args["data"]), args["name"])))
        return
    topo = topology(Path(args["data"]), pause, args["pause_msgid"])
    if args["how"] == "run":
        handle = runner.submit(args["name"], topo, available_now=True)
        assert handle.await_termination(600), "the run did not end within 600 s"
        print(json.dumps({}))
        return
    handle = runner.submit(args["name"], topo)
    deadline = time.monotonic() + 300
    while not (pause / "paused").exists():
        assert time.monotonic() < deadline, "the pause bolt never paused"
        assert handle.is_active, f"the query ended before the pause: {handle.query.exception()}"
        time.sleep(0.05)
    # The marker is the observable condition: the bolt's task writes it from inside the running job, then sleeps
    # until the release (or Spark kills it), so the stop below lands while the batch runs, however long it waits.
    started, raised = time.monotonic(), None
    try:
        handle.stop()
    except Exception as exc:  # reported: the test expects none
        raised = f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - started
    (pause / "release").touch()  # a task Spark did not kill would sleep on
    backend = open_backend(args["state"])
    last = last_committed_batch(checkpoint / args["name"] / "spark")
    record = FlushRecord(backend, args["name"])
    print(json.dumps({"stop_seconds": round(seconds, 1), "raised": raised, "last_committed": last,
                      "flush_done": last is not None and record.done_after(last), "pending": record.pending()}))
    spark.stop()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    main()
