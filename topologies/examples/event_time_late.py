"""Event time with lag and a late-tuple stream routed to its own bolt.

``sensor`` readings (key, ts, value) -> ``window-sum``: per-key 10 s windows
sliding by 5 s on the ``ts`` field, lag 2 s, late tuples on stream ``late`` ->
``late-log``, a plain bolt that reports each late reading. Run it with
``python -m topologies.examples.event_time_late``.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bolts import BaseBolt, BaseWindowedBolt, Fields, Tuple
from topologies.builder import TopologyBuilder
from topologies.examples._run import data_dir, run_bounded, write_json_files
from topologies.spouts import FileSpout
from topologies.topology import Topology
from windowing import Duration, TupleWindow


class KeyedWindowSum(BaseWindowedBolt):
    """Sums ``value`` per key over each window; emits (key, window end, sum)."""

    def execute(self, window: TupleWindow[Any]) -> None:
        """One sum per key present in the window, keys in first-seen order."""
        sums: dict[str, int] = {}
        for t in window.get():
            sums[t["key"]] = sums.get(t["key"], 0) + t["value"]
        for key, total in sums.items():
            self.collector.emit([key, window.end_timestamp, total])

    def declare_output_fields(self, declarer: Any) -> None:
        """Emits ``key``, ``window_end``, ``sum``."""
        declarer.declare(Fields("key", "window_end", "sum"))


class LateLog(BaseBolt):
    """Reports each late tuple that arrives on the windowed bolt's late stream."""

    def execute(self, input: Tuple) -> None:
        """Emit the late reading's key, timestamp and value."""
        late: Tuple = input["late_tuple"]
        self.collector.emit([late["key"], late["ts"], late["value"]])

    def declare_output_fields(self, declarer: Any) -> None:
        """Emits ``key``, ``ts``, ``value``."""
        declarer.declare(Fields("key", "ts", "value"))


def generate(directory: Path, rng: random.Random, files: int = 6, per_file: int = 40) -> None:
    """Readings mostly in order, 1 s apart per file; every file also carries two readings 30 s old (late)."""
    batches = []
    for f in range(files):
        base = f * per_file * 250
        rows = [{"key": f"s{rng.randrange(3)}", "ts": base + i * 250, "value": rng.randrange(10)}
                for i in range(per_file)]
        if f > 1:
            rows += [{"key": "s0", "ts": max(0, base - 30_000 + k), "value": 100} for k in range(2)]
        batches.append(rows)
    write_json_files(directory, batches)


def build_topology(path: str | None = None) -> Topology:
    """The topology over the JSON files in ``path`` (generated when None)."""
    spout = FileSpout(data_dir("event-time", generate, path), "json", ("key", "ts", "value"),
                      schema="key STRING, ts BIGINT, value BIGINT", max_files_per_trigger=1)
    bolt = (KeyedWindowSum().with_window(Duration.seconds(10), Duration.seconds(5)).with_timestamp_field("ts")
            .with_lag(Duration.seconds(2)).with_late_tuple_stream("late")
            .with_watermark_interval(Duration.milliseconds(100)))
    builder = TopologyBuilder()
    builder.set_spout("sensor", spout)
    builder.set_bolt("window-sum", bolt, parallelism=2).fields_grouping("sensor", Fields("key"))
    builder.set_bolt("late-log", LateLog()).shuffle_grouping("window-sum", "late")
    return builder.create_topology()


if __name__ == "__main__":
    run_bounded("event-time-late", build_topology())
