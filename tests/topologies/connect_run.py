"""Runs a small topology's distributed stages under Spark Connect (``remote("local[2]")``); prints JSON.

Usage: ``python -m tests.topologies.connect_run '<json>'`` with keys ``state`` (a
Redis URL), ``work`` (a directory for the batch clock and the task-run records)
and ``batches`` (each batch's spout rows, lists of :data:`tests.cluster.cases.FIELDS`
values). The batches go through the distributed placement (`batch_loop(..., mode="distributed")`) with
:class:`SparkFrames` on a Connect session, so the batch's DataFrame comes from
``spark.createDataFrame``. Prints one JSON line: ``{"session": <the session's
module>, "outputs": [[component, task, stream, values], ...], "runs": [...]}``,
``runs`` holding one ``"<component> <task> <batch>"`` per run of a task, and
``jobs``: the Spark jobs that brought rows to the driver.

A Connect session runs in a process of its own: the tests' classic session
holds this one's JVM gateway.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def topology(work: Path) -> Any:
    """Two bolts: a plain one on a shuffle from the spout, then a windowed one on a fields grouping."""
    from bolts import Fields
    from tests.cluster.cases import KeyTotals, Probe, spout
    from topologies import TopologyBuilder
    from windowing import Duration

    b = TopologyBuilder()
    b.set_spout("events", spout(work))  # the spout's path is not read: the batches are given
    b.set_bolt("probe", Probe(), 2).shuffle_grouping("events")
    b.set_bolt("totals", KeyTotals().with_window(Duration.seconds(3), Duration.seconds(1)).with_timestamp_field("ts")
               .with_lag(Duration.milliseconds(500)), 2).fields_grouping("probe", Fields("key"))
    return b.create_topology()


def recorded(runs: str, fn: Any, key: tuple[Any, ...], table: Any) -> Any:
    """``fn`` on one task's chunks, after recording the run in a file of its own under ``runs``."""
    spec = fn.args[0]
    Path(runs, uuid.uuid4().hex).write_text(f"{spec.component} {key[0]} {spec.batch_id}", encoding="utf-8")
    return fn(key, table)


def main() -> None:
    args = json.loads(sys.argv[1])
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    sys.path.insert(0, str(REPO))
    from pyspark.sql import SparkSession

    from state_backends import open_backend
    from tests.topologies.distributed_case import as_json
    from tests.topologies.helpers import counting_clock
    from topologies.engine import BatchClock, batch_loop
    from topologies.engine.placements.frames import SparkFrames

    class RecordingStages(SparkFrames):
        jobs = 0  # the jobs that brought rows to the driver

        def chain(self, stages, upstream):
            return super().chain([replace(st, fn=partial(recorded, str(runs), st.fn)) for st in stages], upstream)

        def driver_rows(self, frame, mixed=True):
            RecordingStages.jobs += 1
            return super().driver_rows(frame, mixed)

    work = Path(args["work"])
    runs = work / "runs"
    runs.mkdir(parents=True)
    spark = (SparkSession.builder.remote("local[2]").config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.session.timeZone", "UTC").config("spark.ui.enabled", "false").getOrCreate())
    executor = batch_loop(topology(work), BatchClock(work / "clock", counting_clock()), mode="distributed",
                          backend=open_backend(args["state"]), name=f"connect-{uuid.uuid4().hex[:8]}", spark=spark,
                          state_url=args["state"], frames=RecordingStages(spark))
    for batch_id, rows in enumerate(args["batches"]):
        executor.run(batch_id, {"events": rows})
    executor.flush()
    print(json.dumps({"session": type(spark).__module__, "outputs": as_json(executor.log.all()),
                      "runs": sorted(f.read_text(encoding="utf-8") for f in runs.iterdir()),
                      "jobs": RecordingStages.jobs}))
    spark.stop()


if __name__ == "__main__":
    main()
