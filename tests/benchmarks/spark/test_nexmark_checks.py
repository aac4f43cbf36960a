"""Nexmark queries against Spark's own queries on the same files

The in-process checks: tests/benchmarks/test_nexmark_checks.py.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from benchmarks.nexmark.hot_items import Q5
from benchmarks.nexmark.joins import Q8
from benchmarks.nexmark.stateless import Q2, SELECTED
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


def test_selection_in_the_spouts_scan_equals_sparks_filter(spark, tmp_path):
    """q2 with its predicate in the spout's ``where``: the rows squall's bolt gets are Spark's filter's, no more."""
    result = one_driver_round(Q2, spark, tmp_path, events=40_000, disorder_ms=0, lag_ms=4_000)
    driver_check = result.checks[1]
    assert driver_check.startswith("q2 driver, round 1 (every row): equal to Spark's (")
    assert "(0 keys)" not in driver_check


def test_the_in_process_profile_refuses_a_view_it_cannot_filter(tmp_path):
    """profile_queries reads files with pyarrow alone, so a spout's Spark SQL ``where`` is refused, not ignored."""
    from benchmarks.nexmark.profile_queries import view_table
    from benchmarks.nexmark.query import NexmarkView
    from benchmarks.nexmark.views import Workload

    spout = NexmarkView(Workload(tmp_path), "bid", ("auction", "price"), where=SELECTED)
    with pytest.raises(ValueError, match=r"the bid view filters with Spark SQL \('auction % 123 = 0'\)"):
        view_table(pa.table({"event_type": pa.array([2], pa.int32())}), spout)
