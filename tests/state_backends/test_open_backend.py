"""Opening backends from URLs: schemes, bad URLs, passwords, TLS, servers that are down, missing extras."""

import subprocess
import sys

import pytest

from state_backends import StateBackendError, open_backend
from tests.service_fixtures import free_port


@pytest.mark.parametrize("url", ["foo://x", "localhost:6379", "mem://"])
def test_unknown_scheme_lists_the_valid_ones(url):
    with pytest.raises(
        ValueError, match=r"open_backend: unknown scheme .*valid schemes are: memory, redis, rediss, hbase"
    ):
        open_backend(url)


def test_unknown_scheme_message_hides_the_password():
    with pytest.raises(ValueError) as info:
        open_backend("fancy://user:hunter2@host:1/0")
    assert "hunter2" not in str(info.value)
    assert "user:***@host" in str(info.value)


def test_url_must_be_a_str():
    with pytest.raises(TypeError, match="open_backend: url must be a str; got bytes"):
        open_backend(b"memory://")


def test_private_memory_stores_are_separate_and_named_ones_shared():
    open_backend("memory://").namespace("n").commit(1, {b"k": b"v"})
    assert open_backend("memory://").namespace("n").get(b"k") is None
    open_backend("memory://shared-test").namespace("n").commit(1, {b"k": b"v"})
    assert open_backend("memory://shared-test").namespace("n").get(b"k") == b"v"


def test_closed_memory_backend_refuses_calls():
    backend = open_backend("memory://")
    backend.close()
    with pytest.raises(StateBackendError, match="memory://: the backend is closed"):
        backend.namespace("n").get(b"k")


def test_redis_down_fails_at_open_after_five_seconds_of_retries_without_the_password(retry_probe):
    url = f"redis://:s3cret-pw@127.0.0.1:{free_port()}/0"
    with pytest.raises(
        StateBackendError,
        match=r"open_backend: Redis at redis://:\*\*\*@127\.0\.0\.1:\d+/0 failed: ConnectionError: .*refused.* "
        r"\(still failing after retrying for 5\.0 s, 10 attempts; the URL option retry_seconds=<seconds> sets",
    ) as info:
        open_backend(url)
    # Ten connections refused, with the default schedule's waits between them: five seconds in all.
    assert retry_probe.attempts("open_backend") == [10]
    assert retry_probe.waits == pytest.approx([0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0, 0.45])
    assert "s3cret-pw" not in str(info.value)


def test_redis_password(tmp_path, start_redis, retry_probe):
    server = start_redis("--requirepass", "s3cret-pw")
    try:
        with open_backend(f"redis://:s3cret-pw@127.0.0.1:{server.port}/2") as backend:
            assert "s3cret-pw" not in backend.url
            assert backend.namespace("n").commit(1, {b"k": b"v"})
            assert backend.namespace("n").get(b"k") == b"v"
        for url in (f"redis://:wrong@127.0.0.1:{server.port}/2", f"redis://127.0.0.1:{server.port}/2"):
            retry_probe.calls.clear()
            with pytest.raises(StateBackendError, match=r"open_backend: Redis at .* failed: Authentication") as info:
                open_backend(url)
            assert retry_probe.attempts("open_backend") == [1], "a refused password is not retried"
            assert retry_probe.waits == []
            assert "wrong" not in str(info.value)
            assert "retry" not in str(info.value)
    finally:
        server.stop()


def _self_signed_cert(directory):
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(directory / "key.pem"), "-out", str(directory / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    return directory / "cert.pem", directory / "key.pem"


def test_rediss_connects_over_tls(tmp_path, start_redis, retry_probe):
    cert, key = _self_signed_cert(tmp_path)
    tls_port = free_port()
    server = start_redis(
        "--tls-port", str(tls_port), "--tls-cert-file", str(cert), "--tls-key-file", str(key),
        "--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no",
    )  # fmt: skip
    try:
        url = f"rediss://127.0.0.1:{tls_port}/0?ssl_ca_certs={cert}"
        with open_backend(url) as backend:
            assert backend.namespace("n").commit(1, {b"k": b"over tls"})
            assert backend.namespace("n").get(b"k") == b"over tls"
        with pytest.raises(
            StateBackendError,
            match=r"open_backend: Redis at rediss://127\.0\.0\.1:\d+/0\?socket_timeout=1&retry_seconds=0 failed: "
            r"Timeout.*\(not retried: retry_seconds=0\)",
        ):  # a plain port: no TLS handshake
            open_backend(f"rediss://127.0.0.1:{server.port}/0?socket_timeout=1&retry_seconds=0")
        retry_probe.calls.clear()
        with pytest.raises(StateBackendError, match="certificate verify failed"):
            open_backend(f"rediss://127.0.0.1:{tls_port}/0")  # self-signed, not trusted by default
        assert retry_probe.attempts("open_backend") == [1], "a certificate that does not verify is not retried"
        assert retry_probe.waits == []
    finally:
        server.stop()


def test_hbase_unreachable_fails_at_open():
    url = f"hbase://127.0.0.1:{free_port()}/squalltest?retry_seconds=0.5"
    with pytest.raises(
        StateBackendError,
        match=r"open_backend: HBase Thrift server at hbase://127\.0\.0\.1:\d+/squalltest\?retry_seconds=0\.5 failed: "
        r"TTransportException: .* \(still failing after retrying for 0\.5 s",
    ):
        open_backend(url)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("hbase:///prefix", "open_backend: no host in 'hbase:///prefix'"),
        ("hbase://h:9090/bad prefix!", "open_backend: table prefix must match"),
        (
            "hbase://h:9090/p?timeout=5",
            "open_backend: unknown option 'timeout' in .*; the valid option is: retry_seconds",
        ),
        (
            "hbase://h:9090/p?retry_seconds=-1",
            "open_backend: `retry_seconds` must be given once, as a number of seconds",
        ),
        ("hbase://h:x/p", "open_backend: bad URL 'hbase://h:x/p': a port that is not a number"),
    ],
)
def test_bad_hbase_urls(url, message):
    with pytest.raises(ValueError, match=message):
        open_backend(url)


@pytest.mark.parametrize(
    ("module", "url", "extra"), [("redis", "redis://h/0", "redis"), ("happybase", "hbase://h", "hbase")]
)
def test_missing_client_library_names_the_extra(monkeypatch, module, url, extra):
    monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.delitem(sys.modules, f"state_backends.{extra}_backend", raising=False)
    with pytest.raises(ImportError, match=rf"pip install squall\[{extra}\]"):
        open_backend(url)
