"""Storm's ``SlidingWindowTopology``: a sliding-window sum, then a tumbling-window average of the sums.

As in storm-starter (``examples/storm-starter/src/jvm/org/apache/storm/starter/SlidingWindowTopology.java``):
random integers -> ``slidingsum`` (window of 30 tuples, sliding by 10) -> ``tumblingavg``
(tumbling window of 3 sums) -> ``printer``. Storm's printer prints the averages; this one
also takes the sums, so the output shows what each average is made of. Run it with
``python -m topologies.examples.sliding_window`` (it generates its input); docs/porting.md
walks through the port.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bolts import BaseBolt, BaseWindowedBolt, Fields, Tuple
from topologies.builder import TopologyBuilder
from topologies.examples._run import data_dir, run_bounded, write_json_files
from topologies.spouts import FileSpout
from topologies.topology import Topology
from windowing import Count, TupleWindow

if TYPE_CHECKING:
    from topologies.sinks.records import Output


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


class PrinterBolt(BaseBolt):
    """Storm's ``PrinterBolt`` as a terminal bolt: each input becomes an output (source component, value)."""

    def execute(self, input: Tuple) -> None:
        """Emit where the tuple came from and its one value."""
        self.collector.emit([input.source_component, input[0]])

    def declare_output_fields(self, declarer: Any) -> None:
        """Emits ``source``, ``value``."""
        declarer.declare(Fields("source", "value"))


class Describe:
    """Says what each printed number is: which values a sum covers, which sums an average covers."""

    def __init__(self, length: int = 30, slide: int = 10, tumble: int = 3) -> None:
        self.length, self.slide, self.tumble = length, slide, tumble
        self.sums = self.avgs = 0

    def __call__(self, output: Output) -> str:
        """One line for one printer output."""
        source, value = output.values
        if source == "slidingsum":
            self.sums += 1
            last = self.sums * self.slide
            first = max(1, last - self.length + 1)
            return f"sliding sum of values {first}-{last} (the last {last - first + 1}) = {value}"
        self.avgs += 1
        last = self.avgs * self.tumble
        return f"  tumbling average of sums {last - self.tumble + 1}-{last} (the last {self.tumble} sums) = {value:.1f}"


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
    builder.set_bolt("printer", PrinterBolt()).shuffle_grouping("slidingsum").shuffle_grouping("tumblingavg")
    return builder.create_topology()


if __name__ == "__main__":
    print("sliding-window: 300 random integers below 1000, in 5 files (one micro-batch each);")
    print("  slidingsum:  every 10 values, the sum of the last 30 (Count(30), Count(10))")
    print("  tumblingavg: every 3 sums, their average (tumbling Count(3))")
    run_bounded("sliding-window", build_topology(), describe=Describe())
