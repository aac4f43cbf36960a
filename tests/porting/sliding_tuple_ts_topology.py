# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/SlidingTupleTsTopology.java,
# with bolt/SlidingWindowSumBolt.java and bolt/PrinterBolt.java (tests/porting/bolt.py). docs/porting.md walks
# through the same port.
#
# The structure, class names and method order are the Java file's; the changes are spelling (`new Duration(5,
# TimeUnit.SECONDS)` is Duration.seconds(5)), except:
# - RandomIntegerSpout (spout/RandomIntegerSpout.java, a random integer every 100 ms stamped with the wall clock
#   minus one day) is the file spout of tests/porting/spout.py: the integers it would emit are written to files
#   beforehand (RandomIntegerSpout.emit), `ts` 100 ms apart from the epoch.
# - PrinterBolt also emits what it prints (tests/porting/bolt.py).
# - main takes the Spark session, a working directory and the run's clock besides `args`, and submits with a
#   SparkRunner (a bounded run) instead of StormSubmitter; it returns the run's handle.
"""storm-starter's ``SlidingTupleTsTopology``: a sliding-window sum in event time, over the tuples' ``ts`` field."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pyspark.sql import SparkSession

from squall import BaseWindowedBolt, Config, Duration, SparkRunner, TopologyBuilder, TopologyHandle
from tests.porting.bolt import PrinterBolt, SlidingWindowSumBolt
from tests.porting.spout import RandomIntegerSpout


class SlidingTupleTsTopology:
    """Windowing based on tuple timestamp (e.g. the time when tuple is generated rather than when its processed)."""

    @staticmethod
    def main(spark: SparkSession, work_dir: Path, clock: Callable[[], int], args: Sequence[str] = ()) -> TopologyHandle:
        """Build and submit the topology; returns its handle (await it, then read its outputs)."""
        builder = TopologyBuilder()
        bolt: BaseWindowedBolt = (
            SlidingWindowSumBolt()
            .with_window(Duration.seconds(5), Duration.seconds(3))
            .with_timestamp_field("ts")
            .with_lag(Duration.seconds(5)))
        builder.set_spout("integer", RandomIntegerSpout(work_dir / "integer"), 1)
        builder.set_bolt("slidingsum", bolt, 1).shuffle_grouping("integer")
        builder.set_bolt("printer", PrinterBolt(), 1).shuffle_grouping("slidingsum")
        conf = Config()
        conf.set_debug(True)
        topo_name = "test"

        if args is not None and len(args) > 0:
            topo_name = args[0]

        conf.set_num_workers(1)
        runner = SparkRunner(spark, conf=conf, checkpoint_location=work_dir / "checkpoint", clock=clock)
        return runner.submit(topo_name, builder.create_topology(), available_now=True)
