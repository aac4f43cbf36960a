"""A topology that uses Storm's bolt API beyond windows: basic and rich bolts, anchors and acks, emit's task
ids, direct emits, and the partial-key, custom, none and local-or-shuffle groupings.

Its terminal streams say where each tuple went, so a test can check routing
against what each grouping means, independently of squall's routing code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from squall import BaseBasicBolt, BaseRichBolt, Config, CustomStreamGrouping, Fields, TopologyBuilder
from topologies.spouts import FileSpout
from topologies.topology import Topology

FIELDS = ("key", "ts", "value", "msgid")
SCHEMA = "key STRING, ts BIGINT, value BIGINT, msgid BIGINT"


@dataclass(frozen=True)
class Reading:
    """A dataclass travelling between tasks as it is."""

    key: str
    value: int


class Score:
    """A class with slots, travelling between tasks through the functions :func:`conf` registers."""

    __slots__ = ("points",)

    def __init__(self, points: int) -> None:
        self.points = points


def conf() -> Config:
    """The conf: ``Score`` registered to travel (here, on the driver; the executors learn it from the conf)."""
    c = Config()
    c.register_serialization(Score, lambda s: s.points, Score)
    return c


class Split(BaseBasicBolt):
    """A basic bolt: forwards each tuple with a :class:`Reading`; reports on ``sent`` the task ids ``emit`` returned."""

    def execute(self, input, collector):
        sent = collector.emit([input["key"], input["value"], input["msgid"], Reading(input["key"], input["value"])])
        collector.emit("sent", [input["msgid"], sent])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "value", "msgid", "reading"))
        declarer.declare_stream("sent", Fields("msgid", "tasks"))


class Count(BaseRichBolt):
    """Counts keys (partial-key grouped); reports its task id per tuple and sends each tuple on, direct, to ``sink``."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.task_id = context.get_this_task_id()
        self.sinks = context.get_component_tasks("sink")
        self.counts: dict[str, int] = {}
        self.facts = [sorted(map(list, context.get_this_sources())), sorted(context.get_this_targets()),
                      context.get_component_output_fields("split", "sent").to_list()]

    def execute(self, input):
        if self.facts is not None:  # what the context says, once per task
            self.collector.emit("facts", [self.task_id, self.facts])
            self.facts = None
        key = input.get_string_by_field("key")
        self.counts[key] = self.counts.get(key, 0) + 1
        reading = input.get_value_by_field("reading")
        assert reading == Reading(key, input["value"]), reading  # came back a Reading
        self.collector.emit("got", input, [input.get_long_by_field("msgid"), self.task_id, self.counts[key]])
        target = self.sinks[input.get_long_by_field("value") % len(self.sinks)]
        self.collector.emit_direct(target, "to", [input], [input["msgid"], input["value"], Score(reading.value * 2)])
        self.collector.ack(input)

    def declare_output_fields(self, declarer):
        declarer.declare_stream("got", Fields("msgid", "task", "count"))
        declarer.declare_stream("facts", Fields("task", "facts"))
        declarer.declare_stream("to", True, Fields("msgid", "value", "score"))


class Sink(BaseRichBolt):
    """Takes the tuples sent to it directly; reports which task got each."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.index = context.get_this_task_index()

    def execute(self, input):
        score = input["score"]
        assert isinstance(score, Score) and score.points == 2 * input["value"], score
        self.collector.emit(input, [input["msgid"], input["value"], self.index])
        self.collector.ack(input)

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("msgid", "value", "task"))


class ByValue(CustomStreamGrouping):
    """A custom grouping: the tuple's value modulo the number of target tasks."""

    def prepare(self, context, stream, target_tasks):
        self.targets = list(target_tasks)

    def choose_tasks(self, task_id, values):
        return [self.targets[values[2] % len(self.targets)]]


class Where(BaseRichBolt):
    """Reports the task index each tuple reached."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.index = context.get_this_task_index()

    def execute(self, input):
        self.collector.emit([input["msgid"], input["value"], self.index])
        self.collector.ack(input)

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("msgid", "value", "task"))


def rows(files: int = 4, per_file: int = 15, seed: int = 3) -> list[list[dict]]:
    """Per file, rows of five keys with random values; ``msgid`` counts from 0 over all files."""
    import random

    rng, msgid, out = random.Random(seed), 0, []
    for f in range(files):
        batch = []
        for i in range(per_file):
            batch.append({"key": f"k{rng.randrange(5)}", "ts": f * 1000 + i, "value": rng.randrange(50),
                          "msgid": msgid})
            msgid += 1
        out.append(batch)
    return out


def storm_api(data: Path) -> Topology:
    """The topology, reading JSON files of :data:`FIELDS` from ``data``."""
    b = TopologyBuilder()
    b.set_spout("events", FileSpout(data, "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1))
    b.set_bolt("split", Split(), 2).local_or_shuffle_grouping("events")
    b.set_bolt("count", Count(), 3).partial_key_grouping("split", Fields("key"))
    b.set_bolt("sink", Sink(), 2).direct_grouping("count", "to")
    b.set_bolt("custom", Where(), 3).custom_grouping("events", ByValue())
    b.set_bolt("none", Where(), 2).none_grouping("events")
    return b.create_topology()
