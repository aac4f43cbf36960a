"""Under Spark Connect: ``handle.stop()`` while a batch runs, and a bolt that emits an object.

The client runs :mod:`tests.faults.stop_run` against the session's Connect
server (``local[2]``), in both placements: in driver mode the bolts run in the
server's ``foreachBatch`` Python process, in distributed mode on its executors.
A stop while batch 2 sleeps in a bolt must raise nothing and leave the
shutdown flush after batch 1 done; a second submit then gives the outputs of a
query that was never interrupted. A bolt emitting an object fails the query
with an error naming the bolt, the task, the stream and the value, from
``await_termination()`` and ``stop()`` alike.
"""

from __future__ import annotations

import re
import uuid

import pytest

from tests.faults.runs import outputs_of, write_input
from tests.faults.test_clean_stop import baseline, run_stop
from tests.topologies.spark.test_spark_errors import UNSENDABLE

pytestmark = pytest.mark.faults


@pytest.mark.parametrize("mode", ["driver", "distributed"])
def test_a_stop_during_a_batch_under_connect_flushes_and_the_next_run_goes_on(spark, connect_url, tmp_path,
                                                                             redis_url, mode, spark_process):
    data = write_input(tmp_path / "input")
    expected = baseline(spark, sorted(data.glob("*.json")), tmp_path / "baseline")
    stopped, name = tmp_path / "stopped", f"cstop-{uuid.uuid4().hex[:8]}"
    report, stderr = run_stop(spark_process, stopped, data, name, redis_url, "stop", mode=mode, url=connect_url)
    assert report["raised"] is None, report
    assert report["last_committed"] == 1, report  # batch 2 was running: it did not commit
    assert report["flush_done"] and report["pending"] is None, report
    assert "StackOverflowError" not in stderr, stderr[-3000:]
    run_stop(spark_process, stopped, data, name, redis_url, "run", mode=mode, url=connect_url)
    got = outputs_of(stopped / "output" / name)
    lost, extra = sorted((expected - got).elements())[:5], sorted((got - expected).elements())[:5]
    assert got == expected, f"lost {lost}, extra {extra}"


@pytest.mark.parametrize("mode", ["driver", "distributed"])
def test_an_emitted_object_under_connect_fails_the_query_naming_the_bolt(connect_url, tmp_path, redis_url, mode,
                                                                       spark_process):
    data = write_input(tmp_path / "input")
    raised, _ = run_stop(spark_process, tmp_path / "run", data, f"cobj-{uuid.uuid4().hex[:8]}", redis_url, "fail",
                         mode=mode, url=connect_url)
    assert set(raised) == {"await_termination", "stop"}, raised
    for method, error in raised.items():
        assert re.search(UNSENDABLE, error["message"]), (method, error["message"])
