"""A commit's columnar rows as Arrow IPC streams (``a/<seq>`` records), and back.

A spout's block held by a persistent window is stored as the Arrow table of its
rows (the block's own columns and types, no per-row encoding), cut into records
of at most :data:`ARROW_CHUNK_ROWS` rows and about :data:`ARROW_CHUNK_BYTES`
bytes (:func:`encode_arrow_parts`), well under HBase's default 10 MB cell.
Their arrival numbers and window timestamps are ``int64`` columns
(``__squall_seq``, ``__squall_ts``) only when the metadata cannot say them in one value (the first
number of a run; one timestamp, or the name of the timestamp column). The
schema's metadata also names where the rows came from (source component,
stream, source task) and the format version. Reading one back is zero-copy over
the stored bytes: the restored window holds its rows as a block again, with no
``Tuple`` built; a task that wrote one holds its rows from the bytes it wrote
too (the window's copy: the namespace stores its own, checksummed copy of every
value, in ``memory://`` as in Redis and HBase).
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

import numpy as np
import pyarrow as pa

from bolts.storm.table_rows import TableRows
from bolts.timestamps import column_millis, is_timestamp_column
from bolts.tuples import Fields

ARROW_CHUNK_PREFIX = b"a/"
SEQ_COLUMN = "__squall_seq"
TS_COLUMN = "__squall_ts"
_META = b"squall"
FORMAT_VERSION = 1
#: Most rows in one ``a/`` record (its ``d/`` records, lists of arrival numbers, stay around a megabyte).
ARROW_CHUNK_ROWS = 1 << 17
#: The Arrow bytes a record aims at; a record encoded over twice this is cut in two again.
ARROW_CHUNK_BYTES = 4 << 20


def encode_arrow_parts(
    source: TableRows, rows: np.ndarray, seqs: np.ndarray, ts: np.ndarray, ts_field: str | None = None,
    max_bytes: int | None = None, max_rows: int | None = None,
) -> list[tuple[int, int, bytes]]:
    """:func:`encode_arrow_chunk` of rows ``rows`` cut into records: ``(first seq, rows, bytes)`` each, in order.

    The rows are cut into equal parts of at most ``max_rows`` rows and, by the
    average size of a row, about ``max_bytes`` of Arrow buffers each (by
    default :data:`ARROW_CHUNK_ROWS` and :data:`ARROW_CHUNK_BYTES`); a part
    whose record still comes out over ``2 * max_bytes`` (rows of very different
    sizes) is cut in two until it fits or is one row.
    """
    max_bytes = ARROW_CHUNK_BYTES if max_bytes is None else max_bytes
    max_rows = ARROW_CHUNK_ROWS if max_rows is None else max_rows
    n = len(rows)
    if not n:
        return []
    first, span = int(rows[0]), int(rows[-1]) - int(rows[0]) + 1
    # The rows' average size, from the range they lie in, plus the arrival number and timestamp columns a
    # record may need.
    row_bytes = source.table.slice(first, span).nbytes / span + 16
    per_part = max(1, min(max_rows, int(max_bytes // row_bytes)))
    parts = -(-n // per_part)
    cuts = [n * k // parts for k in range(parts + 1)]
    out: list[tuple[int, int, bytes]] = []
    todo = list(pairwise(cuts))[::-1]  # a stack: the parts come out in order
    while todo:
        a, b = todo.pop()
        data = encode_arrow_chunk(source, rows[a:b], seqs[a:b], ts[a:b], ts_field)
        if len(data) > 2 * max_bytes and b - a > 1:
            mid = (a + b) // 2
            todo += [(mid, b), (a, mid)]
            continue
        out.append((int(seqs[a]), b - a, data))
    return out


def encode_arrow_chunk(
    source: TableRows, rows: np.ndarray, seqs: np.ndarray, ts: np.ndarray, ts_field: str | None = None,
) -> bytes:
    """Rows ``rows`` (increasing) of ``source``, with their arrival numbers and timestamps, as IPC bytes.

    Arrival numbers that follow each other are stored as the first one, and
    timestamps that all are one value, or are the ``ts_field`` column's, as
    that value or that name (in the metadata), so the record is the rows' own
    columns and nothing per row besides.
    """
    first, n = int(rows[0]), len(rows)
    table = source.table.slice(first, n) if int(rows[-1]) - first + 1 == n else source.table.take(rows)
    meta: dict[str, Any] = {"v": FORMAT_VERSION, "source": source.source_component, "stream": source.stream,
                            "task": source.source_task, "fields": source.fields.to_list()}
    if int(seqs[-1]) - int(seqs[0]) + 1 == n:
        meta["first_seq"] = int(seqs[0])
    else:
        table = table.append_column(SEQ_COLUMN, pa.array(seqs, pa.int64()))
    if int(ts.min()) == int(ts.max()):
        meta["ts"] = int(ts[0])
    elif ts_field is not None and ts_field in table.column_names and _same_ts(table.column(ts_field), ts):
        meta["ts_field"] = ts_field
    else:
        table = table.append_column(TS_COLUMN, pa.array(ts, pa.int64()))
    table = table.replace_schema_metadata({_META: json.dumps(meta).encode("utf-8")})
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _same_ts(column: Any, ts: np.ndarray) -> bool:
    return is_timestamp_column(column) and bool(np.array_equal(column_millis(column), ts))


def decode_arrow_chunk(data: bytes) -> tuple[TableRows, np.ndarray, np.ndarray]:
    """The rows of an ``a/`` record (read zero-copy over ``data``), their arrival numbers and timestamps."""
    table = pa.ipc.open_stream(pa.py_buffer(data)).read_all()
    raw = (table.schema.metadata or {}).get(_META)
    if raw is None:
        msg = "an a/ record of a window's state has no squall metadata: it was not written by squall"
        raise ValueError(msg)
    meta = json.loads(raw)
    if meta.get("v") != FORMAT_VERSION:
        msg = (f"an a/ record of a window's state has format version {meta.get('v')!r}; "
               f"this squall reads {FORMAT_VERSION}")
        raise ValueError(msg)
    n = table.num_rows
    if "first_seq" in meta:
        seqs = np.arange(meta["first_seq"], meta["first_seq"] + n, dtype=np.int64)
    else:
        seqs = np.asarray(table.column(SEQ_COLUMN).to_numpy(), np.int64)
    if "ts" in meta:
        ts = np.full(n, meta["ts"], np.int64)
    elif "ts_field" in meta:
        ts = np.asarray(column_millis(table.column(meta["ts_field"])), np.int64)
    else:
        ts = np.asarray(table.column(TS_COLUMN).to_numpy(), np.int64)
    fields = Fields(meta["fields"])
    rows = table.select(list(range(len(fields)))).replace_schema_metadata(None)
    return TableRows(rows, fields, meta["stream"], meta["source"], meta["task"]), seqs, ts
