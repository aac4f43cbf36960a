"""Nexmark queries against Spark's own queries on the same files

The in-process checks: tests/benchmarks/test_nexmark_checks.py.
"""

from __future__ import annotations

from benchmarks.nexmark.hot_items import Q5
from benchmarks.nexmark.joins import Q8
from tests.benchmarks.test_nexmark_checks import one_driver_round


def test_hot_items_in_squall_equal_sparks_own_query_on_the_same_files(spark, tmp_path):
    """q5 end to end, tiny: 40 s of event time (1,000 events/s) in 8 files read 2 per batch, disorder 2 s."""
    result = one_driver_round(Q5, spark, tmp_path, events=40_000, disorder_ms=2_000, lag_ms=4_000)
    spark_check, driver_check = result.checks
    assert spark_check.startswith("q5 spark, round 1 (every window): equal to Spark's (")
    assert driver_check.startswith("q5 driver, round 1 (every window): equal to Spark's (")
    assert driver_check.endswith(" keys)") and "(0 keys)" not in driver_check


def test_new_users_come_once_per_person_and_window_under_disorder(spark, tmp_path):
    """q8 with 15 s of disorder (the smoke run's shape): a later auction of a person's window adds no second row."""
    one_driver_round(Q8, spark, tmp_path, events=100_000, disorder_ms=15_000, lag_ms=15_000)
