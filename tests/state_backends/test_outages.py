"""A store briefly away is waited for (nothing lost, nothing raised); one that stays away fails after the budget."""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from collections.abc import Callable
from functools import partial

import happybase
import pytest
import redis
from thriftpy2.transport import TTransportException

from state_backends import StateBackendError, open_backend

from .proxy import CuttingProxy
from .thrift_server import ThriftServer

# Each parameter reaches its server's fixture at run time: pytest.mark.needs names it (tests/markers.py).
SERVERS = [pytest.param(name, marks=pytest.mark.needs(f"{name}_url")) for name in ("redis", "hbase")]


@pytest.fixture(params=SERVERS)
def server_url(request):
    return request.getfixturevalue(f"{request.param}_url")


def _port(url: str) -> int:
    return int(url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])


def _through(url: str, proxy: CuttingProxy) -> str:
    return url.replace(f":{_port(url)}/", f":{proxy.port}/")


BOUND = 60  # seconds: a wait for something that never comes fails after this, saying what it waited for


class Outage(threading.Thread):
    """``steps()`` in a thread of its own; :meth:`join` raises what it raised, so a failed wait fails the test."""

    def __init__(self, steps: Callable[[], None]) -> None:
        super().__init__(daemon=True)
        self.steps, self.error = steps, None

    def run(self) -> None:
        try:
            self.steps()
        except BaseException as exc:  # handed to the test's thread by join()
            self.error = exc

    def join(self, timeout: float | None = None) -> None:
        super().join(timeout)
        if self.error is not None:
            raise self.error


