"""Shared pieces of the Kafka tests: an echoing bolt, a keyed window sum, and a bounded run."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from bolts import BaseBolt, BaseWindowedBolt, Fields
from tests.topologies.helpers import counting_clock
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import Spout
from topologies.topology import Topology


class Echo(BaseBolt):
    """Emits the named fields of every tuple."""

    def __init__(self, *fields: str) -> None:
        self.names = fields

    def execute(self, input):
        self.collector.emit([input[f] for f in self.names])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields(*self.names))


class KeyedSum(BaseWindowedBolt):
    """Per key present in the window: (key, window start, window end, sum of value, count)."""

    def execute(self, window):
        sums: dict[str, list[int]] = {}
        for t in window.get():
            entry = sums.setdefault(t["key"], [0, 0])
            entry[0] += t["value"]
            entry[1] += 1
        for key, (total, count) in sorted(sums.items()):
            self.collector.emit([key, window.start_timestamp, window.end_timestamp, total, count])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "start", "end", "sum", "count"))


class LateLog(BaseBolt):
    """Emits each late tuple's key, ts and value."""

    def execute(self, input):
        late = input["late_tuple"]
        self.collector.emit([late["key"], late["ts"], late["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "ts", "value"))


def echo_topology(spouts: dict[str, Spout], fields: dict[str, tuple[str, ...]], global_grouping: bool = False,
                  streams: dict[str, str] | None = None) -> Topology:
    """Each spout into an :class:`Echo` of ``fields[spout]`` (component ``echo-<spout>``)."""
    builder = TopologyBuilder()
    for sid, spout in spouts.items():
        builder.set_spout(sid, spout)
        declarer = builder.set_bolt(f"echo-{sid}", Echo(*fields[sid]))
        stream = (streams or {}).get(sid, "default")
        if global_grouping:
            declarer.global_grouping(sid, stream)
        else:
            declarer.shuffle_grouping(sid, stream)
    return builder.create_topology()


def run_bounded(spark: Any, root: Path, topology: Topology, **runner: Any):
    """Submit ``topology`` with ``available_now`` under a fresh name; returns the handle, not yet awaited."""
    name = f"k-{uuid.uuid4().hex[:8]}"
    runner.setdefault("clock", counting_clock())
    return SparkRunner(spark, checkpoint_location=root / "ck", **runner).submit(name, topology, available_now=True)


def event(key: str, ts: int, value: int) -> tuple[str, str]:
    """A Kafka record ``(key, JSON value)`` of an event."""
    return key, json.dumps({"key": key, "ts": ts, "value": value})
