"""storm-starter's ExclamationTopology, ported (tests/porting/exclamation_topology.py), run on Spark in driver mode.

Expected values: the words the spout's files hold, read back from the files, each with "!!!" appended twice (once per
ExclamationBolt layer), as a multiset: Storm's shuffle grouping is random, so which exclaim2 task emits which word,
and in which order the two tasks' outputs come, is no part of what the Java topology computes.
"""

from __future__ import annotations

import itertools
import logging
import random
from collections import Counter

from tests.porting.exclamation_topology import ExclamationTopology
from tests.porting.spout import TestWordSpout, read_rows


def stepping_clock(start: int = 1_700_000_000_000, step: int = 1_000):
    counter = itertools.count(start, step)
    return lambda: next(counter)


def test_every_word_comes_out_of_exclaim2_with_six_exclamation_marks(spark, tmp_path, caplog):
    TestWordSpout.emit(tmp_path / "word", [12, 9], random.Random(7))
    caplog.set_level(logging.INFO, logger="squall.debug")

    handle = ExclamationTopology.main(spark, tmp_path, stepping_clock(), ["exclamation"])
    assert handle.await_termination(300)

    words = [row["word"] for rows in read_rows(tmp_path / "word") for row in rows]
    expected = Counter(word + "!!!" + "!!!" for word in words)
    outputs = handle.outputs()
    assert {(o.component, o.stream) for o in outputs} == {("exclaim2", "default")}
    assert Counter(o.values[0] for o in outputs) == expected
    assert {o.task for o in outputs} == {0, 1}  # exclaim2 has two tasks
    # conf.setDebug(true): every tuple each ExclamationBolt emits is logged, 21 by exclaim1 and 21 by exclaim2.
    assert len([r for r in caplog.records if r.name == "squall.debug"]) == 2 * len(words)
