"""The state store restarted mid-run, and a Python worker killed inside ``execute``: nothing lost, nothing twice.

The Redis server (with an append-only file, as a production Redis that must
not lose commits) is killed while the query runs and started again once the
query has tried to reach it; the HBase Thrift server the query talks to is
killed and started again the same way (a JVM: back within seconds, so the URL's
``retry_seconds`` allows a minute). The query rides through on the backends' retries and its outputs
equal a run without faults. Under ``local-cluster`` (two executor processes)
the Python worker running a bolt task kills itself in ``execute``; Spark runs
the task again, and the outputs equal the fault-free run's.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest

from tests.cluster.cases import KILL_AT, KILL_EXECUTOR_AT
from tests.faults.runs import Query, completed, write_input
from tests.state_backends.thrift_server import ThriftServer

pytestmark = pytest.mark.faults


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_input(tmp_path_factory.mktemp("restart-input"))


@pytest.fixture(scope="module")
def expected(data, tmp_path_factory, redis_url, fault_query):
    """The outputs of a run without faults (driver mode)."""
    query = fault_query(data, tmp_path_factory.mktemp("fault-free"), redis_url)
    completed(query.run())
    return query.outputs()


def _when_held(query: Query, action, missed: list[str]) -> threading.Thread:
    """A thread that waits until the driver holds after its batch, does ``action()``, and lets it go on.

    If the driver does not hold within 300 s, the thread lets it go on without
    ``action()`` and says so in ``missed``.
    """

    def act() -> None:
        held = query.checkpoint / "held"
        deadline = time.monotonic() + 300
        while not held.exists():
            if time.monotonic() > deadline:
                missed.append("the driver did not hold after its batch within 300 s: no fault was done")
                (query.checkpoint / "release").touch()
                return
            time.sleep(0.05)
        try:
            action(lambda: (query.checkpoint / "release").touch())
        finally:
            (query.checkpoint / "release").touch()

    thread = threading.Thread(target=act, daemon=True)
    thread.start()
    return thread


def _refuse_one_connection(port: int, timeout: float = 120.0) -> bool:
    """Listen on ``port`` until one client connects, and close that connection unanswered; False after ``timeout``.

    While the store is down this stands in its place, so the server comes back
    only after the query has tried to reach it: a fixed pause would race Spark's
    planning of the next batch on a loaded machine.
    """
    with socket.create_server(("127.0.0.1", port)) as listener:
        listener.settimeout(timeout)
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            return False
        connection.close()
        return True


def _restart_mid_run(query: Query, server, expected) -> None:
    """Run ``query``; after batch 1 kill the store, let batch 2 start, start the store once batch 2 asked for it."""

    def restart(release) -> None:
        server.kill()  # batch 2 starts while the server is away
        release()
        if not _refuse_one_connection(server.port):
            missed.append("the query did not try to reach the store within 120 s of its kill")
        server.start()

    missed: list[str] = []
    thread = _when_held(query, restart, missed)
    result = query.run(hold_after=1)
    thread.join(10)
    assert not missed, missed
    completed(result)
    assert "retrying for up to" in result.stderr, "no request had to wait for the restarted server"
    assert query.outputs() == expected


def test_redis_restarted_mid_run_loses_nothing(data, expected, tmp_path, fault_query, start_redis):
    server = start_redis("--appendonly", "yes", "--appendfsync", "always", workdir=tmp_path)
    try:
        # The outage lasts until redis-server has started again, which a loaded machine stretches: the budget is
        # far above it (as for HBase below), so only an outage that never ends fails the run.
        query = fault_query(data, tmp_path / "run", f"redis://127.0.0.1:{server.port}/0?retry_seconds=60")
        _restart_mid_run(query, server, expected)
    finally:
        server.stop()


def test_hbase_thrift_server_restarted_mid_run_loses_nothing(data, expected, tmp_path, hbase_url, fault_query):
    thrift = ThriftServer(hbase_url)
    thrift.start()
    try:
        query = fault_query(data, tmp_path / "run", f"hbase://127.0.0.1:{thrift.port}/squalltest?retry_seconds=60")
        _restart_mid_run(query, thrift, expected)
    finally:
        thrift.kill()


@pytest.mark.parametrize(("victim", "kill_at"), [("Python worker", KILL_AT), ("executor JVM", KILL_EXECUTOR_AT)])
def test_a_process_killed_inside_execute_under_local_cluster_loses_nothing(data, expected, tmp_path, redis_url,
                                                                           victim, kill_at, fault_query,
                                                                           local_cluster):
    """The Python worker running a task, or the executor JVM above it (with the frames it cached), dies by SIGKILL.

    msgid 30 arrives in the third file: batches 0 and 1 ran and committed before. Spark runs the stage's tasks
    again (on a new executor), and a task whose store holds the batch re-sends what it committed.
    """
    marker = tmp_path / "killed"
    query = fault_query(data, tmp_path / "run", redis_url,
                        extra={"mode": "distributed", "master": local_cluster, "conf": {kill_at: [30, str(marker)]}})
    completed(query.run())
    assert marker.exists(), f"no {victim} reached the tuple that kills it"
    assert query.outputs() == expected
    print(f"{victim} killed inside execute: 1 kill, {sum(expected.values())} outputs as without it")
