"""storm-starter's WordCountTopology, ported (tests/porting/word_count_topology.py), on Spark: in driver mode on the
shared local[2] session, and in distributed mode, state on Redis, under local-cluster[2,1,1024] (a subprocess,
tests/porting/cluster_run.py).

Expected values: the sentences the spout's files hold, read back from the files and split on " " here; WordCountBolt
emits (word, n) at the word's n-th occurrence, so each word's outputs, in output order, are (word, 1) ... (word, N)
with N its number of occurrences, all from one task (the fields grouping sends a word to one task). Which task
counts which word, and how the tasks' outputs interleave, Storm leaves to its hash and scheduling: not checked.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from tests.porting.spout import RandomSentenceSpout, read_rows
from tests.porting.word_count_topology import WordCountTopology
from tests.topologies.helpers import counting_clock

REPO = Path(__file__).resolve().parents[2]


def write_sentences(work_dir: Path) -> Counter[str]:
    """Two files of sentences in the spout's directory; the number of occurrences of every word."""
    RandomSentenceSpout.emit(work_dir / "spout", [7, 5], random.Random(11))
    return Counter(word for rows in read_rows(work_dir / "spout") for row in rows for word in row["word"].split(" "))


def check_counts(outputs: list[tuple[str, int, str, list]], occurrences: Counter[str]) -> None:
    """Each word counted 1, 2, ... N in order, by one task; nothing else emitted."""
    assert {(component, stream) for component, _, stream, _ in outputs} == {("count", "default")}
    by_word: dict[str, list[int]] = {}
    tasks: dict[str, set[int]] = {}
    for _, task, _, (word, count) in outputs:
        by_word.setdefault(word, []).append(count)
        tasks.setdefault(word, set()).add(task)
    assert by_word == {word: list(range(1, n + 1)) for word, n in occurrences.items()}
    assert all(len(t) == 1 for t in tasks.values()), tasks
    assert set().union(*tasks.values()) <= set(range(12))  # WordCountBolt has 12 tasks


def test_driver_mode_counts_every_word_of_the_sentences(spark, tmp_path):
    occurrences = write_sentences(tmp_path)
    handle = WordCountTopology.main(spark, tmp_path, counting_clock(), ["word-count"])
    assert handle.await_termination(300)
    check_counts([(o.component, o.task, o.stream, o.values) for o in handle.outputs()], occurrences)
