"""Failures for real: a connection cut half-way through a commit, a server killed and restarted."""

import re

import pytest

from state_backends import StateBackendError, open_backend

from .proxy import CuttingProxy

# Each parameter reaches its server's fixture at run time: pytest.mark.needs names it (tests/markers.py).
SERVERS = [pytest.param(name, marks=pytest.mark.needs(f"{name}_url")) for name in ("redis", "hbase")]


def _through(url: str, proxy: CuttingProxy, retry_seconds: float = 0) -> str:
    """``url`` through ``proxy``, with the backend's own retries set (none by default: the test retries)."""
    host_port = url.split("//", 1)[1].split("/", 1)[0]
    return url.replace(host_port, f"127.0.0.1:{proxy.port}") + f"?retry_seconds={retry_seconds}"


@pytest.fixture(params=SERVERS)
def server_url(request):
    return request.getfixturevalue(f"{request.param}_url")


@pytest.mark.parametrize("namespace", ["cut-mid-commit"])
def test_connection_cut_mid_commit_leaves_committed_state_and_the_retry_completes(server_url, namespace):
    proxy = CuttingProxy(int(server_url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1]))
    direct = open_backend(server_url)
    name = f"{namespace}-{proxy.port}"
    try:
        backend = open_backend(_through(server_url, proxy))
        ns = backend.namespace(name)
        assert ns.commit(1, {b"a": b"1", b"b": b"2"})
        batch = ns.begin()
        for i in range(300):
            batch.put(f"new{i:03d}".encode(), b"x" * 1000)
        batch.delete(b"a")
        proxy.cut_after(20_000)  # the commit's request is ~300 KB: the server gets part of it
        with pytest.raises(StateBackendError, match=r"commit: .* failed"):
            batch.commit(2)
        seen = direct.namespace(name)
        assert seen.committed_batch_id() == 1
        assert list(seen.scan()) == [(b"a", b"1"), (b"b", b"2")]
        proxy.cut_after(None)  # the network is back: the same batch is retried
        assert batch.commit(2) is True
        assert seen.committed_batch_id() == 2
        assert seen.get(b"a") is None
        assert len(list(seen.scan(b"new"))) == 300
        assert batch.commit(2) is False
        backend.close()
    finally:
        proxy.close()
        direct.close()


def test_hbase_thrift_server_gone_fails_commit_and_reads_after_the_retries(hbase_url, retry_probe):
    proxy = CuttingProxy(int(hbase_url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1]))
    backend = open_backend(_through(hbase_url, proxy, retry_seconds=1))
    ns = backend.namespace(f"gone-{proxy.port}")
    assert ns.commit(1, {b"k": b"v"})
    proxy.close()  # the server is unreachable from now on
    retry_probe.waits.clear()
    with pytest.raises(
        StateBackendError,
        match=r"commit: HBase Thrift server at hbase://127\.0\.0\.1:\d+/squalltest\?retry_seconds=1 failed: "
        r"TTransportException: .* \(still failing after retrying for 1\.0 s, 6 attempts",
    ):
        ns.commit(2, {b"k": b"w"})
    # Six connections refused, with the schedule's waits between them up to the budget of one second. That is the
    # last "commit" call: an HBase commit makes two or three (read the batch id, put, delete), and the first failed.
    assert retry_probe.attempts("commit")[-1] == 6
    assert retry_probe.waits == pytest.approx([0.05, 0.1, 0.2, 0.4, 0.25])
    with pytest.raises(StateBackendError, match=r"get: HBase Thrift server .* retrying for 1\.0 s, 6 attempts"):
        ns.get(b"k")
    backend.close()
    with open_backend(hbase_url) as direct:
        assert direct.namespace(ns.name).get(b"k") == b"v"


def test_redis_killed_then_restarted_keeps_committed_state_and_the_retry_completes(tmp_path, start_redis):
    server = start_redis("--appendonly", "yes", "--appendfsync", "always", workdir=tmp_path)
    url = f"redis://127.0.0.1:{server.port}/0?retry_seconds=0"  # no retries of its own: the test retries
    try:
        backend = open_backend(url)
        ns = backend.namespace("crash")
        assert ns.commit(1, {b"a": b"1"})
        server.kill()
        with pytest.raises(StateBackendError, match=rf"commit: Redis at {re.escape(url)} failed: ConnectionError"):
            ns.commit(2, {b"b": b"2"}, [b"a"])
        with pytest.raises(StateBackendError, match="get: Redis at"):
            ns.get(b"a")
        with pytest.raises(StateBackendError, match="open_backend: Redis at"):
            open_backend(url)
        server.start()  # same port, same append-only file
        assert ns.committed_batch_id() == 1
        assert list(ns.scan()) == [(b"a", b"1")]
        assert ns.commit(2, {b"b": b"2"}, [b"a"])  # the same backend reconnects
        assert list(ns.scan()) == [(b"b", b"2")]
        backend.close()
    finally:
        server.stop()
