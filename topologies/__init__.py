"""Topologies: building them, running them on Spark, and testing bolts locally."""

from bolts.tuples import Fields

__all__ = ["Fields"]
