"""``redis://`` and ``rediss://``: state in Redis, each commit one Lua script (atomic, one round trip).

Key layout for namespace ``ns`` (``{ns}`` is a cluster hash tag, so the three
keys share a slot and one script can touch them all):

- ``squall:{ns}:data``: hash, state key -> value.
- ``squall:{ns}:keys``: sorted set of the state keys, all with score 0, for
  ordered prefix scans with ``ZRANGEBYLEX``.
- ``squall:{ns}:meta``: hash with field ``batch_id``, the last committed batch.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from state_backends.base import StateBackend, StateBackendError, redact

try:
    import redis
    from redis.backoff import ExponentialBackoff
    from redis.retry import Retry
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    msg = "state_backends: the redis:// backend needs redis-py; pip install squall[redis]"
    raise ImportError(msg) from exc

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


class RedisBackend(StateBackend):
    """State in a Redis server, reached with redis-py; see the module docstring for the keys.

    Connects at construction: a server that is down, a wrong password or a TLS
    failure raises StateBackendError naming the URL without its password.
    """

    def __init__(self, url: str, *, socket_timeout: float = 30.0) -> None:
        """Connect to ``url`` (``redis://[[user]:password@]host[:port][/db]`` or ``rediss://...``).

        Query parameters redis-py understands (``ssl_cert_reqs=none``,
        ``ssl_ca_certs=...``) pass through to it.
        """
        self.url = redact(url)
        retry = Retry(ExponentialBackoff(cap=0.5, base=0.05), 2)
        try:
            self._client = redis.Redis.from_url(
                url, socket_timeout=socket_timeout, socket_connect_timeout=10.0, retry=retry
            )
        except ValueError as exc:
            msg = f"open_backend: bad Redis URL {self.url!r}: {exc}"
            raise ValueError(msg) from None
        self._commit_script = self._client.register_script(_COMMIT)
        self._page_script = self._client.register_script(_PAGE)
        with self._errors("open_backend"):
            self._client.ping()

    @contextmanager
    def _errors(self, method: str) -> Iterator[None]:
        try:
            yield
        except redis.RedisError as exc:
            msg = f"{method}: Redis at {self.url} failed: {type(exc).__name__}: {exc}"
            raise StateBackendError(msg) from None

    @staticmethod
    def _keys(namespace: str) -> list[str]:
        return [f"squall:{{{namespace}}}:{part}" for part in ("meta", "data", "keys")]

    def get(self, namespace: str, key: bytes) -> bytes | None:
        """The committed value of ``key`` in ``namespace``, or None."""
        with self._errors("get"):
            return self._client.hget(self._keys(namespace)[1], key)

    def scan(self, namespace: str, prefix: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
        """Committed pairs whose key starts with ``prefix``, in key order, read in pages of 1000."""
        _, data, keys = self._keys(namespace)
        low, high = prefix_range(prefix)
        while True:
            with self._errors("scan"):
                page = self._page_script(keys=[data, keys], args=[low, high, PAGE_SIZE])
            for i in range(0, len(page), 2):
                if page[i + 1] is not None:
                    yield page[i], page[i + 1]
            if len(page) < 2 * PAGE_SIZE:
                return
            low = b"(" + page[-2]

    def committed_batch_id(self, namespace: str) -> int | None:
        """The last committed batch id of ``namespace``, or None."""
        with self._errors("committed_batch_id"):
            value = self._client.hget(self._keys(namespace)[0], "batch_id")
        return None if value is None else int(value)

    def _apply(self, namespace: str, batch_id: int, puts: dict[bytes, bytes], deletes: list[bytes]) -> bool:
        args: list[bytes | int] = [batch_id, len(deletes), *deletes]
        for key, value in puts.items():
            args += (key, value)
        with self._errors("commit"):
            return bool(self._commit_script(keys=self._keys(namespace), args=args))

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()
