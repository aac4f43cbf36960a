# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/StatefulWindowingTopology.java,
# with bolt/PrinterBolt.java (tests/porting/bolt.py).
#
# The structure, class names and method order are the Java file's; the changes are spelling, except:
# - RandomIntegerSpout (spout/RandomIntegerSpout.java, a random integer every 100 ms) is the file spout of
#   tests/porting/spout.py: the integers it would emit are written to files beforehand (RandomIntegerSpout.emit).
# - PrinterBolt also emits what it prints (tests/porting/bolt.py).
# - main takes the Spark session, a working directory, the run's clock and the state store besides `args`, and
#   submits with a SparkRunner (a bounded run) instead of StormSubmitter; it returns the run's handle. The state
#   store is what the Java code leaves to storm.yaml (its TOPOLOGY_STATE_PROVIDER line is commented out):
#   state="redis://host:port/db". Submitting again with the same working directory (the checkpoint) and the same
#   store resumes the topology where the last run left it.
"""storm-starter's ``StatefulWindowingTopology``: a sum over count windows, kept in state across restarts."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from squall import (
    BaseStatefulWindowedBolt,
    Config,
    Count,
    Fields,
    KeyValueState,
    OutputCollector,
    OutputFieldsDeclarer,
    SparkRunner,
    TopologyBuilder,
    TopologyContext,
    TopologyHandle,
    TupleWindow,
)
from tests.porting.bolt import PrinterBolt
from tests.porting.spout import RandomIntegerSpout

LOG = logging.getLogger("StatefulWindowingTopology")


class StatefulWindowingTopology:
    """Demonstrates a stateful windowed bolt, whose state saves the windowing operation from re-computation.

    The framework manages the window boundaries and does not call ``execute(window)`` again for the windows already
    evaluated when the topology restarts; ``init_state`` gets the saved state after ``prepare``, before ``execute``.
    """

    @staticmethod
    def main(spark: SparkSession, work_dir: Path, clock: Callable[[], int], args: Sequence[str] = (), *,
             state: str | None = None) -> TopologyHandle:
        """Build and submit the topology; returns its handle (await it, then read its outputs)."""
        builder = TopologyBuilder()
        builder.set_spout("spout", RandomIntegerSpout(work_dir / "spout"))
        builder.set_bolt("sumbolt", StatefulWindowingTopology.WindowSumBolt().with_window(Count(5), Count(3))
                         .with_message_id_field("msgid"), 1).shuffle_grouping("spout")
        builder.set_bolt("printer", PrinterBolt(), 1).shuffle_grouping("sumbolt")
        conf = Config()
        conf.set_debug(False)
        # conf[Config.TOPOLOGY_STATE_PROVIDER] = "org.apache.storm.redis.state.RedisKeyValueStateProvider"

        topo_name = "test"
        if args is not None and len(args) > 0:
            topo_name = args[0]
        conf.set_num_workers(1)
        runner = SparkRunner(spark, state=state, conf=conf, checkpoint_location=work_dir / "checkpoint", clock=clock)
        return runner.submit(topo_name, builder.create_topology(), available_now=True)

    class WindowSumBolt(BaseStatefulWindowedBolt):
        """Adds up every window's values into a sum kept in the state."""

        _state: KeyValueState
        _collector: OutputCollector

        def __init__(self) -> None:
            self._sum = 0

        def prepare(self, topo_conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
            """Keep the collector."""
            self._collector = collector

        def init_state(self, state: KeyValueState) -> None:
            """Take the state; the sum goes on from what it holds."""
            self._state = state
            self._sum = state.get("sum", 0)
            LOG.debug("initState with state [%s] current sum [%d]", state, self._sum)

        def execute(self, input_window: TupleWindow) -> None:
            """Add the window's values to the sum; save and emit it."""
            for tuple in input_window.get():
                self._sum += tuple.get_integer_by_field("value")
            self._state.put("sum", self._sum)
            self._collector.emit([self._sum])

        def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
            """One field, ``sum``."""
            declarer.declare(Fields("sum"))
