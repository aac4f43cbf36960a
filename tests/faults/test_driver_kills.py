"""The driver killed by SIGKILL at named points, again and again: the outputs equal a run without faults.

Each backend (Redis, HBase) runs the ``mixed`` topology (every kind of bolt
state, see :mod:`tests.cluster.cases`) once without faults, then in chains: a
chain is one query whose driver processes are killed one after another, in
four of its batches (at a random hit of each batch point, in a random order), then
once at each point of the shutdown flush, and finally run to the end. Every
process is killed with its Spark JVM (its whole process group), as a crashed
driver host would be. What the chain's processes wrote, batch files and the
flush's, must be exactly the fault-free run's records: nothing lost, nothing
twice. With Redis the runs also write two streams to Parquet tables
(:class:`~topologies.sinks.TableSink`): every kill after a batch's write and
before Spark's commit replays the batch, and each table must hold exactly
the fault-free run's rows.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest

from tests.faults.runs import KILLED, completed, write_input

pytestmark = pytest.mark.faults

BATCH_POINTS = ("mid-batch", "between-task-commits", "before-outputs", "before-spark-commit")
FLUSH_POINTS = ("flush-begun", "flush-closing", "flush-written")
# Chains of 7 kills per store, each killing every point once at a random batch and hit; more in a long run.
CHAINS = {"redis": int(os.environ.get("SQUALL_FAULT_CHAINS", "1")), "hbase": 1}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_input(tmp_path_factory.mktemp("fault-input"))


@pytest.fixture(params=[pytest.param(name, marks=pytest.mark.needs(f"{name}_url")) for name in ("redis", "hbase")])
def state(request):
    return request.getfixturevalue(f"{request.param}_url")


def _kills(rng: random.Random, hits: dict[str, int]) -> list[dict]:
    """A chain's kills: each batch point once, in a random order, in four random batches (later each time, so each
    is a batch the chain has not committed), then each point of the flush; each at a random hit of its point within
    that batch (or flush)."""
    batches = hits["before-outputs"]
    kills = []
    points = rng.sample(BATCH_POINTS, len(BATCH_POINTS))
    for batch, point in zip(sorted(rng.sample(range(batches), len(points))), points, strict=True):
        kills.append({"point": point, "batch": batch, "hit": rng.randint(1, hits[point] // batches)})
    kills += [{"point": point, "batch": None, "hit": rng.randint(1, hits[point])} for point in FLUSH_POINTS]
    return kills


def test_driver_killed_at_every_named_point_loses_nothing_and_doubles_nothing(data, state, tmp_path, fault_query):
    tables = state.startswith("redis")
    baseline = fault_query(data, tmp_path / "baseline", state)
    if tables:
        baseline.with_tables()
    completed(baseline.run())
    expected, hits = baseline.outputs(), baseline.hits()
    assert sum(expected.values()) > 150 and hits["flush-closing"] > 10  # a run with real work in batches and flush

    rng = random.Random(f"driver-kills-{state.split(':')[0]}")
    kills: Counter[str] = Counter()
    chains = CHAINS[state.split(":")[0]]
    for chain in range(chains):
        query = fault_query(data, tmp_path / f"chain-{chain}", state)
        if tables:
            query.with_tables()
        planned = _kills(rng, hits)
        for kill in planned:
            result = query.run(kill=kill)
            assert result.returncode == KILLED, (
                f"chain {chain}: the process was to be killed at {kill} but exited {result.returncode}\n"
                f"{result.stderr[-3000:]}"
            )
            assert query.killed_at() == kill
            kills[kill["point"]] += 1
        completed(query.run())
        got = query.outputs()
        assert got == expected, (
            f"chain {chain} (kills {planned}): lost {sorted((expected - got).elements())[:5]}, "
            f"extra {sorted((got - expected).elements())[:5]}"
        )
        if tables:
            assert query.tables() == baseline.tables(), f"chain {chain} (kills {planned}): the tables differ"
            assert all(baseline.tables().values()), "a table stayed empty: the sink wrote nothing"

    print(f"\n{state.split(':')[0]}: {sum(kills.values())} kills, outputs equal the fault-free run's: "
          f"{dict(sorted(kills.items()))}")
    assert sum(kills.values()) >= 7 * chains
    assert all(kills[point] == chains for point in BATCH_POINTS + FLUSH_POINTS), f"a point was not killed: {kills}"
