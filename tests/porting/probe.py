"""LambdaTopology with a probe: what bolt1 emits is also re-emitted by a bolt of the test's, as the run's outputs.

storm-starter's LambdaTopology prints bolt1's tuples in bolt2, whose output a test cannot read in distributed mode
(the prints go to the executors' logs). The probe subscribes to bolt1 beside bolt2 and emits each tuple's values
again on a stream no bolt subscribes to, so ``handle.outputs()`` holds them; the port itself is unchanged.
"""

from __future__ import annotations

from squall import Config, TopologyBuilder
from tests.porting.lambda_topology import LambdaTopology


class ProbedLambdaTopology(LambdaTopology):
    """The port, submitted with the probe ``probe`` on ``bolt1``."""

    def submit(self, name: str, conf: Config, builder: TopologyBuilder) -> int:
        """The port's submit, with the probe added."""
        builder.set_bolt("probe", lambda tuple, collector: collector.emit(tuple.get_values()), "strValue",
                         "intValue").shuffle_grouping("bolt1")
        return super().submit(name, conf, builder)
