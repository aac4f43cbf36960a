# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/SkewedRollingTopWords.java,
# with its bolts (bolt/RollingCountBolt.java, bolt/RollingCountAggBolt.java, bolt/IntermediateRankingsBolt.java,
# bolt/TotalRankingsBolt.java: tests/porting/bolt.py) and tools (tests/porting/tools.py).
#
# The structure, class names and method order are the Java file's; the changes are spelling, and those of the
# RollingTopWords port (tests/porting/rolling_top_words.py): TestWordSpout is the file spout of tests/porting/spout.py,
# main takes the Spark session, a working directory and the run's clock and returns the run's handle, and run()
# registers the Serializable tools unless the conf falls back on Java serialization for them. The Java file relies on
# the tools being Serializable and registers nothing.
"""storm-starter's ``SkewedRollingTopWords``: RollingTopWords with the word counts split by a partial key grouping."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from squall import Fields, TopologyBuilder
from tests.porting.bolt import IntermediateRankingsBolt, RollingCountAggBolt, RollingCountBolt, TotalRankingsBolt
from tests.porting.configurable_topology import ConfigurableTopology
from tests.porting.rolling_top_words import register_tools
from tests.porting.spout import TestWordSpout


class SkewedRollingTopWords(ConfigurableTopology):
    """A continuous computation of the top N words that the topology has seen in terms of cardinality.

    It assumes that some words are much more common than others, and uses a partial key grouping to balance the
    skewed load: a word is counted by two counter tasks, whose counts an aggregator adds up.
    """

    LOG = logging.getLogger("SkewedRollingTopWords")
    TOP_N = 5

    def run(self, args: Sequence[str]) -> int:
        """Submits (runs) the topology, counts split by a partial key grouping, under the name ``args[0]``."""
        topology_name = ConfigurableTopology.name_of(args, "slidingWindowCounts")
        builder = TopologyBuilder()
        spout_id, counter_id, agg_id = "wordGenerator", "counter", "aggregator"
        intermediate_ranker_id, total_ranker_id = "intermediateRanker", "finalRanker"
        builder.set_spout(spout_id, TestWordSpout(self.work_dir / spout_id), 5)
        builder.set_bolt(counter_id, RollingCountBolt(9, 3), 4).partial_key_grouping(spout_id, Fields("word"))
        builder.set_bolt(agg_id, RollingCountAggBolt(), 4).fields_grouping(counter_id, Fields("obj"))
        builder.set_bolt(intermediate_ranker_id, IntermediateRankingsBolt(self.TOP_N), 4).fields_grouping(
            agg_id, Fields("obj"))
        builder.set_bolt(total_ranker_id, TotalRankingsBolt(self.TOP_N)).global_grouping(intermediate_ranker_id)
        self.LOG.info("Topology name: %s", topology_name)

        register_tools(self.conf)
        return self.submit(topology_name, self.conf, builder)
