"""An upstream bolt's rows as Arrow columns, so a windowed aggregation of them is placed on columns.

A segment of rows (what an upstream bolt emitted: lists of Python values) gets
a table of the fields placing reads, when every one of them converts without
changing a value: each column holds values of one exact type (``int``,
``float``, ``str`` or ``bool``, and ``None``), which Arrow stores as they are
and gives back equal. Anything else (mixed ``int`` and ``float``, a ``tuple``,
a ``datetime``, an ``int`` past int64, a subclass such as numpy's integers)
leaves the segment as rows, for the per-tuple path. The segment keeps its rows:
a tuple built from it (a late tuple, a window's contents) holds the emitted
values, not Arrow's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bolts.task_input import Segment

if TYPE_CHECKING:
    import pyarrow as pa

MIN_ROWS = 64  # below this, building the columns costs more than placing the rows one by one


def _arrow_types() -> dict[type, pa.DataType]:
    import pyarrow as pa

    return {int: pa.int64(), float: pa.float64(), str: pa.string(), bool: pa.bool_()}


def _column(values: Sequence[Any]) -> pa.Array | None:
    """``values`` as an Arrow array that gives them back equal and of the same type; None when none does."""
    import pyarrow as pa

    kinds = set(map(type, values))
    kinds.discard(type(None))
    if len(kinds) != 1:
        return None  # no values, only None, or mixed types (Arrow would turn ints into floats)
    arrow_type = _arrow_types().get(kinds.pop())
    if arrow_type is None:
        return None
    try:
        return pa.array(values, arrow_type)
    except (OverflowError, pa.ArrowException):  # an int past int64
        return None


def with_columns(segment: Segment, fields: Sequence[str]) -> Segment | None:
    """``segment`` (rows) with a table of ``fields`` beside its rows; None when a field is missing or will not convert.

    Segments shorter than :data:`MIN_ROWS` get None too.
    """
    import pyarrow as pa

    rows = segment.rows
    if rows is None or len(rows) < MIN_ROWS or any(name not in segment.fields for name in fields):
        return None
    columns = list(zip(*rows, strict=True))
    arrays = []
    for name in fields:
        array = _column(columns[segment.fields.index(name)])
        if array is None:
            return None
        arrays.append(array)
    table = pa.table(arrays, names=list(fields))
    return Segment(segment.source_component, segment.source_task, segment.stream, segment.fields, table=table,
                   rows=rows)
