"""Storm's ``SlidingWindowTopology``: a sliding-window sum, then a tumbling-window average of the sums.

As in storm-starter: random integers -> ``slidingsum`` (window of 30 tuples,
sliding by 10) -> ``tumblingavg`` (tumbling window of 3 sums). Run it with
``python -m topologies.examples.sliding_window`` (it generates its input).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bolts import BaseWindowedBolt, Fields
from topologies.builder import TopologyBuilder
from topologies.examples._run import data_dir, run_bounded, write_json_files
from topologies.spouts import FileSpout
from topologies.topology import Topology
from windowing import Count, TupleWindow


class SlidingWindowSumBolt(BaseWindowedBolt):
    """Keeps a running sum of the window, updated with the new and expired tuples."""

    def prepare(self, conf: dict[str, Any], context: Any, collector: Any) -> None:
        """Start the sum at 0."""
        self.collector = collector
        self.sum = 0

    def execute(self, window: TupleWindow[Any]) -> None:
        """Add the new values, subtract the expired ones, emit the sum."""
        self.sum += sum(t["value"] for t in window.get_new())
        self.sum -= sum(t["value"] for t in window.get_expired())
        self.collector.emit([self.sum])

    def declare_output_fields(self, declarer: Any) -> None:
        """Emits ``sum``."""
        declarer.declare(Fields("sum"))


class TumblingWindowAvgBolt(BaseWindowedBolt):
    """The average of the ``sum`` values in each window."""

    def execute(self, window: TupleWindow[Any]) -> None:
        """Emit the window's average."""
        tuples = window.get()
        if tuples:
            self.collector.emit([sum(t["sum"] for t in tuples) / len(tuples)])

    def declare_output_fields(self, declarer: Any) -> None:
        """Emits ``avg``."""
        declarer.declare(Fields("avg"))


def generate(directory: Path, rng: random.Random, files: int = 5, per_file: int = 60) -> None:
    """Random integers below 1000 with a timestamp and a message id, as RandomIntegerSpout emits them."""
    write_json_files(directory, (
        [{"value": rng.randrange(1000), "ts": (f * per_file + i) * 10, "msgid": f * per_file + i}
         for i in range(per_file)]
        for f in range(files)
    ))


def build_topology(path: str | None = None) -> Topology:
    """The topology over the JSON files in ``path`` (generated when None)."""
    spout = FileSpout(data_dir("sliding-window", generate, path), "json", ("value", "ts", "msgid"),
                      schema="value BIGINT, ts BIGINT, msgid BIGINT", max_files_per_trigger=1)
    builder = TopologyBuilder()
    builder.set_spout("integer", spout)
    builder.set_bolt("slidingsum", SlidingWindowSumBolt().with_window(Count(30), Count(10))).shuffle_grouping("integer")
    builder.set_bolt("tumblingavg", TumblingWindowAvgBolt().with_tumbling_window(Count(3))).shuffle_grouping(
        "slidingsum"
    )
    return builder.create_topology()


if __name__ == "__main__":
    run_bounded("sliding-window", build_topology())