class Logged(logging.Handler):
    """Watches logger ``squall.state`` (in a ``with`` block) for a message containing ``text``."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text, self.seen = text, threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.text in record.getMessage():
            self.seen.set()

    def __enter__(self) -> Logged:
        logging.getLogger("squall.state").addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger("squall.state").removeHandler(self)

    def wait(self, what: str) -> None:
        """Return once the message was logged; fail naming ``what`` if it is not within :data:`BOUND`."""
        if not self.seen.wait(BOUND):
            raise AssertionError(f"{what}: squall.state logged no message with {self.text!r} within {BOUND} s")


def _wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + BOUND
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {BOUND} s")
        time.sleep(0.01)


def _commit_while(ns, outage: Callable[[], None], before: int = 20, after: int = 20) -> list[bool]:
    """Commit batches 1, 2, ... (batch i puts ``k<i>``): ``before``, then while ``outage()`` runs, then ``after`` more.

    ``outage`` runs in a thread started once the first ``before`` batches are
    committed, so it breaks a commit loop that is observably under way.
    """
    results: list[bool] = []

    def commit() -> None:
        i = len(results) + 1
        results.append(ns.commit(i, {f"k{i:06d}".encode(): str(i).encode()}))
        assert ns.get(f"k{i:06d}".encode()) == str(i).encode()

    for _ in range(before):
        commit()
    thread = Outage(outage)
    thread.start()
    while thread.is_alive():
        commit()
    thread.join()
    for _ in range(after):
        commit()
    return results


def _assert_nothing_lost(ns, results: list[bool]) -> None:
    """Every batch is in the store. A False is a commit applied by an attempt whose reply was lost."""
    assert ns.committed_batch_id() == len(results)
    assert [int(v) for _, v in ns.scan(b"k")] == list(range(1, len(results) + 1))
    assert results.count(False) <= 1


@pytest.mark.parametrize("how", ["kill", "stop"])
def test_redis_restarted_during_commits_loses_nothing(tmp_path, caplog, how, start_redis):
    server = start_redis("--appendonly", "yes", "--appendfsync", "always", workdir=tmp_path)

    def restart() -> None:  # down once the commits are under way, up again once a commit was seen retrying
        with Logged("retrying for up to") as retrying:
            getattr(server, how)()  # SIGKILL, or SIGTERM (a clean shutdown)
            retrying.wait("a commit while Redis was down")
        server.start()  # same port, same append-only file

    # The outage lasts as long as redis-server takes to start again, which a loaded machine stretches: the
    # budget is set far above it, so only an outage that never ends fails here (naming the budget).
    url = f"redis://127.0.0.1:{server.port}/0?retry_seconds={BOUND}"
    try:
        with caplog.at_level(logging.WARNING, "squall.state"), open_backend(url) as b:
            ns = b.namespace("restart")
            results = _commit_while(ns, restart)
            _assert_nothing_lost(ns, results)
        assert any(f"retrying for up to {BOUND:.1f} s" in r.getMessage() for r in caplog.records)
    finally:
        server.stop()


def test_a_store_briefly_unreachable_during_commits_and_a_scan_loses_nothing(server_url, caplog):
    proxy = CuttingProxy(_port(server_url))

    def outage() -> None:  # the listener goes away (connections refused and cut), and comes back on its port
        with Logged("retrying for up to") as retrying:
            proxy.close()
            retrying.wait("a commit while the store was unreachable")
        proxy.reopen()

    def heal_after_two_cuts(cuts: int) -> None:  # a scan request cut, and its first retry too
        _wait_until(lambda: proxy.cuts >= cuts + 2, "two scan requests cut by the proxy")
        proxy.cut_after(None)

    try:
        with caplog.at_level(logging.WARNING, "squall.state"), open_backend(_through(server_url, proxy)) as backend:
            ns = backend.namespace(f"away-{uuid.uuid4().hex[:8]}")
            results = _commit_while(ns, outage)
            _assert_nothing_lost(ns, results)
            assert any("retrying" in r.getMessage() for r in caplog.records), "the outage was not seen"
            caplog.clear()
            more = len(results) + 2500
            ns.commit(more, {f"k{i:06d}".encode(): str(i).encode() for i in range(len(results) + 1, more + 1)})
            scan = ns.scan(b"k")
            first = [next(scan) for _ in range(1000)]  # one page (Redis) or chunk (HBase) read
            heal = Outage(partial(heal_after_two_cuts, proxy.cuts))
            proxy.cut_after(0)  # the next request is cut, and every one after it until heal() sees two cut
            heal.start()
            rest = list(scan)
            heal.join()
            assert [int(v) for _, v in first + rest] == list(range(1, more + 1))
            assert any("scan: " in r.getMessage() for r in caplog.records), "the scan was not cut"
    finally:
        proxy.close()


def test_redis_that_stays_down_fails_after_the_budget_naming_it_without_the_password(start_redis, retry_probe):
    server = start_redis("--requirepass", "pw#1/x")
    url = f"redis://:pw%231%2Fx@127.0.0.1:{server.port}/0?retry_seconds=1"
    try:
        ns = open_backend(url).namespace("down")
        assert ns.commit(1, {b"a": b"1"})
        server.kill()
        with pytest.raises(StateBackendError) as info:
            ns.commit(2, {b"b": b"2"})
        # Six connections refused, with the schedule's waits between them up to the budget of one second.
        assert retry_probe.attempts("commit") == [1, 6]
        assert retry_probe.waits == pytest.approx([0.05, 0.1, 0.2, 0.4, 0.25])
        assert re.fullmatch(
            rf"commit: Redis at redis://:\*\*\*@127\.0\.0\.1:{server.port}/0\?retry_seconds=1 failed: ConnectionError: "
            r".*refused.* \(still failing after retrying for 1\.0 s, 6 attempts; the URL option "
            r"retry_seconds=<seconds> sets how long to retry, default 5\)",
            str(info.value),
        )
        assert "pw" not in str(info.value)
    finally:
        server.stop()


def test_errors_that_are_not_transient_are_not_retried(redis_url, retry_probe):
    ns = open_backend(redis_url).namespace(f"bad-{uuid.uuid4().hex[:8]}")
    redis.Redis.from_url(redis_url).set(f"squall:{{{ns.name}}}:meta", "not a hash")  # bad data
    for method, call in (("committed_batch_id", ns.committed_batch_id), ("commit", lambda: ns.commit(1, {b"k": b"v"}))):
        with pytest.raises(StateBackendError, match=r"Redis at .* failed: ResponseError: .*WRONGTYPE") as info:
            call()
        assert retry_probe.attempts(method) == [1]
        assert "retry" not in str(info.value)
    assert retry_probe.waits == []


def test_hbase_thrift_server_restarted_during_commits_loses_nothing(hbase_url, caplog):
    thrift = ThriftServer(hbase_url)  # a JVM of its own: back within a second or two, not 0.5 s
    thrift.start()

    def restart() -> None:  # killed once the commits are under way, started again once a commit was seen retrying
        with Logged("retrying for up to") as retrying:
            thrift.kill()
            retrying.wait("a commit while the Thrift server was down")
        thrift.start()

    try:
        url = f"hbase://127.0.0.1:{thrift.port}/squalltest?retry_seconds=60"
        with open_backend(url) as backend:  # waits (retrying) for the new JVM to listen
            ns = backend.namespace(f"thrift-restart-{thrift.port}")
            with caplog.at_level(logging.INFO, "squall.state"):
                results = _commit_while(ns, restart, after=5)
            _assert_nothing_lost(ns, results)
        recovered = [r.getMessage() for r in caplog.records if "succeeded at attempt" in r.getMessage()]
        assert recovered, "no request had to wait for the restarted server"
        print(f"\nThrift server restart: {recovered}")  # how long the JVM took, for the record
    finally:
        thrift.kill()


def test_a_commit_applied_but_whose_reply_was_lost_is_retried_without_writing_twice(server_url, monkeypatch):
    backend = open_backend(server_url)
    ns = backend.namespace(f"lost-reply-{uuid.uuid4().hex[:8]}")
    assert ns.commit(1, {b"a": b"1", b"gone": b"x"})
    sent: list[int] = []

    def reply_lost(send, error):
        def once(*args, **kwargs):
            result = send(*args, **kwargs)  # the store applies it...
            sent.append(1)
            if len(sent) == 1:
                raise error  # ...and the reply never arrives
            return result

        return once

    if server_url.startswith("redis"):
        script = backend._commit_script
        monkeypatch.setattr(backend, "_commit_script", reply_lost(script, redis.ConnectionError("Connection reset")))
        expected = False  # the script, sent again, finds batch 2 committed: "committed before"
    else:
        error = TTransportException(TTransportException.END_OF_FILE, "TSocket read 0 bytes")
        monkeypatch.setattr(happybase.Table, "put", reply_lost(happybase.Table.put, error))
        expected = True  # the same Put sent again: the same cells at the same timestamps
    assert ns.commit(2, {b"b": b"2"}, [b"gone"]) is expected
    assert len(sent) == 2
    assert ns.committed_batch_id() == 2
    assert list(ns.scan()) == [(b"a", b"1"), (b"b", b"2")]
    assert ns.commit(2, {b"b": b"again"}) is False
    backend.close()
