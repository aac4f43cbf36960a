"""The suite: each query's Spark and squall runs, warm, interleaved over rounds, every squall answer checked.

For each query Spark first runs once, discarded as a warm-up (the JVM's class
loading, JIT and code generation of that query's plan); its answer is the
reference. Then, round after round, Spark and squall in each mode run one after
the other, in an order that rotates with the round, so that a slow moment of
the machine does not fall on one engine only. Every squall run's answer is
checked against the reference, and every Spark run's against it too (Spark's
own answer must not change from run to run).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchmarks.nexmark.check import compare
from benchmarks.nexmark.engines import SPARK, Run, run_spark, run_squall
from benchmarks.nexmark.query import Answer, Query
from benchmarks.nexmark.views import Workload

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass
class QueryResult:
    """One query's runs: seconds per engine (one per round), the check lines and the failed ones."""

    query: Query
    seconds: dict[str, list[float]] = field(default_factory=dict)
    checks: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every check of the query passed."""
        return not self.failures


def engine_runs(query: Query, spark: SparkSession, workload: Workload, modes: Sequence[str],
                state: dict[str, str]) -> dict[str, Callable[[], Run]]:
    """Spark's run, then squall's in each of ``modes`` (``state``: each mode's state backend URL)."""
    runs: dict[str, Callable[[], Run]] = {SPARK: lambda: run_spark(query, spark, workload)}
    for mode in modes:
        runs[mode] = lambda mode=mode: run_squall(query, spark, workload, mode, state[mode])
    return runs


def run_query(query: Query, spark: SparkSession, workload: Workload, modes: Sequence[str], state: dict[str, str],
              rounds: int, log: Callable[[str], None] = print) -> QueryResult:
    """``query``'s warm-up, then ``rounds`` rounds of every engine, checked; a run that raises is a failed check.

    When Spark's warm-up raises there is no reference: the query fails with
    that error and none of its rounds runs.
    """
    result = QueryResult(query)
    try:
        warm_up = run_spark(query, spark, workload)
    except Exception as error:  # no reference to check against: the query fails, the suite goes on to the next
        result.failures.append(f"{query.name} spark, warm-up: the run failed: {error!r}")
        log(traceback.format_exc(limit=-3))
        return result
    reference = warm_up.answer
    log(f"{query.name}: Spark warm-up {warm_up.seconds:.2f} s (discarded), {len(reference):,} keys in its answer")
    runs = engine_runs(query, spark, workload, modes, state)
    names = list(runs)
    for round_ in range(rounds):
        for name in names[round_ % len(names):] + names[: round_ % len(names)]:
            try:
                run = runs[name]()
            except Exception as error:  # reported as the run's failed check; the suite goes on
                result.failures.append(f"{query.name} {name}, round {round_ + 1}: the run failed: {error!r}")
                log(traceback.format_exc(limit=-3))
                continue
            result.seconds.setdefault(name, []).append(run.seconds)
            log(f"{query.name} round {round_ + 1}: {name} {run.seconds:.2f} s")
            _check(result, name, round_, reference, run.answer)
    return result


def _check(result: QueryResult, engine: str, round_: int, reference: Answer, answer: Answer) -> None:
    what = f"{result.query.name} {engine}, round {round_ + 1} ({result.query.compared})"
    verdict = compare(reference, answer)
    line = verdict.describe(what)
    (result.checks if verdict.ok else result.failures).append(line)
    if not verdict.ok:
        print(line, flush=True)
