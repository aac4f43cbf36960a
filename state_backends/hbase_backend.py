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

Each Thrift request is retried on transport errors (see
:mod:`state_backends.retry`). Sending a commit's Put or Delete again is safe:
the same cells with the same timestamps give the same row.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TypeVar

from state_backends.base import StateBackend, StateBackendError
from state_backends.retry import OPTION, RetryPolicy, transient_os_error, with_retry
from state_backends.urls import query_pairs, redact, scrub, split_url

try:
    import happybase
    from thriftpy2.thrift import TException
    from thriftpy2.transport import TTransportException
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    msg = "state_backends: the hbase:// backend needs happybase; pip install squall[hbase]"
    raise ImportError(msg) from exc

T = TypeVar("T")
_PREFIX = re.compile(r"[A-Za-z0-9_.-]{1,100}")
_BATCH = b"m:batch"
_LIVE = b"\x01"
SCAN_BATCHING = 1000


def parse_hbase_url(url: str) -> tuple[str, int, str, RetryPolicy]:
    """``(host, port, table prefix, retry policy)`` of ``hbase://host[:port][/prefix][?retry_seconds=5]``.

    The port defaults to 9090, the prefix to ``squall``.
    """
    _, retry = RetryPolicy.from_url(url)
    parts = split_url(url)
    unknown = sorted({name for name, _ in query_pairs(parts)} - {OPTION})
    if unknown:
        msg = f"open_backend: unknown option {unknown[0]!r} in {redact(url)!r}; the valid option is: {OPTION}"
        raise ValueError(msg)
    prefix = parts.path.strip("/") or "squall"
    if not parts.hostname:
        msg = f"open_backend: no host in {redact(url)!r}; expected hbase://host:port/table_prefix"
        raise ValueError(msg)
    if not _PREFIX.fullmatch(prefix):
        msg = f"open_backend: table prefix must match [A-Za-z0-9_.-]{{1,100}}; got {prefix!r} in {redact(url)!r}"
        raise ValueError(msg)
    return parts.hostname, parts.port or 9090, prefix, retry


def transient(exc: BaseException) -> bool:
    """Whether a Thrift error is worth retrying: a transport error (the server is away or slow).

    An error the server sends back (HBase's IOError or IllegalArgument, a
    Thrift application error) is not, nor a host name that does not resolve.
    """
    if isinstance(exc, TTransportException | OSError):
        return transient_os_error(exc) is not False  # unless a socket error behind it says otherwise
    return False


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
        self._host, self._port, prefix, self.retry = parse_hbase_url(url)
        self._secret_url = url  # to scrub client messages; HBase itself takes no password
        self._table_name = f"{prefix}_state"
        self._timeout_ms = timeout_ms
        self._conn: happybase.Connection | None = None
        self._call("open_backend", self._ensure_table)

    def _connection(self) -> happybase.Connection:
        if self._conn is None:
            self._conn = happybase.Connection(self._host, self._port, timeout=self._timeout_ms)
        return self._conn

    def _call(self, method: str, fn: Callable[[happybase.Connection], T], reset: Callable[[], None] | None = None) -> T:
        """Run ``fn`` on a live connection, retrying transport errors; on each failure drop the connection.

        ``reset`` also runs after a failure (a scan forgets its broken scanner).
        """

        def drop() -> None:
            self._drop()
            if reset is not None:
                reset()

        def fail(exc: BaseException, note: str) -> StateBackendError:
            text = scrub(f"{type(exc).__name__}: {exc}", self._secret_url)
            return StateBackendError(f"{method}: HBase Thrift server at {self.url} failed: {text}{note}")

        return with_retry(
            self.retry,
            lambda: fn(self._connection()),
            name=f"{method}: HBase Thrift server at {self.url}",
            errors=(TException, OSError),
            transient=transient,
            fail=fail,
            reset=drop,
        )

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
        cursor = _ScanCursor(self._table_name, namespace.encode(), prefix)
        while (chunk := self._call("scan", cursor.next_chunk, reset=cursor.reset)) is not None:
            for column, value in chunk:
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


class _ScanCursor:
    """A scan of one namespace's row that can resume, on a new connection, after the last column it returned."""

    def __init__(self, table: str, row: bytes, prefix: bytes) -> None:
        self._table, self._row, self._filter = table, row, _prefix_filter(prefix)
        self._rows: Iterator[tuple[bytes, dict[bytes, bytes]]] | None = None
        self._opened_on: happybase.Connection | None = None
        self._after: bytes | None = None

    def next_chunk(self, conn: happybase.Connection) -> list[tuple[bytes, bytes]] | None:
        """The next columns (in order) past the last one returned, None at the end of the row."""
        if self._rows is None or conn is not self._opened_on:  # new, or another call replaced the connection
            self._opened_on = conn
            self._rows = conn.table(self._table).scan(
                row_start=self._row,
                row_stop=self._row + b"\x00",
                columns=[b"d"],
                filter=self._filter,
                scan_batching=SCAN_BATCHING,
                batch_size=1,
            )
        item = next(self._rows, None)
        if item is None:
            return None
        cells = sorted(item[1].items())
        if self._after is not None:  # a reopened scanner starts again at the row's first column
            cells = [cell for cell in cells if cell[0] > self._after]
        if cells:
            self._after = cells[-1][0]
        return cells

    def reset(self) -> None:
        """Forget the scanner (its connection broke); the next chunk opens a new one."""
        self._rows = None
