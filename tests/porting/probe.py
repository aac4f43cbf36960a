"""LambdaTopology with a probe: what bolt1 emits is also re-emitted by a bolt of the test's, as the run's outputs.

storm-starter's LambdaTopology prints bolt1's tuples in bolt2, whose output a test cannot read in distributed mode
(the prints go to the executors' logs). The probe subscribes to bolt1 beside bolt2 and emits each tuple's values
again on a stream no bolt subscribes to, so ``handle.outputs()`` holds them; the port itself is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pyspark.sql import SparkSession

from squall import Config, TopologyBuilder, TopologyHandle
from tests.porting.configurable_topology import ConfigurableTopology
from tests.porting.lambda_topology import LambdaTopology


class ProbedLambdaTopology(LambdaTopology):
    """The port, submitted with the probe ``probe`` on ``bolt1``."""

    @staticmethod
    def main(spark: SparkSession, work_dir: Path, clock: Callable[[], int], args: Sequence[str] = (), *,
             mode: str = "driver", state: str | None = None) -> TopologyHandle:
        """Start the probed topology; returns its handle (it runs until stopped)."""
        return ConfigurableTopology.started(ProbedLambdaTopology(spark, work_dir, clock, mode=mode, state=state), args)

    def submit(self, name: str, conf: Config, builder: TopologyBuilder) -> int:
        """The port's submit, with the probe added."""
        builder.set_bolt("probe", lambda tuple, collector: collector.emit(tuple.get_values()), "strValue",
                         "intValue").shuffle_grouping("bolt1")
        return super().submit(name, conf, builder)
