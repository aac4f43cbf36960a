"""State backends: namespaced key-value state committed atomically with a batch id.

Open one from a URL::

    from state_backends import open_backend, KeyValueState
    backend = open_backend("redis://localhost:6379/0")   # or memory://, hbase://host:9090/squall
    ns = backend.namespace("sum/0")
    batch = ns.begin()
    batch.put(b"k", b"v")
    batch.commit(batch_id=7)                              # False if batch 7 (or later) was committed
"""

from __future__ import annotations

from state_backends.base import MAX_BATCH_ID, CorruptStateError, Namespace, StateBackend, StateBackendError, WriteBatch
from state_backends.key_value_state import KeyValueState
from state_backends.schemes import SCHEMES, Scheme
from state_backends.serialization import decode, encode
from state_backends.urls import redact, scheme_of

__all__ = [
    "MAX_BATCH_ID",
    "SCHEMES",
    "CorruptStateError",
    "KeyValueState",
    "Namespace",
    "Scheme",
    "StateBackend",
    "StateBackendError",
    "WriteBatch",
    "decode",
    "encode",
    "open_backend",
    "open_window_store",
]


def open_backend(url: str) -> StateBackend:
    """Open the backend named by ``url``, connecting at once.

    ``memory://`` (private) or ``memory://<name>`` (shared in this process);
    ``redis://[[user]:password@]host[:port][/db]`` and ``rediss://`` (TLS);
    ``hbase://host[:port][/table_prefix]`` (Thrift1 server, default port 9090,
    table ``<table_prefix>_state``, default prefix ``squall``).

    Redis and HBase URLs take the query option ``retry_seconds=<seconds>``
    (default 5; 0 turns retrying off): how long a request that fails with a
    transient error (connection refused or reset, timeout) is retried, with
    exponential backoff, before StateBackendError is raised.

    Raises TypeError/ValueError for a bad URL, ImportError naming the extra to
    install when the client library is missing, and StateBackendError when
    the server cannot be reached or refuses the credentials. Messages never
    contain the password, whatever characters it holds.
    """
    if not isinstance(url, str):  # its repr is not shown: it may hold a password
        msg = f"open_backend: url must be a str; got {type(url).__name__} instead"
        raise TypeError(msg)
    scheme = SCHEMES.get(scheme_of(url))
    if scheme is None:
        msg = (f"open_backend: unknown scheme {scheme_of(url)!r} in {redact(url)!r}; valid schemes are: "
               f"{', '.join(SCHEMES)}")
        raise ValueError(msg)
    return scheme.open(url)


def open_window_store(url: str, namespace: str) -> Namespace:
    """Open ``url`` and return its namespace ``namespace`` (a ``bolts.WindowStore``)."""
    return open_backend(url).namespace(namespace)
