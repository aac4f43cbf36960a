"""Event timestamps as squall reads them: epoch milliseconds, from an int or from a datetime.

Spark gives a ``TimestampType`` column as timezone-aware datetimes (and
through Arrow as ``timestamp[us, tz=...]``), a ``TimestampNTZType`` column as
naive ones; Kafka's ``timestamp`` column is a ``TimestampType``. squall takes
all of them: an aware datetime is its instant, a naive one is read as UTC (as
Spark's own ``window()`` reads a ``TimestampNTZ``). Sub-millisecond parts are
floored, so every path, tuple by tuple or on Arrow columns, gives the same
millisecond. ``bool`` is refused although it is an ``int``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from numbers import Integral
from typing import TYPE_CHECKING, Any

from bolts.errors import TupleError

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ONE_MS = timedelta(milliseconds=1)
_PER_MS = {"us": 1_000, "ns": 1_000_000}


def millis(value: Any) -> int | None:
    """``value`` as epoch milliseconds (an int, an Integral, or a datetime), or None when it is none of these."""
    if type(value) is int:
        return value
    if isinstance(value, datetime):
        instant = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return (instant - EPOCH) // ONE_MS
    if isinstance(value, Integral) and not isinstance(value, bool):
        return int(value)
    return None


def read_millis(method: str, what: str, value: Any, tup: Any) -> int:
    """:func:`millis` of ``value``; ``TupleError`` naming ``method``, ``what``, the value and the tuple otherwise."""
    ms = millis(value)
    if ms is None:
        msg = (
            f"{method}: the timestamp in {what!r} must be an int of epoch milliseconds or a datetime; "
            f"got {value!r} ({type(value).__name__}) in {tup!r}"
        )
        raise TupleError(msg)
    return ms


def is_timestamp_column(column: pa.ChunkedArray | pa.Array) -> bool:
    """Whether an Arrow column holds timestamps :func:`column_millis` reads: integers or Arrow timestamps, no nulls."""
    import pyarrow as pa

    kind = column.type
    return (pa.types.is_integer(kind) or pa.types.is_timestamp(kind)) and column.null_count == 0


def column_millis(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """An integer or timestamp Arrow column as int64 epoch milliseconds (what :func:`millis` gives per value)."""
    import numpy as np
    import pyarrow as pa

    if not pa.types.is_timestamp(column.type):
        return np.asarray(column.to_numpy(), dtype=np.int64)
    raw = np.asarray(column.cast(pa.int64()).to_numpy(), dtype=np.int64)
    unit = column.type.unit
    if unit == "s":
        return raw * 1_000
    return raw if unit == "ms" else raw // _PER_MS[unit]


def tuple_timestamps(field: str | None, extractor: Callable[[Any], Any] | None,
                     now: Callable[[], int]) -> Callable[[Any], int]:
    """How a task reads a tuple's timestamp, in epoch ms: from ``field``, by ``extractor``, else ``now()``.

    ``TupleError`` naming the method and the tuple for a tuple without the
    field, or a value that is no timestamp (see :func:`read_millis`).
    """
    if field is not None:

        def read_field(tup: Any) -> int:
            if field not in tup.fields:
                msg = (
                    f"with_timestamp_field: tuple from {tup.source_component}:{tup.stream} has no field "
                    f"{field!r}; its fields are: {', '.join(tup.fields)} (tuple: {tup!r})"
                )
                raise TupleError(msg)
            return read_millis("with_timestamp_field", field, tup[field], tup)

        return read_field
    if extractor is not None:
        return lambda tup: read_millis("with_timestamp_extractor", "the extractor's result", extractor(tup), tup)
    return lambda tup: now()
