# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/WordCountTopology.java, with
# its bolt bolt/WordCountBolt.java (tests/porting/bolt.py) and its multilang splitter
# examples/storm-starter/multilang/resources/splitsentence.py.
#
# The structure, class names and method order are the Java file's; the changes are spelling, except:
# - SplitSentence is a ShellBolt running splitsentence.py ("python3") in Storm; here the Python splitter is the bolt
#   itself, a BaseBasicBolt whose execute is the script's process() (squall runs Python bolts; it has no ShellBolt),
#   with the Java class's declareOutputFields.
# - RandomSentenceSpout (spout/RandomSentenceSpout.java, a random sentence every 100 ms) is the file spout of
#   tests/porting/spout.py: the sentences it would emit are written to files beforehand (RandomSentenceSpout.emit).
# - ConfigurableTopology is tests/porting/configurable_topology.py, whose submit() runs the topology on Spark (a
#   bounded run) instead of StormSubmitter; main takes the Spark session, a working directory, the run's clock,
#   the placement and the state store (Storm's cluster settings) besides `args`, and returns the run's handle.
"""storm-starter's ``WordCountTopology``: sentences split into words, each word counted by a fields-grouped bolt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from squall import (
    BaseBasicBolt,
    BasicOutputCollector,
    Fields,
    OutputFieldsDeclarer,
    TopologyBuilder,
    Tuple,
)
from tests.porting.bolt import WordCountBolt
from tests.porting.configurable_topology import ConfigurableTopology
from tests.porting.spout import RandomSentenceSpout


class WordCountTopology(ConfigurableTopology):
    """This topology demonstrates Storm's stream groupings and multilang capabilities."""

    def run(self, args: Sequence[str]) -> int:
        """Build the topology and submit it."""
        builder = TopologyBuilder()

        builder.set_spout("spout", RandomSentenceSpout(self.work_dir / "spout"), 5)

        builder.set_bolt("split", WordCountTopology.SplitSentence(), 8).shuffle_grouping("spout")
        builder.set_bolt("count", WordCountBolt(), 12).fields_grouping("split", Fields("word"))

        self.conf.set_debug(True)

        topology_name = "word-count"

        self.conf.set_num_workers(3)

        if args is not None and len(args) > 0:
            topology_name = args[0]
        return self.submit(topology_name, self.conf, builder)

    class SplitSentence(BaseBasicBolt):
        """splitsentence.py's SplitSentenceBolt as the bolt itself (see the header)."""

        def execute(self, tup: Tuple, collector: BasicOutputCollector) -> None:
            """splitsentence.py's process(tup): emit every word of the sentence."""
            words = tup.values[0].split(" ")
            for word in words:
                collector.emit([word])

        def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
            """One field, ``word``."""
            declarer.declare(Fields("word"))

        def get_component_configuration(self) -> dict[str, Any] | None:
            """No configuration of its own."""
            return None
