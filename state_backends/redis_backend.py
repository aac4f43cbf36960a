"""``redis://`` and ``rediss://``: state in Redis, each commit one Lua script (atomic, one round trip).

Key layout for namespace ``ns`` (``{ns}`` is a cluster hash tag, so the three
keys share a slot and one script can touch them all):

- ``squall:{ns}:data``: hash, state key -> value.
- ``squall:{ns}:keys``: sorted set of the state keys, all with score 0, for
  ordered prefix scans with ``ZRANGEBYLEX``.
- ``squall:{ns}:meta``: hash with field ``batch_id``, the last committed batch.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable, Iterator
from functools import partial
from typing import TypeVar

from state_backends.base import CorruptStateError, StateBackend, StateBackendError
from state_backends.retry import RetryPolicy, transient_os_error, with_retry
from state_backends.urls import redact, scrub

try:
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    msg = "state_backends: the redis:// backend needs redis-py; pip install squall[redis]"
    raise ImportError(msg) from exc

T = TypeVar("T")
# A refused password or a missing permission will not change by asking again.
_NEVER_TRANSIENT = (
    redis.exceptions.AuthenticationError,
    redis.exceptions.AuthorizationError,
    redis.exceptions.ExternalAuthProviderError,
)

_COMMIT = """
local cur = redis.call('HGET', KEYS[1], 'batch_id')
if cur and tonumber(cur) >= tonumber(ARGV[1]) then return 0 end
local ndel = tonumber(ARGV[2])
for i = 3, 2 + ndel do
  redis.call('HDEL', KEYS[2], ARGV[i])
  redis.call('ZREM', KEYS[3], ARGV[i])
