"""storm-starter's RollingTopWords, SkewedRollingTopWords and PersistentWindowingTopology with their plain classes
and topology.fall.back.on.java.serialization set, instead of registrations, in distributed mode under
local-cluster[2,1,1024] (two executor processes), state on Redis, across a restart: the same outputs.

Each port runs ``registered`` and ``pickled`` (tests/porting/java_serialization.py) on the same files and clocks, in
two driver processes one after the other (tests/porting/cluster_run.py): the first reads the first files, the second,
a new driver and new executors resuming from the checkpoints and Redis, the rest. In each process the ``pickled``
runs come first, before anything registers the classes there. The outputs of the two variants must be equal, and
equal to what the Java bolts compute from the files (as in test_fall_back_serialization.py for driver mode).
"""

from __future__ import annotations

import random
import uuid
from pathlib import Path

from bolts.codecs.pickle_fallback import PICKLE_EXT
from squall import open_backend
from tests.porting.java_serialization import VARIANTS, ext_codes
from tests.porting.spout import RandomIntegerSpout, TestWordSpout, read_rows
from tests.porting.test_persistent_windowing_topology import expected_averages
from tests.porting.test_rolling_top_words import WORDS_PER_FILE, expected_total_rankings
from tests.spark_fixtures import SparkProcess

REPO = Path(__file__).resolve().parents[2]
T0 = 1_700_000_000_000
RANKERS = ("rolling_top_words", "skewed_rolling_top_words")
# Per port: its input files in each of the two parts, and the clock of the second part's first batch.
PARTS = {
    "rolling_top_words": ((WORDS_PER_FILE[:5], WORDS_PER_FILE[5:]), T0 + 5 * 3_000),
    "skewed_rolling_top_words": ((WORDS_PER_FILE[:5], WORDS_PER_FILE[5:]), T0 + 5 * 3_000),
    "persistent_windowing": (([3, 2, 4, 3], [2, 3, 1, 2]), T0 + 4 * 2_000),
}


def write_part(work: Path, port: str, part: int, rand: random.Random) -> None:
    files = PARTS[port][0][part]
    if port in RANKERS:
        TestWordSpout.emit(work / "wordGenerator", files, rand)
    else:
        RandomIntegerSpout.emit(work / "spout", files, rand)


def run_cluster(process: SparkProcess, master: str, runs: list[dict]) -> list[list]:
    """``runs`` by tests/porting/cluster_run.py on ``master``, in a process of ``process`` (``spark_process``)."""
    return process.answer("tests.porting.cluster_run", {"master": master, "runs": runs}, timeout=1500)


def test_the_ports_give_the_same_outputs_with_the_key_as_with_registrations_across_a_restart(tmp_path, redis_url,
                                                                                           spark_process,
                                                                                           local_cluster):
    runs = [{"topology": port, "variant": variant, "work_dir": str(tmp_path / f"{port}-{variant}"),
             "name": f"{variant}-{uuid.uuid4().hex[:6]}", "state": redis_url}
            for variant in reversed(VARIANTS) for port in PARTS]  # pickled first: see cluster_run.py
    rands = {id(run): random.Random(5 if run["topology"] in RANKERS else 6) for run in runs}
    outputs = {(run["topology"], run["variant"]): [] for run in runs}
    for part in (0, 1):
        for run in runs:
            write_part(Path(run["work_dir"]), run["topology"], part, rands[id(run)])
            run["clock_start"] = T0 if part == 0 else PARTS[run["topology"]][1]
        for run, got in zip(runs, run_cluster(spark_process, local_cluster, runs), strict=True):
            outputs[run["topology"], run["variant"]] += got

    for port in PARTS:
        assert outputs[port, "pickled"] == outputs[port, "registered"], port
    for port in RANKERS:
        rankings = [values for _, _, _, values in outputs[port, "pickled"]]
        words = [[row["word"] for row in rows] for rows in read_rows(tmp_path / f"{port}-pickled" / "wordGenerator")]
        assert [dict(map(tuple, r)) for r in rankings] == expected_total_rankings(words), port
    averages = [tuple(values) for _, _, _, values in outputs["persistent_windowing", "pickled"]]
    values = [[row["value"] for row in rows] for rows in read_rows(tmp_path / "persistent_windowing-pickled" / "spout")]
    assert averages == expected_averages(values)

    pickled = next(run for run in runs if run["topology"] == "rolling_top_words" and run["variant"] == "pickled")
    with open_backend(redis_url) as store:  # where the second driver's executors read the rankings back from
        stored = [store.namespace(f"{pickled['name']}/intermediateRanker/{task}").get(b"f/_rankings")
                  for task in range(4)]
    assert {code for data in stored if data is not None for code in ext_codes(data)} == {PICKLE_EXT}
