# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/ExclamationTopology.java.
#
# The structure, class names and method order are the Java file's; the changes are spelling, except:
# - TestWordSpout (storm-client's org.apache.storm.testing.TestWordSpout, a random name every 100 ms) is the file
#   spout of tests/porting/spout.py: the names it would emit are written to files beforehand (TestWordSpout.emit).
# - ConfigurableTopology is tests/porting/configurable_topology.py, whose submit() runs the topology on Spark (a
#   bounded run) instead of StormSubmitter; main takes the Spark session, a working directory and the run's clock
#   besides `args`, and returns the run's handle.
"""storm-starter's ``ExclamationTopology``: each word gets ``!!!`` twice, through two layers of bolts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from squall import (
    BaseRichBolt,
    Fields,
    OutputCollector,
    OutputFieldsDeclarer,
    TopologyBuilder,
    TopologyContext,
    Tuple,
)
from tests.porting.configurable_topology import ConfigurableTopology
from tests.porting.spout import TestWordSpout


class ExclamationTopology(ConfigurableTopology):
    """This is a basic example of a Storm topology."""

    def run(self, args: Sequence[str]) -> int:
        """Build the topology and submit it."""
        builder = TopologyBuilder()

        builder.set_spout("word", TestWordSpout(self.work_dir / "word"), 10)
        builder.set_bolt("exclaim1", ExclamationTopology.ExclamationBolt(), 3).shuffle_grouping("word")
        builder.set_bolt("exclaim2", ExclamationTopology.ExclamationBolt(), 2).shuffle_grouping("exclaim1")

        self.conf.set_debug(True)

        topology_name = "test"

        self.conf.set_num_workers(3)

        if args is not None and len(args) > 0:
            topology_name = args[0]

        return self.submit(topology_name, self.conf, builder)

    class ExclamationBolt(BaseRichBolt):
        """Appends ``!!!`` to the word, anchored to the input, and acks it."""

        collector: OutputCollector

        def prepare(self, conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
            """Keep the collector."""
            self.collector = collector

        def execute(self, tuple: Tuple) -> None:
            """Emit the word with ``!!!``."""
            self.collector.emit(tuple, [tuple.get_string(0) + "!!!"])
            self.collector.ack(tuple)

        def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
            """One field, ``word``."""
            declarer.declare(Fields("word"))
