r"""``hbase://host:port/prefix``: state in HBase through its Thrift1 server (happybase).

One table, ``<prefix>_state`` (created if missing), with two column families,
``d`` (data) and ``m`` (meta), one version each. A namespace is ONE row, keyed
by its name, so that a commit is one single-row Put, which HBase applies
atomically (Thrift1 has no multi-row transaction and no multi-column
checkAndMutate):

- ``d:k<key>``: ``\\x01`` + value for a live key, empty for a deleted one (a
  tombstone: Thrift1 sends a row's deletes and puts as two operations, so a
  delete is written as a tombstone inside the atomic Put and the tombstone
  cells are removed afterwards);
- ``m:batch``: the last committed batch id, in decimal.

Every cell of a commit carries the HBase timestamp ``batch_id + 1``, so a stale
writer's late Put never overwrites the cells of a later batch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TypeVar
from urllib.parse import urlsplit

from state_backends.base import StateBackend, StateBackendError, redact

try:
    import happybase
    from thriftpy2.thrift import TException
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    msg = "state_backends: the hbase:// backend needs happybase; pip install squall[hbase]"
    raise ImportError(msg) from exc

T = TypeVar("T")
_PREFIX = re.compile(r"[A-Za-z0-9_.-]{1,100}")
_BATCH = b"m:batch"
_LIVE = b"\x01"
SCAN_BATCHING = 1000


def parse_hbase_url(url: str) -> tuple[str, int, str]:
    """``(host, port, table prefix)`` of ``hbase://host[:port][/prefix]`` (port 9090, prefix ``squall``)."""
    parts = urlsplit(url)
    prefix = parts.path.strip("/") or "squall"
    if not parts.hostname:
        msg = f"open_backend: no host in {url!r}; expected hbase://host:port/table_prefix"
        raise ValueError(msg)
    if not _PREFIX.fullmatch(prefix):
        msg = f"open_backend: table prefix must match [A-Za-z0-9_.-]{{1,100}}; got {prefix!r} in {url!r}"
        raise ValueError(msg)
    return parts.hostname, parts.port or 9090, prefix


def _column(key: bytes) -> bytes:
    return b"d:k" + key


def _prefix_filter(prefix: bytes) -> bytes:
    return b"ColumnPrefixFilter('" + (b"k" + prefix).replace(b"'", b"''") + b"')"


class HBaseBackend(StateBackend):
    """State in HBase; see the module docstring for the table layout.

    Connects at construction and creates the table if missing; a Thrift server
    that is down raises StateBackendError naming the URL.
    """

    def __init__(self, url: str, *, timeout_ms: int = 60_000) -> None:
        """Connect to the Thrift1 server named by ``url`` and make sure the table exists."""
        self.url = redact(url)
        self._host, self._port, prefix = parse_hbase_url(url)
        self._table_name = f"{prefix}_state"
        self._timeout_ms = timeout_ms
        self._conn: happybase.Connection | None = None
        self._call("open_backend", self._ensure_table)

    def _connection(self) -> happybase.Connection:
        if self._conn is None:
            self._conn = happybase.Connection(self._host, self._port, timeout=self._timeout_ms)
        return self._conn

    def _call(self, method: str, fn: Callable[[happybase.Connection], T]) -> T:
        """Run ``fn`` on a live connection; on failure drop it (the next call reconnects) and raise."""
        try:
            return fn(self._connection())
        except (TimeoutError, TException, OSError) as exc:
            self._drop()
            msg = f"{method}: HBase Thrift server at {self.url} failed: {type(exc).__name__}: {exc}"
            raise StateBackendError(msg) from None

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except (TException, OSError):
                pass  # the transport is already broken; nothing more to release
            self._conn = None

    def _ensure_table(self, conn: happybase.Connection) -> None:
        if self._table_name.encode() in conn.tables():
            return
        families = {"d": {"max_versions": 1}, "m": {"max_versions": 1}}
        try:
            conn.create_table(self._table_name, families)
        except TException:
            if self._table_name.encode() not in conn.tables():  # not a concurrent create: a real failure
                raise

    def get(self, namespace: str, key: bytes) -> bytes | None:
        """The committed value of ``key`` in ``namespace``, or None."""
        column = _column(key)
        row = self._call("get", lambda c: c.table(self._table_name).row(namespace.encode(), columns=[column]))
        value = row.get(column)
        return value[1:] if value else None

    def scan(self, namespace: str, prefix: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
        """Committed pairs whose key starts with ``prefix``, in key order, read 1000 columns at a time."""
        row = namespace.encode()
        rows = self._call(
            "scan",
            lambda c: c.table(self._table_name).scan(
                row_start=row,
                row_stop=row + b"\x00",
                columns=[b"d"],
                filter=_prefix_filter(prefix),
                scan_batching=SCAN_BATCHING,
                batch_size=1,
            ),
        )
        while True:
            chunk = self._call("scan", lambda c: next(rows, None))
            if chunk is None:
                return
            for column, value in sorted(chunk[1].items()):
                if value:
                    yield column[3:], value[1:]

    def committed_batch_id(self, namespace: str) -> int | None:
        """The last committed batch id of ``namespace``, or None."""
        row = self._call("committed_batch_id", lambda c: self._meta(c, namespace))
        return None if row is None else int(row)

    def _meta(self, conn: happybase.Connection, namespace: str) -> bytes | None:
        return conn.table(self._table_name).row(namespace.encode(), columns=[_BATCH]).get(_BATCH)

    def _apply(self, namespace: str, batch_id: int, puts: dict[bytes, bytes], deletes: list[bytes]) -> bool:
        current = self._call("commit", lambda c: self._meta(c, namespace))
        if current is not None and batch_id <= int(current):
            return False
        cells = {_column(k): b"" for k in deletes}
        cells.update((_column(k), _LIVE + v) for k, v in puts.items())
        cells[_BATCH] = str(batch_id).encode()
        row, ts = namespace.encode(), batch_id + 1
        self._call("commit", lambda c: c.table(self._table_name).put(row, cells, timestamp=ts))
        if deletes:  # the commit is complete; this only removes the tombstone cells it wrote
            columns = [_column(k) for k in deletes]
            self._call("commit", lambda c: c.table(self._table_name).delete(row, columns=columns, timestamp=ts))
        return True

    def close(self) -> None:
        """Close the Thrift connection."""
        self._drop()
