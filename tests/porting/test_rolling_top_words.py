"""storm-starter's RollingTopWords, ported (tests/porting/rolling_top_words.py), run on Spark in driver mode.

Expected values, derived from the words the spout's files hold (read back from the files) by the slot arithmetic of
the Java bolts. The run's clock puts batch b (file b) at T0 + 3 s * b, and squall gives every bolt task its due tick
at the start of a batch, before the batch's tuples:

- RollingCountBolt(9, 3) ticks every 3 s: at each batch b >= 1; its SlidingWindowCounter has 9 / 3 = 3 slots, so
  at batch b it emits the counts of the words of batches b-3 .. b-1 (a word whose count fell to 0 once more, with 0),
  then counts batch b's words in the new head slot;
- IntermediateRankingsBolt ticks every 2 s, so once per batch (3 s apart): at batch b it emits what reached it before
  batch b, the counter's counts of batch b-1: words of batches b-4 .. b-2;
- TotalRankingsBolt ticks once per batch too: at batch b it emits the merge of the intermediate rankings of batch
  b-1, zero counts pruned: the counts of the words of batches b-5 .. b-3 (none before batch 3).

A second check runs the same topology with each bolt task rebuilt from the state store at every batch, as squall's
distributed mode may run a task's next batch in another process (no Spark there: the batches are fed in-process): the
counts and rankings the bolts hold must travel with the tasks.

Only the five names of TestWordSpout occur, so TOP_N = 5 holds them all; a ranking is compared as a word -> count map
plus its counts in descending order (Java orders equal counts by HashMap iteration order: not part of the check).
The third field of each rankable, the actual window length, comes from the wall clock (NthLastModifiedTimeTracker)
and is not checked.
"""

from __future__ import annotations

import itertools
import random
import uuid
from collections import Counter
from collections.abc import Sequence

from squall import Config, TopologyBuilder
from tests.porting.rolling_top_words import RollingTopWords
from tests.porting.spout import TestWordSpout, read_rows
from tests.porting.tools import RankableObjectWithFields, Rankings

WORDS_PER_FILE = [6, 4, 5, 3, 0, 0, 0, 0, 0]  # then idle batches, as the window slides past the words


def stepping_clock(start: int = 1_700_000_000_000, step: int = 3_000):
    counter = itertools.count(start, step)
    return lambda: next(counter)


def expected_total_rankings(words_of_batch: list[list[str]]) -> list[dict[str, int]]:
    """What TotalRankingsBolt emits at each tick, batch 1 to the last: the words of batches b-5 .. b-3, counted."""
    return [Counter(word for batch in words_of_batch[max(0, b - 5):max(0, b - 2)] for word in batch)
            for b in range(1, len(words_of_batch))]


def check_rankings(rankings: Sequence[Rankings], words_of_batch: list[list[str]]) -> None:
    expected = expected_total_rankings(words_of_batch)
    assert all(type(r) is Rankings and r.max_size() == RollingTopWords.TOP_N for r in rankings)
    got = [[(r.get_object(), r.get_count()) for r in ranking.get_rankings()] for ranking in rankings]
    assert all(type(r) is RankableObjectWithFields for ranking in rankings for r in ranking.get_rankings())
    assert [dict(ranking) for ranking in got] == expected
    assert [[count for _, count in ranking] for ranking in got] == [sorted(e.values(), reverse=True) for e in expected]
    # The window filled up, held the four files of words at once, and slid past them.
    assert [sum(e.values()) for e in expected] == [0, 0, 6, 10, 15, 12, 8, 3]


def test_the_final_ranker_emits_the_top_words_of_the_sliding_window_at_each_tick(spark, tmp_path):
    TestWordSpout.emit(tmp_path / "wordGenerator", WORDS_PER_FILE, random.Random(5))

    handle = RollingTopWords.main(spark, tmp_path, stepping_clock(), ["rolling-top-words"])
    assert handle.await_termination(300)

    outputs = handle.outputs()
    assert {(o.component, o.task, o.stream) for o in outputs} == {("finalRanker", 0, "default")}
    words_of_batch = [[row["word"] for row in rows] for rows in read_rows(tmp_path / "wordGenerator")]
    check_rankings([o.values[0] for o in outputs], words_of_batch)


class Built(RollingTopWords):
    """The port, with a submit() that keeps what it would submit."""

    def submit(self, name: str, conf: Config, builder: TopologyBuilder) -> int:
        self.built = (name, conf, builder.create_topology())
        return 0


def test_the_counts_and_rankings_travel_with_tasks_rebuilt_from_the_store_at_every_batch(tmp_path):
    from topologies.engine import BatchClock, batch_loop
    from topologies.engine.placements import chunks
    from topologies.engine.placements.local_frames import LocalFrames

    words_of_batch = TestWordSpout.emit(tmp_path / "wordGenerator", WORDS_PER_FILE, random.Random(5))
    port = Built(None, tmp_path, stepping_clock())  # type: ignore[arg-type]  # no Spark session: nothing is submitted
    RollingTopWords.start(port, [f"rolling-{uuid.uuid4().hex[:6]}"])
    name, conf, topology = port.built
    url = f"memory://{name}"  # the workers' store, shared in this process
    executor = batch_loop(topology, BatchClock(tmp_path / "clock", stepping_clock()), conf=conf, mode="distributed",
                          backend=chunks.worker_backend(url), name=name, state_url=url,
                          frames=LocalFrames(fresh_tasks=True))
    for batch_id, rows in enumerate(words_of_batch):
        executor.run(batch_id, {"wordGenerator": [[row["word"]] for row in rows]})
    check_rankings([o.values[0] for o in executor.log.all()],
                   [[row["word"] for row in rows] for rows in words_of_batch])
