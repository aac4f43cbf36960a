"""Redis as teams deploy it: TLS with their own CA (and client certificates), and an ACL user of least privilege.

One ``redis-server`` serves TLS with a server certificate signed by a test CA
and asks every client for a certificate signed by it (``--tls-auth-clients
yes``). The ACL rule is read from docs/state.md, so the docs give exactly the
rule that was tested.
"""

from __future__ import annotations

import re
import ssl
import uuid

import pytest
import redis

from state_backends import StateBackendError, open_backend
from state_backends.redis_backend import asks_for_client_certificate
from tests.certificates import Authority
from tests.state_backends.tls_redis import PASSWORD, documented_acl_rule


def test_rediss_verifies_the_server_against_the_given_ca_and_sends_the_client_certificate(tls_redis):
    with open_backend(tls_redis.url(client=tls_redis.client)) as backend:
        ns = backend.namespace(f"tls-{uuid.uuid4().hex}")
        assert ns.commit(1, {b"k": b"over tls"})
        assert ns.get(b"k") == b"over tls"
        assert list(ns.scan()) == [(b"k", b"over tls")]
        assert ns.committed_batch_id() == 1


def test_a_server_certificate_of_another_ca_is_refused_at_once_with_what_to_pass(tls_redis, tmp_path, retry_probe):
    other = Authority(tmp_path / "other", "some-other-ca")
    url = tls_redis.url("app", PASSWORD, ca=other.cert, client=tls_redis.client)
    with pytest.raises(StateBackendError) as info:
        open_backend(url)
    assert retry_probe.attempts("open_backend") == [1], "a certificate that does not verify is not retried"
    assert retry_probe.waits == []
    message = str(info.value)
    assert re.search(r"^open_backend: Redis at rediss://app:\*\*\*@127\.0\.0\.1:\d+/0\?ssl_ca_certs=", message)
    assert "certificate verify failed" in message
    assert "pass ?ssl_ca_certs=<the CA that signed it>" in message
    assert PASSWORD not in message
    assert "retry" not in message


def test_without_a_client_certificate_the_server_refuses_and_the_message_says_what_to_pass(tls_redis, retry_probe):
    with pytest.raises(StateBackendError) as info:
        open_backend(tls_redis.url("app", PASSWORD))
    message = str(info.value)
    assert "the server asks for a client certificate: pass ?ssl_certfile=<cert>&ssl_keyfile=<key>" in message
    assert PASSWORD not in message
    assert retry_probe.attempts("open_backend") == [1], "a certificate the server asks for is not retried"


def test_when_the_first_command_loses_the_race_the_refusal_still_says_what_to_pass(tls_redis, retry_probe,
                                                                                   monkeypatch):
    """The client sees the socket closed, not the alert (as on a loaded machine): one attempt, and the hint."""

    def ping_after_the_server_closed(self: redis.Redis) -> None:
        raise redis.ConnectionError("Error 8 while writing to socket.") from ssl.SSLEOFError(8, "EOF occurred")

    monkeypatch.setattr(redis.Redis, "ping", ping_after_the_server_closed)
    with pytest.raises(StateBackendError) as info:
        open_backend(tls_redis.url("app", PASSWORD))
    assert "the server asks for a client certificate: pass ?ssl_certfile=<cert>&ssl_keyfile=<key>" in str(info.value)
    assert retry_probe.attempts("open_backend") == [1], "a certificate the server asks for is not retried"


@pytest.mark.parametrize(
    "seen",
    [ssl.SSLEOFError(8, "EOF occurred in violation of protocol"), ConnectionResetError(104, "reset"), None],
    ids=["ssl-eof", "reset", "closed-by-server"],
)
def test_a_dropped_tls_connection_is_told_apart_from_a_certificate_the_server_asks_for(tls_redis, seen):
    """The refusal races the first command: whatever the client saw, a second look reads the server's alert."""
    error = redis.ConnectionError("Connection closed by server.")
    error.__cause__ = seen
    without = redis.Redis.from_url(tls_redis.url("app", PASSWORD)).connection_pool
    assert asks_for_client_certificate(without, error)
    with_certificate = redis.Redis.from_url(tls_redis.url("app", PASSWORD, client=tls_redis.client)).connection_pool
    assert not asks_for_client_certificate(with_certificate, error), "a URL that sends one is not asked about"
    plain = redis.Redis(port=tls_redis.server.port).connection_pool
    assert not asks_for_client_certificate(plain, error), "only rediss:// is"
    refused = redis.ConnectionError("handshake")
    refused.__cause__ = ssl.SSLCertVerificationError(1, "CERTIFICATE_VERIFY_FAILED")
    assert not asks_for_client_certificate(without, refused), "an error that says what it is stays as it is"


def test_the_documented_acl_rule_lets_a_user_do_what_squall_does_in_its_namespace_and_nothing_outside(tls_redis):
    topology = f"acl-{uuid.uuid4().hex[:8]}"
    tls_redis.admin.execute_command(*documented_acl_rule(topology))
    url = tls_redis.url("squall", PASSWORD, client=tls_redis.client, db=3)
    with open_backend(url) as backend:
        ns = backend.namespace(f"{topology}/count/0")
        assert ns.commit(1, {b"a": b"1", b"b": b"2"})
        assert ns.commit(2, {b"c": b"3"}, deletes=[b"a"])
        assert not ns.commit(2, {b"c": b"4"}), "a batch already committed is refused"
        assert list(ns.scan()) == [(b"b", b"2"), (b"c", b"3")]
        assert ns.committed_batch_id() == 2
        for action in (lambda n: n.get(b"b"), lambda n: n.commit(1, {b"k": b"v"}), lambda n: list(n.scan())):
            with pytest.raises(StateBackendError, match=r"NoPermissionError: .*the Redis user's ACL refuses") as info:
                action(backend.namespace(f"other-{topology}/count/0"))
            assert PASSWORD not in str(info.value)
    with redis.Redis(port=tls_redis.server.port, db=3) as admin:
        assert not admin.exists(f"squall:{{other-{topology}/count/0}}:meta")
        for command in (("FLUSHDB",), ("KEYS", "*"), ("CONFIG", "GET", "dir")):
            with pytest.raises(redis.exceptions.NoPermissionError):
                with redis.Redis(port=tls_redis.server.port, username="squall", password=PASSWORD) as user:
                    user.execute_command(*command)
