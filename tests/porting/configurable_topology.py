# Ported from Apache Storm's storm-client/src/jvm/org/apache/storm/topology/ConfigurableTopology.java, the base class
# of storm-starter's ExclamationTopology, WordCountTopology and RollingTopWords. squall has no such class.
#
# The structure (a `conf` field, start(topology, args), run(args), submit(name, conf, builder)) is the Java file's;
# the changes that are not spelling:
# - submit() runs the topology on Spark instead of StormSubmitter.submitTopology: a SparkRunner over the Spark session,
#   working directory (the checkpoint goes under it), clock, placement and state the topology was made with (in
#   Storm the cluster's storm.yaml says where a topology runs), as a bounded run (available_now) over what the spouts'
#   files hold; a topology with an endless spout (a lambda spout) runs until the caller stops it, as Storm's
#   LocalCluster runs until killed. It keeps the run's handle in `handle` (Storm's returns nothing but the exit code).
# - parse() keeps Storm's `-conf <file>` argument, read as YAML into `conf` as Storm's loadConf does.
# - main, which each Java subclass writes as `ConfigurableTopology.start(new X(), args)`, is this class's classmethod:
#   it makes the subclass it is called on with the Spark session, working directory, clock, placement and state
#   store, starts it, and returns the run's handle.
"""Storm's ``ConfigurableTopology``: a topology class with a ``conf`` that ``run(args)`` builds and submits."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from squall import Config, SparkRunner, TopologyBuilder, TopologyHandle

LOG = logging.getLogger(__name__)


class ConfigurableTopology(ABC):
    """A topology with a configuration of its own; ``start`` parses the arguments and calls ``run``."""

    def __init__(
        self, spark: SparkSession, work_dir: Path, clock: Callable[[], int], *, mode: str = "driver",
        state: str | None = None,
    ) -> None:
        self.conf = Config()
        self.spark = spark
        self.work_dir = work_dir
        self.clock = clock
        self.mode = mode
        self.state = state
        self.handle: TopologyHandle | None = None

    @staticmethod
    def start(topology: ConfigurableTopology, args: Sequence[str]) -> None:
        """Parse ``args`` (``-conf <file>``), then run the topology with the arguments left."""
        remaining_args = topology.parse(args)
        topology.run(remaining_args)

    @classmethod
    def main(cls, spark: SparkSession, work_dir: Path, clock: Callable[[], int], args: Sequence[str] = (), *,
             mode: str = "driver", state: str | None = None) -> TopologyHandle:
        """Start the port (Java's ``main``: ``start(new Port(), args)``); returns its run's handle.

        ``RuntimeError`` when the topology was not submitted (``submit`` logs why).
        """
        topology = cls(spark, work_dir, clock, mode=mode, state=state)
        ConfigurableTopology.start(topology, args)
        if topology.handle is None:
            msg = "the topology was not submitted (see the log)"
            raise RuntimeError(msg)
        return topology.handle

    @staticmethod
    def name_of(args: Sequence[str], default: str) -> str:
        """The topology's name: ``args[0]``, or ``default`` without arguments (the storm-starter ports' first lines)."""
        return args[0] if len(args) >= 1 else default

    @staticmethod
    def load_conf(resource: str, conf: Config) -> Config:
        """Add the YAML file ``resource`` to ``conf`` (its ``config`` map alone when that is its only key)."""
        import yaml

        with open(resource, encoding="utf-8") as stream:
            ret: dict[str, Any] | None = yaml.safe_load(stream)
        if ret is None:
            ret = {}
        elif len(ret) == 1:
            conf_node = ret.get("config")
            if isinstance(conf_node, dict):
                ret = conf_node
        conf.update(ret)
        return conf

    def get_conf(self) -> Config:
        """The topology's configuration."""
        return self.conf

    @abstractmethod
    def run(self, args: Sequence[str]) -> int:
        """Build and submit the topology; 0 when it was submitted."""

    def submit(self, name: str, conf: Config, builder: TopologyBuilder) -> int:
        """Submit the topology under ``name`` (on Spark: see the header); 0 when submitted, -1 when not."""
        try:
            runner = SparkRunner(self.spark, self.mode, self.state, conf=conf, clock=self.clock,
                                 checkpoint_location=self.work_dir / "checkpoint")
            topology = builder.create_topology()
            bounded = all(spec.spout.supports_available_now for spec in topology.spouts.values())
            self.handle = runner.submit(name, topology, available_now=bounded)
        except Exception:
            LOG.exception("Failed to submit topology %s", name)
            return -1
        return 0

    def parse(self, args: Sequence[str]) -> list[str]:
        """The arguments without ``-conf <file>``, whose file is loaded into ``conf``."""
        new_args = list(args)
        while "-conf" in new_args:
            at = new_args.index("-conf")
            if at + 1 == len(new_args):
                msg = "Conf file not specified"
                raise RuntimeError(msg)
            resource = new_args[at + 1]
            try:
                ConfigurableTopology.load_conf(resource, self.conf)
            except FileNotFoundError:
                msg = f"File not found : {resource}"
                raise RuntimeError(msg) from None
            del new_args[at : at + 2]
        return new_args
