"""A store briefly away is waited for (nothing lost, nothing raised); one that stays away fails after the budget."""

import logging
import re
import threading
import time
import uuid

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


def _commit_while(ns, outage: threading.Thread, after: int = 20) -> list[bool]:
    """Commit batches 1, 2, ... (batch i puts ``k<i>``) until ``outage`` is over, then ``after`` more."""
    results: list[bool] = []
    outage.start()
    while outage.is_alive() or after > 0:
        after -= 0 if outage.is_alive() else 1
        i = len(results) + 1
        results.append(ns.commit(i, {f"k{i:06d}".encode(): str(i).encode()}))
        assert ns.get(f"k{i:06d}".encode()) == str(i).encode()
    outage.join()
    return results


def _assert_nothing_lost(ns, results: list[bool]) -> None:
    """Every batch is in the store. A False is a commit applied by an attempt whose reply was lost."""
    assert ns.committed_batch_id() == len(results)
    assert [int(v) for _, v in ns.scan(b"k")] == list(range(1, len(results) + 1))
    assert results.count(False) <= 1


@pytest.mark.parametrize("how", ["kill", "stop"])
def test_redis_restarted_within_half_a_second_during_commits_loses_nothing(tmp_path, caplog, how, start_redis):
    server = start_redis("--appendonly", "yes", "--appendfsync", "always", workdir=tmp_path)
    away: list[float] = []

    def restart() -> None:
        time.sleep(0.2)
        started = time.monotonic()
        getattr(server, how)()  # SIGKILL, or SIGTERM (a clean shutdown)
        time.sleep(0.3)
        server.start()  # same port, same append-only file
        away.append(time.monotonic() - started)

    try:
        with caplog.at_level(logging.WARNING, "squall.state"), open_backend(f"redis://127.0.0.1:{server.port}/0") as b:
            ns = b.namespace("restart")
            results = _commit_while(ns, threading.Thread(target=restart))
            _assert_nothing_lost(ns, results)
        assert away[0] < 0.8
        assert any("retrying for up to 5.0 s" in r.getMessage() for r in caplog.records), "the outage was not seen"
    finally:
        server.stop()


def test_a_store_briefly_unreachable_during_commits_and_a_scan_loses_nothing(server_url, caplog):
    proxy = CuttingProxy(_port(server_url))

    def outage() -> None:  # the listener goes away (connections refused and cut), and comes back on its port
        time.sleep(0.2)
        proxy.close()
        time.sleep(0.5)
        proxy.reopen()

    try:
        with caplog.at_level(logging.WARNING, "squall.state"), open_backend(_through(server_url, proxy)) as backend:
            ns = backend.namespace(f"away-{uuid.uuid4().hex[:8]}")
            results = _commit_while(ns, threading.Thread(target=outage))
            _assert_nothing_lost(ns, results)
            assert any("retrying" in r.getMessage() for r in caplog.records), "the outage was not seen"
            caplog.clear()
            more = len(results) + 2500
            ns.commit(more, {f"k{i:06d}".encode(): str(i).encode() for i in range(len(results) + 1, more + 1)})
            scan = ns.scan(b"k")
            first = [next(scan) for _ in range(1000)]  # one page (Redis) or chunk (HBase) read
            proxy.cut_after(0)  # the next request is cut, and every one after it...
            threading.Timer(0.3, proxy.cut_after, [None]).start()  # ...for 0.3 s
            rest = list(scan)
            assert [int(v) for _, v in first + rest] == list(range(1, more + 1))
            assert any("scan: " in r.getMessage() for r in caplog.records), "the scan was not cut"
    finally:
        proxy.close()


def test_redis_that_stays_down_fails_after_the_budget_naming_it_without_the_password(start_redis):
    server = start_redis("--requirepass", "pw#1/x")
    url = f"redis://:pw%231%2Fx@127.0.0.1:{server.port}/0?retry_seconds=1"
    try:
        ns = open_backend(url).namespace("down")
        assert ns.commit(1, {b"a": b"1"})
        server.kill()
        started = time.monotonic()
        with pytest.raises(StateBackendError) as info:
            ns.commit(2, {b"b": b"2"})
        assert 1 <= time.monotonic() - started < 3
        assert re.fullmatch(
            rf"commit: Redis at redis://:\*\*\*@127\.0\.0\.1:{server.port}/0\?retry_seconds=1 failed: ConnectionError: "
            r".*refused.* \(still failing after retrying for 1\.\d s, \d+ attempts; the URL option "
            r"retry_seconds=<seconds> sets how long to retry, default 5\)",
            str(info.value),
        )
        assert "pw" not in str(info.value)
    finally:
        server.stop()


def test_errors_that_are_not_transient_are_not_retried(redis_url):
    ns = open_backend(redis_url).namespace(f"bad-{uuid.uuid4().hex[:8]}")
    redis.Redis.from_url(redis_url).set(f"squall:{{{ns.name}}}:meta", "not a hash")  # bad data
    for call in (ns.committed_batch_id, lambda: ns.commit(1, {b"k": b"v"})):
        started = time.monotonic()
        with pytest.raises(StateBackendError, match=r"Redis at .* failed: ResponseError: .*WRONGTYPE") as info:
            call()
        assert time.monotonic() - started < 0.5
        assert "retry" not in str(info.value)


def test_hbase_thrift_server_restarted_during_commits_loses_nothing(hbase_url, caplog):
    thrift = ThriftServer(hbase_url)  # a JVM of its own: back within a second or two, not 0.5 s
    thrift.start()

    def restart() -> None:
        time.sleep(0.2)
        thrift.kill()
        thrift.start()

    try:
        url = f"hbase://127.0.0.1:{thrift.port}/squalltest?retry_seconds=60"
        with open_backend(url) as backend:  # waits (retrying) for the new JVM to listen
            ns = backend.namespace(f"thrift-restart-{thrift.port}")
            with caplog.at_level(logging.INFO, "squall.state"):
                results = _commit_while(ns, threading.Thread(target=restart), after=5)
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
