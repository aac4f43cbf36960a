"""Arrow values as Python values in one representation: an aware timestamp comes back in UTC, as ``datetime.UTC``.

pyarrow turns a timestamp column with a zone (Spark's ``TimestampType`` is
``timestamp[us, tz=<session zone>]``) into datetimes whose ``tzinfo`` is a
``zoneinfo.ZoneInfo`` of that zone, but gives ``datetime.timezone`` for a fixed
offset such as ``"+00:00"``. A value sent between tasks or read back from a
store goes through squall's msgpack codec (``bolts.codecs.value_codec``), which
rebuilt a fixed offset too: so the same spout value came back as
``ZoneInfo('UTC')`` in driver mode and as ``timezone.utc`` in distributed mode.
Every place squall turns Arrow into Python values reads timestamp columns with
a zone as UTC instead, with ``tzinfo=datetime.UTC`` (one object with
``timezone.utc``), whatever the placement. The instant is unchanged: Arrow, as
Spark, stores instants, and its zone only says how to show them (the cast is
metadata only). Columns without a zone (``timestamp_ntz``) stay naive.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

#: The zone a timestamp column is read in: a fixed offset, which pyarrow gives as ``datetime.timezone.utc``.
UTC_OFFSET = "+00:00"


def utc_type(kind: pa.DataType) -> pa.DataType | None:
    """``kind`` with every zoned timestamp in it (nested in lists, structs, maps too) read in UTC; None if unchanged."""
    import pyarrow as pa

    if pa.types.is_timestamp(kind):
        return pa.timestamp(kind.unit, tz=UTC_OFFSET) if kind.tz is not None and kind.tz != UTC_OFFSET else None
    if pa.types.is_map(kind):
        key, item = utc_type(kind.key_type), utc_type(kind.item_type)
        if key is None and item is None:
            return None
        return pa.map_(key or kind.key_type, item or kind.item_type, keys_sorted=kind.keys_sorted)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        item = utc_type(kind.value_type)
        if item is None:
            return None
        field = kind.value_field.with_type(item)
        if pa.types.is_fixed_size_list(kind):
            return pa.list_(field, kind.list_size)
        return pa.large_list(field) if pa.types.is_large_list(kind) else pa.list_(field)
    if pa.types.is_struct(kind):
        fields = [kind.field(i) for i in range(kind.num_fields)]
        changed = [utc_type(f.type) for f in fields]
        if all(c is None for c in changed):
            return None
        return pa.struct([f if c is None else f.with_type(c) for f, c in zip(fields, changed, strict=True)])
    return None


def in_utc(column: Any) -> Any:
    """An Arrow array or chunked array with its zoned timestamps read in UTC (the column itself when it has none)."""
    kind = utc_type(column.type)
    return column if kind is None else column.cast(kind)


def python_values(column: Any) -> list[Any]:
    """``column.to_pylist()``, with zoned timestamps as UTC datetimes (``tzinfo=datetime.UTC``)."""
    fast = _utc_datetimes(column)
    return fast if fast is not None else in_utc(column).to_pylist()  # type: ignore[no-any-return]


_UTC_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_COARSE_UNITS = ("s", "ms", "us")  # ns values are not all datetimes: pyarrow decides those


def _utc_datetimes(column: Any) -> list[datetime] | None:
    """A zoned timestamp column of whole microseconds or coarser, without nulls, as UTC datetimes; else None.

    What :func:`python_values` gives, a few times faster than pyarrow's
    ``to_pylist`` (which converts each value through its zone): the epoch plus
    each value's microseconds. None when a value is outside what a ``datetime``
    holds, so the caller's ``to_pylist`` raises as it would have.
    """
    import pyarrow as pa

    kind = column.type
    if not (pa.types.is_timestamp(kind) and kind.tz is not None and kind.unit in _COARSE_UNITS
            and column.null_count == 0):
        return None
    try:
        micros = column.cast(pa.timestamp("us", tz=kind.tz)).cast(pa.int64()).to_numpy().tolist()
        return [_UTC_EPOCH + timedelta(microseconds=m) for m in micros]
    except (OverflowError, pa.ArrowInvalid):
        return None


# The instants Python's date and datetime hold (years 1 to 9999), from the epoch.
_FIRST_DAY, _LAST_DAY = -719_162, 2_932_896
_FIRST_MICRO, _LAST_MICRO = -62_135_596_800_000_000, 253_402_300_799_999_999
_MICROS_PER_UNIT = {"s": 1_000_000, "ms": 1_000, "us": 1}


def out_of_range(column: Any) -> str | None:
    """A date or timestamp in ``column`` (nested ones searched) no Python ``date``/``datetime`` holds, described.

    Checked on the numbers (minimum and maximum of each chunk), no value
    built. Nanosecond timestamps are not checked (no ``datetime`` holds
    their nanoseconds: see ``bolts.codecs.value_codec.untravelled_arrow_type``).
    """
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    return next((found for chunk in chunks if (found := _out_of_range(chunk)) is not None), None)


def _out_of_range(array: Any) -> str | None:
    import pyarrow as pa
    import pyarrow.compute as pc

    kind, t = array.type, pa.types
    if t.is_dictionary(kind):
        return _out_of_range(array.dictionary)
    if t.is_list(kind) or t.is_large_list(kind) or t.is_fixed_size_list(kind):
        return _out_of_range(array.flatten())
    if t.is_map(kind):
        return _out_of_range(array.keys) if _out_of_range(array.keys) is not None else _out_of_range(array.items)
    if t.is_struct(kind):
        return next((found for field in array.flatten() if (found := _out_of_range(field)) is not None), None)
    if t.is_date32(kind):
        numbers, low, high = array.view(pa.int32()), _FIRST_DAY, _LAST_DAY
    elif t.is_date64(kind):
        numbers, low, high = array.view(pa.int64()), _FIRST_DAY * 86_400_000, (_LAST_DAY + 1) * 86_400_000 - 1
    elif t.is_timestamp(kind) and kind.unit in _MICROS_PER_UNIT:
        per = _MICROS_PER_UNIT[kind.unit]
        numbers, low, high = array.view(pa.int64()), _FIRST_MICRO // per, _LAST_MICRO // per
    else:
        return None
    extremes = pc.min_max(numbers)
    smallest, largest = extremes["min"].as_py(), extremes["max"].as_py()
    for value in (smallest, largest):
        if value is not None and not low <= value <= high:
            return f"{value} ({kind} units from the epoch)"
    return None


def table_rows(table: Any) -> list[list[Any]]:
    """The rows of ``table`` as lists of values in column order (:func:`python_values` of each column)."""
    columns = [python_values(table.column(i)) for i in range(table.num_columns)]
    if not columns:
        return [[] for _ in range(table.num_rows)]
    return [list(row) for row in zip(*columns, strict=True)]


def python_rows(table: Any) -> list[dict[str, Any]]:
    """``table.to_pylist()`` (a dict per row), with zoned timestamps as UTC datetimes (``tzinfo=datetime.UTC``)."""
    import pyarrow as pa

    schema = table.schema
    kinds = [utc_type(f.type) for f in schema]
    if any(k is not None for k in kinds):
        table = table.cast(pa.schema([f if k is None else f.with_type(k) for f, k in zip(schema, kinds, strict=True)],
                                     metadata=schema.metadata))
    return table.to_pylist()  # type: ignore[no-any-return]


def python_value(scalar: Any) -> Any:
    """``scalar.as_py()``, with a zoned timestamp as a UTC datetime (``tzinfo=datetime.UTC``)."""
    kind = utc_type(scalar.type)
    return (scalar if kind is None else scalar.cast(kind)).as_py()
