"""Malformed records of JSON and CSV files: found by Spark, explained here, then routed, dropped or raised.

Spark reads the files in its ``PERMISSIVE`` mode with a corrupt-record column:
a record that does not fit the schema (a line that is not JSON, a CSV row with
too few or too many columns, a value that is not of its column's type) keeps
its raw text there, and its columns are null where they could not be read. The
spout's DataFrame carries three side columns, all null on a well-formed row so
they cost nothing there: the raw text, the file (Spark's ``input_file_name()``)
and, per column of the schema, its name, type and whether it came out null.
Every column of the schema is read for them, so Spark checks whole records,
not only the declared fields (a CSV row missing a column the topology does not
read is malformed too).

On the driver, :func:`split_malformed` takes the malformed rows out of the
batch and, by the spout's ``mode``, emits them on its error stream as
``(raw, file, reason)``, drops them with a warning, or raises
:class:`MalformedRecordError`. The reason is worked out from the raw text and
the null flags: ``malformed JSON: ...``, ``CSV row has 2 columns, expected 3
(key, ts, value)``, ``value 'soon' of field 'ts' is not a BIGINT``.
"""

from __future__ import annotations

import csv
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column
    from pyspark.sql.types import StructType

log = logging.getLogger("squall.spouts")

MODES = ("PERMISSIVE", "DROPMALFORMED", "FAILFAST")
#: The fields of a file spout's error stream.
ERROR_FIELDS = ("raw", "file", "reason")
CORRUPT_COLUMN = "__squall_corrupt_record"
FILE_COLUMN = "__squall_file"
COLUMNS_COLUMN = "__squall_columns"
SIDE_COLUMNS = (CORRUPT_COLUMN, FILE_COLUMN, COLUMNS_COLUMN)
_SHOWN = 300  # characters of a raw record quoted in an exception message


class MalformedRecordError(ValueError):
    """A record that does not fit its file spout's schema, with ``mode="FAILFAST"``; names the file and the record."""


def with_corrupt_column(schema: StructType) -> StructType:
    """``schema`` plus the string column Spark keeps a malformed record's raw text in."""
    from pyspark.sql.types import StringType, StructField, StructType

    return StructType([*schema.fields, StructField(CORRUPT_COLUMN, StringType(), True)])


def without_corrupt_column(schema: StructType) -> StructType:
    """``schema`` without the corrupt-record column (an inferred schema has it when a file held a bad record)."""
    from pyspark.sql.types import StructType

    return StructType([f for f in schema.fields if f.name not in (CORRUPT_COLUMN, "_corrupt_record")])


def side_columns(schema: StructType) -> list[Column]:
    """The side columns (see the module docstring), in the order of :data:`SIDE_COLUMNS`; null on good rows."""
    from pyspark.sql import functions as F

    bad = F.col(CORRUPT_COLUMN).isNotNull()
    flags = [
        F.struct(
            F.lit(f.name).alias("name"),
            F.lit(f.dataType.simpleString().upper()).alias("type"),
            F.col(f"`{f.name}`").isNull().alias("null"),
        )
        for f in schema.fields
    ]
    return [
        F.col(CORRUPT_COLUMN),
        F.when(bad, F.input_file_name()).alias(FILE_COLUMN),
        F.when(bad, F.array(*flags)).alias(COLUMNS_COLUMN),
    ]


def split_malformed(
    table: pa.Table, *, fields: list[str], stream: str, error_stream: str | None, mode: str, fmt: str, component: str,
) -> dict[str, pa.Table]:
    """A spout's batch (declared fields plus side columns) as ``{stream: rows}``, its malformed records handled.

    ``PERMISSIVE``: the good rows on ``stream``, the malformed ones on
    ``error_stream`` as ``raw, file, reason`` (in row order). ``DROPMALFORMED``:
    the good rows only, with a warning counting the dropped ones. ``FAILFAST``:
    :class:`MalformedRecordError` for the first malformed record.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    corrupt = table.column(CORRUPT_COLUMN)
    if corrupt.null_count == table.num_rows:
        return {stream: table.select(fields)}
    bad = pc.is_valid(corrupt)
    good = table.filter(pc.invert(bad)).select(fields)
    records = [
        (raw, file or "(unknown file)", reason(fmt, raw, columns))
        for raw, file, columns in zip(*table.filter(bad).select(list(SIDE_COLUMNS)).to_pydict().values(), strict=True)
    ]
    raw, file, why = records[0]
    if mode == "PERMISSIVE" and error_stream is not None:
        errors = pa.table([pa.array([r[i] for r in records], pa.string()) for i in range(len(ERROR_FIELDS))],
                          names=list(ERROR_FIELDS))
        return {stream: good, error_stream: errors}
    if mode == "FAILFAST":
        more = f"; {len(records)} malformed records in this batch" if len(records) > 1 else ""
        msg = (
            f"FileSpout {component!r}: malformed {fmt} record in {file}: {_clip(raw)!r} ({why}){more}. "
            "mode='FAILFAST' stops the query at the first one; with mode='PERMISSIVE' (the default) they go to "
            "the spout's error stream instead"
        )
        raise MalformedRecordError(msg)
    log.warning(
        "FileSpout %r: dropped %d malformed %s record(s) of this batch (mode=%r); the first, in %s: %r (%s)",
        component, len(records), fmt, mode, file, _clip(raw), why,
    )
    return {stream: good}


def reason(fmt: str, raw: str, columns: list[dict[str, Any]] | None) -> str:
    """Why Spark could not read ``raw`` (best effort, never empty), from the text and the null flags."""
    columns = columns or []
    found = _json_reason(raw, columns) if fmt == "json" else _csv_reason(raw, columns)
    if found:
        return found
    schema = ", ".join(f"{c['name']} {c['type']}" for c in columns) or "the schema"
    return f"the record does not fit the schema ({schema})"


def _json_reason(raw: str, columns: list[dict[str, Any]]) -> str | None:
    try:
        record = json.loads(raw)
    except ValueError as err:
        if all(c["null"] for c in columns):  # Spark read nothing of it either
            return f"malformed JSON: {err}"
        return None  # JSON Spark accepts but Python does not (single quotes, ...): no detail
    if not isinstance(record, dict):
        return f"malformed JSON: a line must hold one JSON object; got {_clip(raw, 60)}"
    return _bad_values(columns, lambda name: record.get(name))


def _csv_reason(raw: str, columns: list[dict[str, Any]]) -> str | None:
    try:
        tokens = next(csv.reader([raw], escapechar="\\"), [])
    except csv.Error:
        return None
    if len(tokens) != len(columns):
        names = ", ".join(c["name"] for c in columns)
        return f"CSV row has {len(tokens)} columns, expected {len(columns)} ({names})"
    by_name = {c["name"]: token for c, token in zip(columns, tokens, strict=True)}
    return _bad_values(columns, lambda name: by_name.get(name) or None)  # an empty CSV value is null, not bad


def _bad_values(columns: list[dict[str, Any]], raw_value: Callable[[str], Any]) -> str | None:
    """The columns that came out null although the record has a value for them: that value is not of the type."""
    bad = []
    for column in columns:
        value = raw_value(column["name"])
        if column["null"] and value is not None:
            shown = repr(value) if isinstance(value, str) else json.dumps(value)
            bad.append(f"value {_clip(shown, 60)} of field {column['name']!r} is not a {column['type']}")
    return "; ".join(bad) or None


def _clip(text: str, limit: int = _SHOWN) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
