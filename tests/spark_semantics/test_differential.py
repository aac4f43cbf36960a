"""``with_spark_semantics()`` against Spark itself: random streams through both engines, every window compared.

Each case (:mod:`tests.spark_semantics.streams`) is a random stream with late
rows, rows on window edges, disorder and a random batch split, under a
tumbling, sliding or session window and a random watermark delay, some with
two inputs and a multiple-watermark policy. Spark runs
``withWatermark`` + ``groupBy(window, key).agg(sum, count)``; squall runs
``WindowedAggregateBolt`` sums and counts with ``with_spark_semantics()`` over
the same files in the same batches. Every window's sum and count must match:
in driver mode, after a failed batch and a resubmit, after a drained run and a
second run on more files, and in update mode through its trigger recipe. The
same comparison under ``local-cluster`` and Spark Connect is in
tests/cluster/test_spark_differential.py.

``SQUALL_SPARK_DIFF_STREAMS`` sets how many streams the driver-mode test runs
(12 by default, four of each window kind); the long runs set it to 1000.
"""

from __future__ import annotations

import os

from tests.spark_semantics.differential import compare_round
from tests.spark_semantics.streams import cases_in_turn as cases
from tests.spark_semantics.streams import random_case

STREAMS = int(os.environ.get("SQUALL_SPARK_DIFF_STREAMS", "12"))
PER_ROUND = 50


def check(found: list[str], windows: int) -> None:
    assert windows > 0, "no window was compared"
    assert not found, "squall's windows differ from Spark's:\n" + "\n".join(found)


def test_driver_mode_gives_spark_s_windows_on_random_streams(spark, tmp_path):
    windows = 0
    for number, first in enumerate(range(0, STREAMS, PER_ROUND)):
        found, compared = compare_round(spark, cases(first, min(PER_ROUND, STREAMS - first)), tmp_path / str(number),
                                        f"drv{number}")
        check(found, compared)
        windows += compared
    print(f"{STREAMS} streams, {windows} windows, all equal to Spark's")


def test_a_failed_batch_run_again_after_a_resubmit_gives_spark_s_windows(spark, tmp_path):
    check(*compare_round(spark, cases(100, 6), tmp_path, "restart", fail_at=2))


def test_a_second_run_on_more_files_goes_on_as_spark_s_restarted_query_does(spark, tmp_path):
    # Both engines run on the first two batches, end (Spark with its no-data batch, squall with its flush),
    # then run again from their checkpoints on the rest.
    check(*compare_round(spark, cases(500, 9), tmp_path, "rerun", split_at=2))


def test_update_mode_s_recipe_gives_spark_s_update_mode_rows(spark, tmp_path):
    # Spark has no update mode for session windows.
    plain = [random_case(seed, kinds=("tumbling", "sliding")) for seed in range(200, 206)]
    check(*compare_round(spark, plain, tmp_path, "update", mode="update"))
