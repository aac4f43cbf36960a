# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/SlidingWindowTopology.java, with
# bolt/SlidingWindowSumBolt.java and bolt/PrinterBolt.java (tests/porting/bolt.py). docs/porting.md walks through
# the same port.
#
# The structure, class names and method order are the Java file's; the changes are spelling (Java's int division
# `sum / tuplesInWindow.size()` of non-negative ints is Python's //), except:
# - RandomIntegerSpout (spout/RandomIntegerSpout.java, a random integer every 100 ms) is the file spout of
#   tests/porting/spout.py: the integers it would emit are written to files beforehand (RandomIntegerSpout.emit).
# - PrinterBolt also emits what it prints (tests/porting/bolt.py).
# - main takes the Spark session, a working directory and the run's clock besides `args`, and submits with a
#   SparkRunner (a bounded run) instead of StormSubmitter; it returns the run's handle.
"""storm-starter's ``SlidingWindowTopology``: sums of the last 30 integers every 10, averaged three at a time."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from squall import (
    BaseWindowedBolt,
    Config,
    Count,
    Fields,
    OutputCollector,
    OutputFieldsDeclarer,
    SparkRunner,
    TopologyBuilder,
    TopologyContext,
    TopologyHandle,
    TupleWindow,
)
from tests.porting.bolt import PrinterBolt, SlidingWindowSumBolt
from tests.porting.spout import RandomIntegerSpout


class SlidingWindowTopology:
    """A sample topology that demonstrates the usage of windowed bolts to calculate sliding window sum."""

    LOG = logging.getLogger("SlidingWindowTopology")

    @staticmethod
    def main(spark: SparkSession, work_dir: Path, clock: Callable[[], int], args: Sequence[str] = ()) -> TopologyHandle:
        """Build and submit the topology; returns its handle (await it, then read its outputs)."""
        builder = TopologyBuilder()
        builder.set_spout("integer", RandomIntegerSpout(work_dir / "integer"), 1)
        builder.set_bolt("slidingsum", SlidingWindowSumBolt().with_window(Count.of(30), Count.of(10)), 1) \
            .shuffle_grouping("integer")
        builder.set_bolt("tumblingavg", SlidingWindowTopology.TumblingWindowAvgBolt().with_tumbling_window(
            Count.of(3)), 1).shuffle_grouping("slidingsum")
        builder.set_bolt("printer", PrinterBolt(), 1).shuffle_grouping("tumblingavg")
        conf = Config()
        conf.set_debug(True)
        topo_name = "test"
        if args is not None and len(args) > 0:
            topo_name = args[0]
        conf.set_num_workers(1)
        runner = SparkRunner(spark, conf=conf, checkpoint_location=work_dir / "checkpoint", clock=clock)
        return runner.submit(topo_name, builder.create_topology(), available_now=True)

    class TumblingWindowAvgBolt(BaseWindowedBolt):
        """Computes tumbling window average."""

        _collector: OutputCollector

        def prepare(self, topo_conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
            """Keep the collector."""
            self._collector = collector

        def execute(self, input_window: TupleWindow) -> None:
            """Emit the average of the window's values."""
            sum = 0
            tuples_in_window = input_window.get()
            SlidingWindowTopology.LOG.debug("Events in current window: %d", len(tuples_in_window))
            if len(tuples_in_window) > 0:
                # Since this is a tumbling window calculation,
                # we use all the tuples in the window to compute the avg.
                for tuple in tuples_in_window:
                    sum += tuple.get_value(0)
                self._collector.emit([sum // len(tuples_in_window)])

        def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
            """One field, ``avg``."""
            declarer.declare(Fields("avg"))
