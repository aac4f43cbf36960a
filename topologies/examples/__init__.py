"""Example topologies; each runs with ``python -m topologies.examples.<name>`` on data it generates."""
