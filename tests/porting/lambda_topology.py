# Ported from Apache Storm's examples/storm-starter/src/jvm/org/apache/storm/starter/LambdaTopology.java.
#
# The structure, names and order are the Java file's; the changes are spelling: a Java lambda is a Python lambda, and
# bolt1's, whose body is more than one expression, a nested function; `prefix + parts[0] + suffix` (Java's string
# concatenation calls Prefix.toString) is an f-string; Prefix's toString is __str__; String.split("\\-") is
# str.split("-"). As in the other ConfigurableTopology ports, main takes the Spark session, a working directory, the
# run's clock, the placement and the state store besides `args`, and returns the run's handle: the spout never ends,
# so the run goes on until the caller stops it, as Storm's LocalCluster runs until killed.
"""storm-starter's ``LambdaTopology``: a lambda spout of random UUIDs and two lambda bolts."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from squall import BasicOutputCollector, Config, TopologyBuilder, Tuple
from tests.porting.configurable_topology import ConfigurableTopology


class LambdaTopology(ConfigurableTopology):
    """Storm 2's lambdas: ``set_spout(id, supplier)``, ``set_bolt(id, fn, *fields)`` and ``set_bolt(id, fn)``."""

    def run(self, args: Sequence[str]) -> int:
        """Build the topology and submit it as ``lambda-demo``."""
        builder = TopologyBuilder()

        # example. spout1: generate random strings
        # bolt1: get the first part of a string
        # bolt2: output the tuple

        # NOTE: Variables used in a lambda are captured by it, and must pickle (Spark sends the functions
        # to the processes that run them).
        prefix = Prefix("Hello lambda:")
        suffix = ":so cool!"
        tag = 999

        def bolt1(tuple: Tuple, collector: BasicOutputCollector) -> None:
            parts = tuple.get_string_by_field("lambda").split("-")
            collector.emit([f"{prefix}{parts[0]}{suffix}", tag])

        builder.set_spout("spout1", lambda: str(uuid.uuid4()))
        builder.set_bolt("bolt1", bolt1, "strValue", "intValue").shuffle_grouping("spout1")
        builder.set_bolt("bolt2", lambda tuple: print(tuple)).shuffle_grouping("bolt1")

        conf = Config()
        conf.set_debug(True)
        conf.set_num_workers(2)

        return self.submit("lambda-demo", conf, builder)


class Prefix:
    """A plain class captured by bolt1's function (Serializable in the Java file)."""

    def __init__(self, str: str) -> None:
        self._str = str

    def __str__(self) -> str:
        return self._str
