# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/StatefulTopology.java.
#
# The structure, class names and method order are the Java file's; the changes are spelling, except:
# - RandomIntegerSpout (spout/RandomIntegerSpout.java, a random integer every 100 ms) is the file spout of
#   tests/porting/spout.py: the integers it would emit are written to files beforehand (RandomIntegerSpout.emit).
# - main takes the Spark session, a working directory, the run's clock and the state store besides `args`, and
#   submits with a SparkRunner (a bounded run) instead of StormSubmitter; it returns the run's handle. The state
#   store is what Storm reads from storm.yaml (topology.state.provider, e.g. RedisKeyValueStateProvider, and its
#   config), outside the Java code: state="redis://host:port/db". Submitting again with the same working directory
#   (the checkpoint) and the same store resumes the topology where the last run left it, as restarting a Storm
#   topology with Redis state does.
# StatefulTopology's own PrinterBolt already emits what it prints (collector.emit(tuple.getValues())).
"""storm-starter's ``StatefulTopology``: running sums kept in a ``KeyValueState``, resumed across restarts."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from squall import (
    BaseBasicBolt,
    BaseStatefulBolt,
    BasicOutputCollector,
    Config,
    Fields,
    KeyValueState,
    OutputCollector,
    OutputFieldsDeclarer,
    SparkRunner,
    TopologyBuilder,
    TopologyContext,
    TopologyHandle,
    Tuple,
)
from tests.porting.spout import RandomIntegerSpout

LOG = logging.getLogger("StatefulTopology")


class StatefulTopology:
    """An example topology that demonstrates the use of stateful bolts (``BaseStatefulBolt``) to manage state.

    The default state is in memory and does not outlive the run; with Redis (state="redis://...") the sums go on
    across restarts.
    """

    @staticmethod
    def main(spark: SparkSession, work_dir: Path, clock: Callable[[], int], args: Sequence[str] = (), *,
             state: str | None = None) -> TopologyHandle:
        """Build and submit the topology; returns its handle (await it, then read its outputs)."""
        builder = TopologyBuilder()
        builder.set_spout("spout", RandomIntegerSpout(work_dir / "spout"))
        builder.set_bolt("partialsum", StatefulTopology.StatefulSumBolt("partial"), 1).shuffle_grouping("spout")
        builder.set_bolt("printer", StatefulTopology.PrinterBolt(), 2).shuffle_grouping("partialsum")
        builder.set_bolt("total", StatefulTopology.StatefulSumBolt("total"), 1).shuffle_grouping("printer")
        conf = Config()
        conf.set_debug(False)
        topo_name = "test"
        if args is not None and len(args) > 0:
            topo_name = args[0]
        conf.set_num_workers(1)
        runner = SparkRunner(spark, state=state, conf=conf, checkpoint_location=work_dir / "checkpoint", clock=clock)
        return runner.submit(topo_name, builder.create_topology(), available_now=True)

    class StatefulSumBolt(BaseStatefulBolt):
        """A bolt that uses ``KeyValueState`` to save its state."""

        kv_state: KeyValueState
        _collector: OutputCollector

        def __init__(self, name: str) -> None:
            self.name = name
            self.sum = 0

        def prepare(self, topo_conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
            """Keep the collector."""
            self._collector = collector

        def execute(self, input: Tuple) -> None:
            """Add the value to the sum, save it in the state, emit it."""
            self.sum += int(input.get_value_by_field("value"))
            LOG.debug("%s sum = %d", self.name, self.sum)
            self.kv_state.put("sum", self.sum)
            self._collector.emit(input, [self.sum])
            self._collector.ack(input)

        def init_state(self, state: KeyValueState) -> None:
            """Take the state; the sum goes on from what it holds."""
            self.kv_state = state
            self.sum = self.kv_state.get("sum", 0)
            LOG.debug("Initstate, sum from saved state = %d ", self.sum)

        def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
            """One field, ``value``."""
            declarer.declare(Fields("value"))

    class PrinterBolt(BaseBasicBolt):
        """Prints each tuple and passes its values on."""

        def execute(self, tuple: Tuple, collector: BasicOutputCollector) -> None:
            """Print the tuple, emit its values."""
            print(tuple)
            LOG.debug("Got tuple %s", tuple)
            collector.emit(tuple.get_values())

        def declare_output_fields(self, ofd: OutputFieldsDeclarer) -> None:
            """One field, ``value``."""
            ofd.declare(Fields("value"))
