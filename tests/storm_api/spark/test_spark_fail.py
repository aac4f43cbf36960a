"""``collector.fail`` on Spark: the batch fails, the query stops naming the bolt and the tuple, and the next run
replays the batch, so every value comes out once (Storm's at-least-once meaning of a failed tuple).

Classic session in both placements, and the same under Spark Connect (a client process of its own).
"""

from __future__ import annotations

import uuid

import pytest

from tests.storm_api.fail_run import run, write_input

FAILED = r"TupleFailedError: bolt 'doubler' task \d failed tuple .*4.*the batch fails, and Spark runs it again"


def check(report, cumulative=False):
    """``cumulative``: under Connect a handle's outputs are the query's since its first run (the run's files)."""
    import re

    assert re.search(FAILED, report["first_error"]), report
    assert report["second_error"] is None, report
    # 4 is in the second file: the first run output the first file's values only; the second run replayed the
    # second file (4 included) and read the third. Together: every value once, doubled.
    assert report["first_outputs"] == [0, 2, 4]
    second = report["second_outputs"] if cumulative else report["first_outputs"] + report["second_outputs"]
    assert sorted(second) == [2 * v for v in range(9)]


@pytest.mark.parametrize("mode", ["driver", "distributed"])
def test_a_failed_tuple_fails_the_batch_and_the_next_run_replays_it(spark, tmp_path, redis_url, mode):
    data = write_input(tmp_path / "in")
    check(run(spark, data, tmp_path, mode, redis_url, f"fail-{uuid.uuid4().hex[:6]}"))
