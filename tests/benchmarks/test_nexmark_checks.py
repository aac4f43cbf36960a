"""The suite's checks pass on squall's answer when it is Spark's, and fail, naming what differs, when it is not."""

from __future__ import annotations

import pytest

from benchmarks.nexmark import suite
from benchmarks.nexmark.check import compare
from benchmarks.nexmark.engines import Run
from benchmarks.nexmark.generator import NexmarkConfig, write_events
from benchmarks.nexmark.hot_items import Q5
from benchmarks.nexmark.run import parser
from benchmarks.nexmark.views import Workload

MODES = ["driver", "distributed"]
STATES = {"driver": "memory://", "distributed": "redis://unused"}
SPARKS = {(0, 10_000): [5, [1000]], (2_000, 12_000): [4, [1000, 1100]], (4_000, 14_000): [3, [1100]]}


def test_the_same_answer_passes_and_says_how_many_keys_it_compared():
    verdict = compare(SPARKS, dict(SPARKS))
    assert verdict.ok
    assert verdict.describe("q5 driver") == "q5 driver: equal to Spark's (3 keys)"


def test_a_missing_window_an_extra_window_and_a_wrong_value_are_each_reported():
    squall = {k: v for k, v in SPARKS.items() if k != (4_000, 14_000)}
    squall[(2_000, 12_000)] = [4, [1000]]
    squall[(6_000, 16_000)] = [1, [1200]]
    verdict = compare(SPARKS, squall)
    assert not verdict.ok
    assert verdict.missing == [(4_000, 14_000)] and verdict.extra == [(6_000, 16_000)]
    assert verdict.different == [((2_000, 12_000), [4, [1000, 1100]], [4, [1000]])]
    line = verdict.describe("q5 driver")
    assert line.startswith("q5 driver: DIFFERS from Spark's (3 keys): 1 missing from squall's (e.g. (4000, 14000))")
    assert "1 not in Spark's (e.g. (6000, 16000))" in line
    assert "(2000, 12000): Spark [4, [1000, 1100]], squall [4, [1000]]" in line


def test_floats_match_within_a_relative_tolerance_and_nothing_else_is_rounded():
    assert compare({"c": 1 / 3}, {"c": (1 / 3) * (1 + 1e-12)}).ok
    assert not compare({"c": 1 / 3}, {"c": 0.3334}).ok
    assert not compare({"c": [1.0, "x"]}, {"c": [1.0, "y"]}).ok
    assert not compare({("row", 1): 2}, {("row", 1): 1}).ok  # a row that came once too few


def fake_engines(monkeypatch, answers: dict[str, object]) -> None:
    """Spark and squall runs that take no time and give ``answers[engine]`` (an exception is raised)."""
    def spark_run(query, spark, workload):
        if isinstance(answers["spark"], Exception):
            raise answers["spark"]
        return Run(1.0, answers["spark"])

    def squall_run(query, spark, workload, mode, state):
        if isinstance(answers[mode], Exception):
            raise answers[mode]
        return Run(0.5, answers[mode])

    monkeypatch.setattr(suite, "run_spark", spark_run)
    monkeypatch.setattr(suite, "run_squall", squall_run)


def test_the_suite_passes_a_query_whose_every_run_gives_sparks_answer(monkeypatch, tmp_path):
    fake_engines(monkeypatch, {"spark": SPARKS, "driver": dict(SPARKS), "distributed": dict(SPARKS)})
    result = suite.run_query(Q5, None, Workload(tmp_path), MODES, STATES, rounds=2, log=lambda _: None)
    assert result.ok and len(result.checks) == 6
    assert result.seconds == {"spark": [1.0, 1.0], "driver": [0.5, 0.5], "distributed": [0.5, 0.5]}


def test_the_suite_fails_a_query_with_a_wrong_answer_or_a_run_that_raises(monkeypatch, tmp_path):
    wrong = {**SPARKS, (0, 10_000): [5, [1001]]}
    fake_engines(monkeypatch, {"spark": SPARKS, "driver": wrong, "distributed": RuntimeError("store down")})
    result = suite.run_query(Q5, None, Workload(tmp_path), MODES, STATES, rounds=1, log=lambda _: None)
    assert not result.ok
    driver, distributed = result.failures
    assert driver.startswith("q5 driver, round 1 (every window): DIFFERS from Spark's (3 keys): 1 with other values")
    assert "(0, 10000): Spark [5, [1000]], squall [5, [1001]]" in driver
    assert distributed == "q5 distributed, round 1: the run failed: RuntimeError('store down')"


def test_a_query_whose_spark_warm_up_raises_fails_without_running_its_rounds(monkeypatch, tmp_path):
    fake_engines(monkeypatch, {"spark": RuntimeError("no such column"), "driver": dict(SPARKS)})
    result = suite.run_query(Q5, None, Workload(tmp_path), ["driver"], STATES, rounds=3, log=lambda _: None)
    assert result.failures == ["q5 spark, warm-up: the run failed: RuntimeError('no such column')"]
    assert result.seconds == {} and result.checks == []


@pytest.mark.parametrize(("argv", "message"), [
    (["--events", "0"], "--events must be an integer of at least 1; got '0'"),
    (["--disorder", "-6000"], "--disorder must be an integer of at least 0; got '-6000'"),
    (["--rounds", "three"], "--rounds must be an integer of at least 1; got 'three'"),
])
def test_a_bad_option_value_is_refused_naming_the_option_and_the_value(argv, message, capsys):
    with pytest.raises(SystemExit):
        parser().parse_args(argv)
    assert message in capsys.readouterr().err


def one_driver_round(query, spark, directory, *, events, disorder_ms, lag_ms):
    """One round of ``query`` in driver mode and in Spark, on 1,000 events/s in files of 5,000; it must pass."""
    config = NexmarkConfig(events=events, events_per_file=5_000, rate=1_000, disorder_ms=disorder_ms)
    workload = Workload(write_events(config, directory), lag_ms=lag_ms)
    result = suite.run_query(query, spark, workload, ["driver"], {"driver": "memory://"}, rounds=1, log=lambda _: None)
    assert result.ok, result.failures
    return result
