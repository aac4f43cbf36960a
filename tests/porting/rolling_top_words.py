# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/RollingTopWords.java, with its
# bolts (bolt/RollingCountBolt.java, bolt/AbstractRankerBolt.java, bolt/IntermediateRankingsBolt.java,
# bolt/TotalRankingsBolt.java: tests/porting/bolt.py) and tools (tools/SlidingWindowCounter.java,
# tools/SlotBasedCounter.java, tools/NthLastModifiedTimeTracker.java, tools/Rankings.java, tools/Rankable.java,
# tools/RankableObjectWithFields.java: tests/porting/tools.py). Tick tuples are recognised with TupleUtils.isTick, as
# the Java bolts do (storm-starter's older util/TupleHelpers.java was replaced by storm-client's TupleUtils).
#
# The structure, class names and method order are the Java file's; the changes are spelling, except:
# - TestWordSpout (storm-client's org.apache.storm.testing.TestWordSpout, a random name every 100 ms) is the file
#   spout of tests/porting/spout.py: the names it would emit are written to files beforehand (TestWordSpout.emit).
# - run() registers the Serializable tools with conf.register_serialization: Rankings and RankableObjectWithFields
#   travel between tasks inside tuples, and the bolts keep their counts and rankings in SlidingWindowCounter,
#   SlotBasedCounter and Rankings objects, which must travel with a task that moves to another process (in squall's
#   distributed mode a task's next batch may run anywhere, rebuilt from the state store). Unless the conf sets
#   topology.fall.back.on.java.serialization (as `-conf java-serialization.yaml` would): then the classes stay
#   unregistered and travel by pickle, as Storm falls back on Java serialization for them.
# - ConfigurableTopology is tests/porting/configurable_topology.py, whose submit() runs the topology on Spark (a
#   bounded run) instead of StormSubmitter; main takes the Spark session, a working directory and the run's clock
#   (the tick tuples follow it), and the placement and state store (Storm's cluster settings), besides `args`, and
#   returns the run's handle. The Java constructor is private, as
#   main alone makes the topology: here it is the base class's.
"""storm-starter's ``RollingTopWords``: the top 5 words over a 9 s sliding window, ranked in two stages."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from squall import Config, Fields, TopologyBuilder
from tests.porting.bolt import IntermediateRankingsBolt, RollingCountBolt, TotalRankingsBolt
from tests.porting.configurable_topology import ConfigurableTopology
from tests.porting.spout import TestWordSpout
from tests.porting.tools import RankableObjectWithFields, Rankings, SlidingWindowCounter, SlotBasedCounter


class RollingTopWords(ConfigurableTopology):
    """A continuous computation of the top N words that the topology has seen in terms of cardinality.

    The top N computation is done in a completely scalable way, and a similar approach could be used to compute
    things like trending topics or trending images on Twitter.
    """

    LOG = logging.getLogger("RollingTopWords")
    TOP_N = 5

    def run(self, args: Sequence[str]) -> int:
        """Submits (runs) the topology, under the name ``args[0]`` (default ``slidingWindowCounts``)."""
        topology_name = ConfigurableTopology.name_of(args, "slidingWindowCounts")
        builder = TopologyBuilder()
        spout_id = "wordGenerator"
        counter_id = "counter"
        intermediate_ranker_id = "intermediateRanker"
        builder.set_spout(spout_id, TestWordSpout(self.work_dir / spout_id), 5)
        builder.set_bolt(counter_id, RollingCountBolt(9, 3), 4).fields_grouping(spout_id, Fields("word"))
        builder.set_bolt(intermediate_ranker_id, IntermediateRankingsBolt(self.TOP_N), 4).fields_grouping(
            counter_id, Fields("obj"))
        total_ranker_id = "finalRanker"
        builder.set_bolt(total_ranker_id, TotalRankingsBolt(self.TOP_N)).global_grouping(intermediate_ranker_id)
        self.LOG.info("Topology name: %s", topology_name)

        register_tools(self.conf)
        return self.submit(topology_name, self.conf, builder)


def register_tools(conf: Config) -> None:
    """Register the Serializable tools, unless ``conf`` falls back on Java serialization (pickle) for them."""
    if conf.get(Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION):
        return
    for serializable in (Rankings, RankableObjectWithFields, SlidingWindowCounter, SlotBasedCounter):
        conf.register_serialization(serializable)
