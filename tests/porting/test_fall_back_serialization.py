"""storm-starter's RollingTopWords, SkewedRollingTopWords and PersistentWindowingTopology with their plain classes
and topology.fall.back.on.java.serialization set, instead of registrations: the same outputs, in driver mode with the
state in Redis, across a restart (a new SparkRunner on the same checkpoint and Redis, as a new driver would).

Each port runs twice (tests/porting/java_serialization.py): ``registered`` and ``pickled``, on the same input files
and clocks, each in two parts: the first files, then, in a new runner, the rest. The outputs must be equal, and equal
to what the Java bolts compute from the files (tests/porting/test_rolling_top_words.py and
test_persistent_windowing_topology.py derive them). In the ``pickled`` runs the classes are not registered in this
process, so whatever travels or is stored goes by pickle, and the Redis store is checked to hold the rankers' rankings
as pickles (the rankings came back after the restart from them).
"""

from __future__ import annotations

import random
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bolts.codecs.pickle_fallback import PICKLE_EXT
from bolts.codecs.value_codec import OBJECT_EXT
from squall import open_backend
from tests.porting.java_serialization import VARIANTS, ext_codes, java_serialization_args, ranked, unregistered
from tests.porting.persistent_windowing_topology import PersistentWindowingTopology
from tests.porting.rolling_top_words import RollingTopWords
from tests.porting.skewed_rolling_top_words import SkewedRollingTopWords
from tests.porting.spout import RandomIntegerSpout, TestWordSpout, read_rows
from tests.porting.test_persistent_windowing_topology import expected_averages
from tests.porting.test_rolling_top_words import WORDS_PER_FILE, expected_total_rankings, stepping_clock
from tests.porting.tools import RankableObjectWithFields, Rankings, SlidingWindowCounter, SlotBasedCounter

TOOLS = (Rankings, RankableObjectWithFields, SlidingWindowCounter, SlotBasedCounter)
T0, TICK = 1_700_000_000_000, 3_000
FIRST_FILES = 5  # the first run reads files 0-4, the second (after the restart) files 5-8
PORTS = {"rolling": RollingTopWords, "skewed": SkewedRollingTopWords}


def run_rankings(port, spark, work: Path, variant: str, state: str) -> list[list[list]]:
    """The port's final rankings, tick by tick, over two runs with a restart between them."""
    name = f"{variant}-{uuid.uuid4().hex[:6]}"
    rand = random.Random(5)
    TestWordSpout.emit(work / "wordGenerator", WORDS_PER_FILE[:FIRST_FILES], rand)
    args = [name, *java_serialization_args(work, variant)]
    first = port.main(spark, work, stepping_clock(T0, TICK), args, state=state)
    assert first.await_termination(300)
    TestWordSpout.emit(work / "wordGenerator", WORDS_PER_FILE[FIRST_FILES:], rand)
    second = port.main(spark, work, stepping_clock(T0 + FIRST_FILES * TICK, TICK), args, state=state)
    assert second.await_termination(300)
    outputs = first.outputs() + second.outputs()
    assert {(o.component, o.stream) for o in outputs} == {("finalRanker", "default")}
    assert all(type(o.values[0]) is Rankings for o in outputs)
    with open_backend(state) as store:  # what the restart read the intermediate rankers' rankings back from
        stored = [store.namespace(f"{name}/intermediateRanker/{task}").get(b"f/_rankings") for task in range(4)]
    codes = {code for data in stored if data is not None for code in ext_codes(data)}
    assert codes == ({PICKLE_EXT} if variant == "pickled" else {OBJECT_EXT})
    return [ranked(o.values[0]) for o in outputs]


@pytest.mark.parametrize("port", PORTS)
def test_the_rankings_are_the_same_with_the_key_as_with_registrations_across_a_restart(port, spark, tmp_path,
                                                                                        redis_url):
    runs = {}
    for variant in VARIANTS:
        work = tmp_path / variant
        with unregistered(*(TOOLS if variant == "pickled" else ())):
            runs[variant] = run_rankings(PORTS[port], spark, work, variant, redis_url)
    assert runs["pickled"] == runs["registered"]
    words = [[row["word"] for row in rows] for rows in read_rows(tmp_path / "pickled" / "wordGenerator")]
    expected = expected_total_rankings(words)
    assert [dict(r) for r in runs["pickled"]] == expected
    assert [[count for _, count in r] for r in runs["pickled"]] == [sorted(e.values(), reverse=True) for e in expected]


def run_averages(spark, work: Path, variant: str, redis_url: str) -> list[tuple[float, float]]:
    url = urlsplit(redis_url)
    jedis = {"host": url.hostname, "port": url.port, "database": int(url.path.strip("/") or 0)}
    name, rand, step = f"pw-{variant}-{uuid.uuid4().hex[:6]}", random.Random(6), 2_000
    pickled = variant == "pickled"
    got = []
    for part, (files, start) in enumerate((([3, 2, 4, 3], T0), ([2, 3, 1, 2], T0 + 4 * step))):
        RandomIntegerSpout.emit(work / "spout", files, rand)
        clock = stepping_clock(start, step)
        handle = PersistentWindowingTopology.main(spark, work, clock, [name], jedis_pool_config=jedis,
                                                  java_serialization=pickled)
        assert handle.await_termination(300), f"part {part}"
        averages = [o.values[0] for o in handle.outputs()]
        assert all(type(a) is PersistentWindowingTopology.Averages for a in averages)
        got += [(a.global_, a.window) for a in averages]
    with open_backend(redis_url) as store:  # the averages the window bolt emitted, kept with its commit
        emitted = store.namespace(f"{name}/avgbolt/0").get(b"o/batch")
    assert (PICKLE_EXT if pickled else OBJECT_EXT) in ext_codes(emitted)
    return got


def test_the_persistent_windows_averages_are_the_same_with_the_key_as_with_registrations(spark, tmp_path, redis_url):
    runs = {}
    for variant in VARIANTS:
        with unregistered(*((PersistentWindowingTopology.Averages,) if variant == "pickled" else ())):
            runs[variant] = run_averages(spark, tmp_path / variant, variant, redis_url)
    assert runs["pickled"] == runs["registered"]
    values = [[row["value"] for row in rows] for rows in read_rows(tmp_path / "pickled" / "spout")]
    assert runs["pickled"] == expected_averages(values)
