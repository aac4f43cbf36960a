# Stand-ins for the spouts of the ported storm-starter topologies, which squall cannot run (a squall spout is a Spark
# source, not an object whose nextTuple() is called):
# - examples/storm-starter/src/jvm/org/apache/storm/starter/spout/RandomIntegerSpout.java (fields value, ts, msgid),
# - examples/storm-starter/src/jvm/org/apache/storm/starter/spout/RandomSentenceSpout.java (field "word", a sentence),
# - storm-client/src/jvm/org/apache/storm/testing/TestWordSpout.java (field "word").
#
# Each is a FileSpout over a directory of JSON-lines files, read one file per micro-batch, with the Java spout's
# fields. What the Java spout would emit, at random and every 100 ms, is written beforehand with emit(): the same
# kinds of values drawn from a seeded random.Random (so the run is deterministic), one list of rows per file. A
# RandomIntegerSpout's ts is not the wall clock minus one day but 100 ms per msgid from the epoch; msgid goes on
# from the rows already in the directory, as the Java spout's counter goes on while it runs.
"""Storm's spouts of storm-starter as file sources: ``emit`` writes what they would emit, one file per micro-batch."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from squall import Fields, FileSpout

MTIME = 1_700_000_000  # Spark's file source reads the oldest file first: file n is MTIME + n


def append_files(directory: Path, files: Sequence[Sequence[dict[str, Any]]]) -> list[Path]:
    """Write each list of rows as one more JSON-lines file ``part-<n>.json`` after those in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    first = len(list(directory.glob("part-*.json")))
    written = []
    for n, rows in enumerate(files, start=first):
        path = directory / f"part-{n:05d}.json"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        os.utime(path, (MTIME + n, MTIME + n))
        written.append(path)
    return written


def read_rows(directory: Path) -> list[list[dict[str, Any]]]:
    """The rows of every file in ``directory``, file by file in the order the spout reads them."""
    return [[json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            for path in sorted(directory.glob("part-*.json"))]


class RandomIntegerSpout(FileSpout):
    """Emits a random integer below 1000, a timestamp and a message id per tuple (``value, ts, msgid``)."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        super().__init__(directory, "json", Fields("value", "ts", "msgid"),
                         schema="value INT, ts BIGINT, msgid BIGINT", max_files_per_trigger=1)

    @staticmethod
    def emit(directory: Path, per_file: Sequence[int], rand: random.Random) -> list[list[dict[str, Any]]]:
        """Write one file per count in ``per_file``, of that many tuples; msgid (and ts) go on from earlier files."""
        msg_id = sum(len(rows) for rows in read_rows(directory)) if directory.exists() else 0
        files = []
        for count in per_file:
            rows = []
            for _ in range(count):
                msg_id += 1
                rows.append({"value": rand.randrange(1000), "ts": msg_id * 100, "msgid": msg_id})
            files.append(rows)
        append_files(directory, files)
        return files


SENTENCES = ("the cow jumped over the moon", "an apple a day keeps the doctor away", "four score and seven years ago",
             "snow white and the seven dwarfs", "i am at two with nature")


class RandomSentenceSpout(FileSpout):
    """Emits one of five sentences at random per tuple, in the field ``word`` (as the Java spout declares it)."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        super().__init__(directory, "json", Fields("word"), schema="word STRING", max_files_per_trigger=1)

    @staticmethod
    def emit(directory: Path, per_file: Sequence[int], rand: random.Random) -> list[list[dict[str, Any]]]:
        """Write one file per count in ``per_file``, of that many sentences."""
        files = [[{"word": SENTENCES[rand.randrange(len(SENTENCES))]} for _ in range(count)] for count in per_file]
        append_files(directory, files)
        return files


WORDS = ("nathan", "mike", "jackson", "golda", "bertels")


class TestWordSpout(FileSpout):
    """storm-client's ``TestWordSpout``: one of five names at random per tuple, in the field ``word``."""

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        super().__init__(directory, "json", Fields("word"), schema="word STRING", max_files_per_trigger=1)

    @staticmethod
    def emit(directory: Path, per_file: Sequence[int], rand: random.Random) -> list[list[dict[str, Any]]]:
        """Write one file per count in ``per_file``, of that many words (a count of 0: an empty file, an idle batch)."""
        files = [[{"word": WORDS[rand.randrange(len(WORDS))]} for _ in range(count)] for count in per_file]
        append_files(directory, files)
        return files
