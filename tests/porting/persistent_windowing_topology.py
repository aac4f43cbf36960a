# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/PersistentWindowingTopology.java.
#
# The structure, class names and method order are the Java file's; the changes are spelling (`new Duration(10,
# TimeUnit.SECONDS)` is Duration.seconds(10), window.getIter() is window.iter(), Pair.of(a, b) a tuple (a, b), read
# back from the state as a list, Averages.global is global_), except:
# - RandomIntegerSpout (spout/RandomIntegerSpout.java, a random integer every 100 ms) is the file spout of
#   tests/porting/spout.py: the integers it would emit are written to files beforehand (RandomIntegerSpout.emit).
# - The printer, a lambda that prints the tuple's first value, also emits it (field "avg"): in squall what no bolt
#   subscribes to is the topology's output, which the run is checked against.
# - main registers Averages with conf.register_serialization: it travels to the printer inside a tuple. With
#   `java_serialization=True` main sets topology.fall.back.on.java.serialization instead, and Averages, a plain
#   class as the Java one is a plain Serializable class, travels by pickle.
# - initState logs the global average as Java's double division does, NaN for 0 / 0 (Python's raises).
# - main takes the Spark session, a working directory and the run's clock besides `args`, and submits with a
#   SparkRunner (a bounded run) instead of StormSubmitter; it returns the run's handle. The Java code names Redis as
#   the state provider and leaves its settings to the defaults (localhost:6379), to be overridden with
#   TOPOLOGY_STATE_PROVIDER_CONFIG: main sets that to `jedis_pool_config` when given (the test's redis-server).
#   Submitting again with the same working directory (the checkpoint) resumes the topology where it stopped. `mode`
#   is the placement (Storm's cluster settings).
"""storm-starter's ``PersistentWindowingTopology``: window and global averages, the window persisted in Redis."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from squall import (
    BaseStatefulWindowedBolt,
    Config,
    Duration,
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
from tests.porting.spout import RandomIntegerSpout

LOG = logging.getLogger("PersistentWindowingTopology")


class PersistentWindowingTopology:
    """Demonstrates a stateful windowed bolt with window persistence.

    The framework checkpoints the tuples in the window along with the bolt's state, and restores both on restart.
    """

    @staticmethod
    def main(spark: SparkSession, work_dir: Path, clock: Callable[[], int], args: Sequence[str] = (), *,
             jedis_pool_config: Mapping[str, Any] | None = None, java_serialization: bool = False,
             mode: str = "driver") -> TopologyHandle:
        """Create and deploy the topology; returns its handle (await it, then read its outputs)."""
        builder = TopologyBuilder()

        # generate random numbers
        builder.set_spout("spout", RandomIntegerSpout(work_dir / "spout"))

        # emits sliding window and global averages
        builder.set_bolt("avgbolt", PersistentWindowingTopology.AvgBolt()
                         .with_window(Duration.seconds(10), Duration.seconds(2))
                         # persist the window in state
                         .with_persistence()
                         # max number of events to be cached in memory
                         .with_max_events_in_memory(25000), 1) \
            .shuffle_grouping("spout")

        # print the values to stdout (and emit them: see the header)
        builder.set_bolt("printer", lambda x, y: (print(x.get_value(0)), y.emit([x.get_value(0)])), 1, "avg") \
            .shuffle_grouping("avgbolt")

        conf = Config()
        conf.set_debug(False)

        # checkpoint the state every 5 seconds
        conf[Config.TOPOLOGY_STATE_CHECKPOINT_INTERVAL] = 5000

        # use redis for state persistence
        conf[Config.TOPOLOGY_STATE_PROVIDER] = "org.apache.storm.redis.state.RedisKeyValueStateProvider"
        if jedis_pool_config is not None:
            conf[Config.TOPOLOGY_STATE_PROVIDER_CONFIG] = json.dumps({"jedisPoolConfig": dict(jedis_pool_config)})
        if java_serialization:
            conf.set_fall_back_on_java_serialization(True)
        else:
            conf.register_serialization(PersistentWindowingTopology.Averages)

        topo_name = "test"
        if args is not None and len(args) > 0:
            topo_name = args[0]
        conf.set_num_workers(1)
        runner = SparkRunner(spark, mode, conf=conf, checkpoint_location=work_dir / "checkpoint", clock=clock)
        return runner.submit(topo_name, builder.create_topology(), available_now=True)

    class Averages:
        """Wrapper to hold global and window averages."""

        def __init__(self, global_: float, window: float) -> None:
            self.global_ = global_
            self.window = window

        def __repr__(self) -> str:
            return f"Averages{{global={self.global_:.2f}, window={self.window:.2f}}}"

    class AvgBolt(BaseStatefulWindowedBolt):
        """A bolt that uses stateful persistence to store the windows along with the state (global avg)."""

        STATE_KEY = "avg"
        _collector: OutputCollector
        _state: KeyValueState
        _global_avg: Sequence[int]  # Pair<Long, Long>: (sum, count)

        def prepare(self, topo_conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
            """Keep the collector."""
            self._collector = collector

        def init_state(self, state: KeyValueState) -> None:
            """Take the state; the global sum and count go on from what it holds."""
            self._state = state
            self._global_avg = state.get(self.STATE_KEY, (0, 0))
            first, second = self._global_avg
            LOG.info("initState with global avg [%s]", first / second if second else math.nan)

        def execute(self, window: TupleWindow) -> None:
            """Emit the window's average and the global one, over every window so far."""
            sum = 0
            count = 0
            # iterate over tuples in the current window
            for tuple in window.iter():
                sum += tuple.get_integer(0)
                count += 1
            LOG.debug("Count : %d", count)
            self._global_avg = (self._global_avg[0] + sum, self._global_avg[1] + count)
            # update the value in state
            self._state.put(self.STATE_KEY, self._global_avg)
            # emit the averages downstream
            self._collector.emit([PersistentWindowingTopology.Averages(
                self._global_avg[0] / self._global_avg[1], sum / count)])

        def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
            """One field, ``avg``."""
            declarer.declare(Fields("avg"))