end
for i = 3 + ndel, #ARGV, 2 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[3], 0, ARGV[i])
end
redis.call('HSET', KEYS[1], 'batch_id', ARGV[1])
return 1
"""

_PAGE = """
local keys = redis.call('ZRANGEBYLEX', KEYS[2], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
if #keys == 0 then return {} end
local values = redis.call('HMGET', KEYS[1], unpack(keys))
local out = {}
for i = 1, #keys do
  out[2 * i - 1] = keys[i]
  out[2 * i] = values[i]
end
return out
"""

PAGE_SIZE = 1000


def prefix_range(prefix: bytes) -> tuple[bytes, bytes]:
    """The ``ZRANGEBYLEX`` bounds of the members that start with ``prefix``."""
    if not prefix:
        return b"-", b"+"
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return b"[" + prefix, b"+"
    return b"[" + prefix, b"(" + stripped[:-1] + bytes([stripped[-1] + 1])


def transient(exc: BaseException) -> bool:
    """Whether a redis-py error is worth retrying: the server is away, slow, or still loading its data."""
    if isinstance(exc, _NEVER_TRANSIENT) or hint(exc):  # a certificate or an ACL: asking again changes nothing
        return False
    if isinstance(exc, redis.TimeoutError | redis.BusyLoadingError):
        return True
    if not isinstance(exc, redis.ConnectionError):
        return False  # a reply of the server (wrong type, script error, out of memory...)
    # Without a socket error behind it, it is redis-py's own: the server closed the connection, the pool is full.
    return transient_os_error(exc) is not False


def hint(exc: BaseException) -> str:
    """What to change when ``exc`` comes from a refused certificate or a refused permission ("" otherwise)."""
    text = str(exc)
    if isinstance(exc, redis.exceptions.NoPermissionError):
        return (" (the Redis user's ACL refuses this key or command: squall keeps a topology's state under the "
                "keys squall:{<topology>/*; docs/state.md, 'A Redis user with least privilege', gives the rule)")
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return (" (the server's certificate does not verify against the CA file of ssl_ca_certs=, or against the "
                "system's CAs when the URL has none: pass ?ssl_ca_certs=<the CA that signed it>)")
    if "CERTIFICATE_REQUIRED" in text:
        return " (the server asks for a client certificate: pass ?ssl_certfile=<cert>&ssl_keyfile=<key>)"
    return ""


def asks_for_client_certificate(pool: redis.ConnectionPool, exc: BaseException) -> bool:
    """Whether a ``rediss://`` server that ended a connection without a reason wants a client certificate.

    A TLS 1.3 server checks the client's certificate after the handshake, so
    its refusal races the client's first command: the client may read the
    alert, or find the socket closed (an SSL EOF or a reset) and learn
    nothing. Only then, and only when the URL names no certificate, this asks
    again with a handshake and a read that sends nothing, so the alert is
    read before the server closes. Any other outcome answers False and the
    error stays what it was (transient when the server is really away).
    """
    kwargs = pool.connection_kwargs
    if not issubclass(pool.connection_class, redis.SSLConnection) or kwargs.get("ssl_certfile"):
        return False
    if transient_os_error(exc) is False:  # a refused handshake or a name that does not resolve says enough
        return False
    context = ssl.create_default_context(cafile=kwargs.get("ssl_ca_certs"))
    if kwargs.get("ssl_cert_reqs") in ("none", ssl.CERT_NONE):
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    elif kwargs.get("ssl_check_hostname") is False:
        context.check_hostname = False
    host, port = kwargs.get("host", "localhost"), int(kwargs.get("port", 6379))
    try:
        with socket.create_connection((host, port), timeout=5.0) as raw:
            with context.wrap_socket(raw, server_hostname=host) as tls:
                tls.recv(1)
    except (OSError, ssl.SSLError) as probe:
        return "CERTIFICATE_REQUIRED" in str(probe)
    return False


class RedisBackend(StateBackend):
    """State in a Redis server, reached with redis-py; see the module docstring for the keys.

    Connects at construction: a server that is down (for longer than the
    retries last), a wrong password or a TLS failure raises StateBackendError
    naming the URL without its password.
    """

    def __init__(self, url: str, *, socket_timeout: float = 30.0) -> None:
        """Connect to ``url`` (``redis://[[user]:password@]host[:port][/db]`` or ``rediss://...``).

        ``retry_seconds=<seconds>`` in the query sets the retry policy (see
        :mod:`state_backends.retry`); the other query parameters redis-py
        understands (``ssl_cert_reqs=none``, ``ssl_ca_certs=...``) pass through to it.
        """
        self.url = redact(url)
        client_url, self.retry = RetryPolicy.from_url(url)  # refuses a password a parser would misread
        try:
            self._client = redis.Redis.from_url(
                client_url,
                socket_timeout=socket_timeout,
                socket_connect_timeout=10.0,
                retry=Retry(NoBackoff(), 0),  # retried by _call instead: one budget, transient errors only
            )
            problem = None
        except ValueError as exc:
            problem = scrub(f"open_backend: bad Redis URL {self.url!r}: {exc}", url)
        if problem is not None:  # raised outside the except, so the parser's error is not its context
            raise ValueError(problem)
        self._secret_url = url
        self._commit_script = self._client.register_script(_COMMIT)
        self._page_script = self._client.register_script(_PAGE)
        self._call("open_backend", self._ping)

    def _ping(self) -> None:
        """``PING``; a TLS connection the server dropped is told apart from a certificate it asks for."""
        try:
            self._client.ping()
        except redis.ConnectionError as exc:
            if asks_for_client_certificate(self._client.connection_pool, exc):
                msg = f"{exc} (the server's TLS alert: CERTIFICATE_REQUIRED)"
                raise redis.ConnectionError(msg) from exc
            raise

    def _call(self, method: str, fn: Callable[[], T]) -> T:
        """``fn()``, retrying transient errors; any redis-py error ends as StateBackendError."""

        def fail(exc: BaseException, note: str) -> StateBackendError:
            text = scrub(f"{type(exc).__name__}: {exc}", self._secret_url)
            return StateBackendError(f"{method}: Redis at {self.url} failed: {text}{hint(exc)}{note}")

        name = f"{method}: Redis at {self.url}"
        return with_retry(self.retry, fn, name=name, errors=(redis.RedisError,), transient=transient, fail=fail)

    @staticmethod
    def _keys(namespace: str) -> list[str]:
        return [f"squall:{{{namespace}}}:{part}" for part in ("meta", "data", "keys")]

    def get(self, namespace: str, key: bytes) -> bytes | None:
        """The committed value of ``key`` in ``namespace``, or None."""
        return self._call("get", lambda: self._client.hget(self._keys(namespace)[1], key))

    def scan(self, namespace: str, prefix: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
        """Committed pairs whose key starts with ``prefix``, in key order, read in pages of 1000."""
        _, data, keys = self._keys(namespace)
        sizes = self._call("scan", lambda: (self._client.hlen(data), self._client.zcard(keys)))
        if sizes[0] != sizes[1]:
            self._corrupt(namespace, f"its data hash holds {sizes[0]} keys but its key index {sizes[1]}")
        low, high = prefix_range(prefix)
        while True:
            page = self._call("scan", partial(self._page_script, keys=[data, keys], args=[low, high, PAGE_SIZE]))
            for i in range(0, len(page), 2):
                if page[i + 1] is None:
                    self._corrupt(namespace, f"key {page[i]!r} is in its key index but has no value")
                yield page[i], page[i + 1]
            if len(page) < 2 * PAGE_SIZE:
                return
            low = b"(" + page[-2]

    def _corrupt(self, namespace: str, what: str) -> None:
        msg = (
            f"{self.url}: namespace {namespace!r}: {what} (changed outside squall); restore the store, or start "
            "the query afresh under a new name (or with its checkpoint deleted)"
        )
        raise CorruptStateError(msg)

    def committed_batch_id(self, namespace: str) -> int | None:
        """The last committed batch id of ``namespace``, or None."""
        value = self._call("committed_batch_id", lambda: self._client.hget(self._keys(namespace)[0], "batch_id"))
        return None if value is None else int(value)

    def _apply(self, namespace: str, batch_id: int, puts: dict[bytes, bytes], deletes: list[bytes]) -> bool:
        args: list[bytes | int] = [batch_id, len(deletes), *deletes]
        for key, value in puts.items():
            args += (key, value)
        # Safe to retry: a commit that was applied before its reply was lost is refused (0) the next time.
        return bool(self._call("commit", lambda: self._commit_script(keys=self._keys(namespace), args=args)))

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()
