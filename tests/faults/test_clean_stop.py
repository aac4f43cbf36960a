"""``handle.stop()`` while a batch runs on the executors: no JVM stack dump, the flush done, nothing lost or doubled.

Under ``local-cluster[2,1,1024]`` a bolt task of batch 2 sleeps on an
executor while the driver stops the query (:mod:`tests.faults.stop_run`). The
stop must end the batch without Spark's stream thread dying with a
``StackOverflowError`` (its regular expression over a long Python error
text), must not raise, and must run the shutdown flush after batch 1, the last
committed one. A second submit then runs batch 2 again and the rest. The
outputs of both must be those of a query that was never interrupted: a run on
the first two files (its flush after batch 1), then a run on all five.
"""

from __future__ import annotations

import json
import re
import shutil
import uuid

import pytest

from tests.cluster.cases import keyed_rows
from tests.faults import stop_run
from tests.faults.runs import outputs_of, write_input
from tests.topologies.spark.test_spark_errors import UNSENDABLE

pytestmark = pytest.mark.faults

PAUSE_MSGID = keyed_rows()[2][0]["msgid"]  # the first row of file 2: batch 2


def run_stop(process, root, data, name, state, how, master="local[2]", mode="distributed", url=None):
    """:mod:`tests.faults.stop_run` in a process of its own (a Spark Connect client of ``url`` if given), started by
    ``process`` (the ``spark_process`` fixture)."""
    args = {"data": str(data), "checkpoint": str(root / "checkpoint"), "output": str(root / "output"),
            "state": state, "name": name, "master": master, "mode": mode, "pause": str(root / "pause"),
            "pause_msgid": PAUSE_MSGID, "how": how, "url": url}
    (root / "pause").mkdir(parents=True, exist_ok=True)
    proc = process.module("tests.faults.stop_run", args, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def baseline(spark, files, root):
    """The uninterrupted outputs, in driver mode in this process (whose outputs are distributed mode's): the first
    two files (a flush after batch 1), then all five, on one runner (its memory:// store lives with it)."""
    from topologies import SparkRunner

    data, name = root / "input", f"base-{uuid.uuid4().hex[:8]}"
    data.mkdir(parents=True)
    (root / "pause").mkdir()
    (root / "pause" / "paused").touch()  # it never pauses
    runner = SparkRunner(spark, checkpoint_location=root / "checkpoint", output_dir=str(root / "output"),
                         clock=stop_run.batch_clock(root / "checkpoint", name), heartbeat=False)
    for chunk in (files[:2], files[2:]):
        for f in chunk:
            shutil.copy2(f, data / f.name)
        handle = runner.submit(name, stop_run.topology(data, root / "pause", PAUSE_MSGID), available_now=True)
        assert handle.await_termination(300)
    return outputs_of(root / "output" / name)


def test_a_stop_during_a_distributed_batch_flushes_and_the_next_run_goes_on_as_without_the_stop(spark, tmp_path,
                                                                                               redis_url, spark_process,
                                                                                               local_cluster):
    data = write_input(tmp_path / "input")
    files = sorted(data.glob("*.json"))
    assert len(files) == 5
    expected = baseline(spark, files, tmp_path / "baseline")
    assert sum(expected.values()) > 40

    stopped, name = tmp_path / "stopped", f"stop-{uuid.uuid4().hex[:8]}"
    report, stderr = run_stop(spark_process, stopped, data, name, redis_url, "stop", master=local_cluster)
    assert "StackOverflowError" not in stderr and "java.util.regex" not in stderr, stderr[-3000:]
    assert "Exception in thread" not in stderr, stderr[-3000:]
    assert report["raised"] is None
    assert report["last_committed"] == 1, report  # batch 2 was running: it did not commit
    assert report["flush_done"] and report["pending"] is None, report
    run_stop(spark_process, stopped, data, name, redis_url, "run")
    got = outputs_of(stopped / "output" / name)
    lost, extra = sorted((expected - got).elements())[:5], sorted((got - expected).elements())[:5]
    assert got == expected, f"lost {lost}, extra {extra}"


def test_an_emitted_object_on_an_executor_fails_the_query_with_one_error_naming_the_bolt(tmp_path, redis_url,
                                                                                         spark_process, local_cluster):
    data = write_input(tmp_path / "input")
    raised, stderr = run_stop(spark_process, tmp_path / "run", data, f"objects-{uuid.uuid4().hex[:8]}", redis_url,
                              "fail", master=local_cluster)
    assert set(raised) == {"await_termination", "stop"}, raised
    for method, error in raised.items():
        assert error["type"] == "TypeError", (method, error)
        assert re.fullmatch(UNSENDABLE + ".*", error["message"], re.DOTALL), (method, error["message"])
        assert not error["chained"], "one exception, not Spark's chain"
        assert re.match(r"raised by task \d of bolt 'averages' on a Spark executor", error["notes"][0]), error["notes"]
        assert "Traceback" in error["notes"][1] and "EmitsAverages" not in error["message"]
    assert "StackOverflowError" not in stderr and "Exception in thread" not in stderr, stderr[-3000:]
