"""Under Spark Connect: topology.fall.back.on.java.serialization, and lambda spouts (tests/connect/fall_back_run.py).

The client runs in a process of its own against the session's Connect server, where ``foreachBatch`` runs in a
Python process beside the server and the lambda spout's supplier in the Python process that plans the batches.

- RollingTopWords with its plain classes and the key, no registration anywhere, in driver mode with ``memory://``
  (journaled beside the checkpoint) and with Redis, and in distributed mode with HBase, each over two runs (a
  restart: a new runner resuming from the store): the rankings Storm's bolts give, tick by tick (as in
  tests/porting/test_rolling_top_words.py). The rankings travel to the client as pickles too.
- A LambdaSpout with a count, available now, in both placements: every call once and in order, a second's worth
  per batch; submitted again with a larger count on the same checkpoint, it goes on from the count the first run
  reached (the count lives in Spark's offsets) with the new run's supplier.
- storm-starter's LambdaTopology in distributed mode: bolt1's greetings, as in tests/porting/test_lambda_topology.py.
"""

from __future__ import annotations

import pytest

from tests.connect.fall_back_run import RUNS
from tests.connect_fixtures import run_connect
from tests.porting.spout import read_rows
from tests.porting.test_lambda_topology import check_greetings
from tests.porting.test_rolling_top_words import WORDS_PER_FILE, expected_total_rankings


@pytest.fixture(scope="module")
def results(connect_url, redis_url, hbase_url, tmp_path_factory) -> dict:
    work = tmp_path_factory.mktemp("connect-fall-back")
    states = {"memory": "memory://", "redis": redis_url, "hbase": hbase_url,
              "lambda": redis_url.rsplit("/", 1)[0] + "/3"}  # LambdaTopology's name is fixed: a database of its own
    got = run_connect("tests.connect.fall_back_run", {"url": connect_url, "work": str(work), "states": states})
    return {**got, "work": work}  # type: ignore[dict-item]


@pytest.mark.parametrize(("mode", "store"), RUNS, ids=[f"{m}-{s}" for m, s in RUNS])
def test_rolling_top_words_with_the_key_ranks_as_storm_across_a_restart(results, mode, store):
    words = read_rows(results["work"] / f"rolling-{mode}-{store}" / "wordGenerator")  # the files the client wrote
    assert [len(rows) for rows in words] == WORDS_PER_FILE
    expected = expected_total_rankings([[row["word"] for row in rows] for rows in words])
    rankings = results[f"rolling/{mode}/{store}"]
    assert [dict(map(tuple, r)) for r in rankings] == expected
    assert [[count for _, count in r] for r in rankings] == [sorted(e.values(), reverse=True) for e in expected]


@pytest.mark.parametrize("mode", ["driver", "distributed"])
def test_a_lambda_spout_calls_its_supplier_once_per_tuple_and_its_count_goes_on_after_a_restart(results, mode):
    first, second = results[f"lambda/{mode}"]
    assert first == [f"v{n}" for n in range(6)]
    assert second == [f"v{n}" for n in range(4)]  # calls 6 to 9, by the second run's own supplier


def test_lambda_topology_runs_under_connect(results):
    check_greetings([("probe", "default", values) for values in results["lambda-topology"]])

