"""Word count with a fields grouping, as in storm-starter's WordCountTopology.

``sentences`` -> ``split`` (shuffle, 2 tasks) -> ``count`` (fields grouping on
``word``, 2 tasks): each task keeps the counts of its words and emits
(word, count) at every occurrence. Run it with ``python -m topologies.examples.word_count``.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bolts import BaseBolt, Fields, Tuple
from topologies.builder import TopologyBuilder
from topologies.examples._run import data_dir, run_bounded, write_json_files
from topologies.spouts import FileSpout
from topologies.topology import Topology

SENTENCES = (
    "the cow jumped over the moon",
    "an apple a day keeps the doctor away",
    "four score and seven years ago",
    "snow white and the seven dwarfs",
    "i am at two with nature",
)


class SplitSentence(BaseBolt):
    """Emits each word of a sentence."""

    def execute(self, input: Tuple) -> None:
        """One tuple per word."""
        for word in input["sentence"].split():
            self.collector.emit([word])

    def declare_output_fields(self, declarer: Any) -> None:
        """Emits ``word``."""
        declarer.declare(Fields("word"))


class WordCount(BaseBolt):
    """Counts the words this task sees; emits (word, count so far)."""

    def prepare(self, conf: dict[str, Any], context: Any, collector: Any) -> None:
        """Start with no counts."""
        self.collector = collector
        self.counts: dict[str, int] = {}

    def execute(self, input: Tuple) -> None:
        """Count the word and emit its count."""
        word = input["word"]
        self.counts[word] = self.counts.get(word, 0) + 1
        self.collector.emit([word, self.counts[word]])

    def declare_output_fields(self, declarer: Any) -> None:
        """Emits ``word``, ``count``."""
        declarer.declare(Fields("word", "count"))


def generate(directory: Path, rng: random.Random, files: int = 4, per_file: int = 25) -> None:
    """Random sentences from storm-starter's list."""
    write_json_files(directory, ([{"sentence": rng.choice(SENTENCES)} for _ in range(per_file)] for _ in range(files)))


def build_topology(path: str | None = None) -> Topology:
    """The topology over the JSON files in ``path`` (generated when None)."""
    spout = FileSpout(data_dir("word-count", generate, path), "json", ("sentence",), schema="sentence STRING")
    builder = TopologyBuilder()
    builder.set_spout("sentences", spout)
    builder.set_bolt("split", SplitSentence(), parallelism=2).shuffle_grouping("sentences")
    builder.set_bolt("count", WordCount(), parallelism=2).fields_grouping("split", Fields("word"))
    return builder.create_topology()


if __name__ == "__main__":
    run_bounded("word-count", build_topology())
