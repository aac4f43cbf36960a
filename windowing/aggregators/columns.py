"""Arrow and numpy kernels the ready aggregators share: exact sums, grouped extremes, values per group.

Each is exact where it is used: integer sums only where int64 cannot overflow
(else the Python values are folded), extremes only on totally ordered columns.
"""

from __future__ import annotations

import builtins
from typing import Any

from windowing.arrow_values import python_values


def column_of(rows: Any, field: str) -> Any:
    """The column ``field`` of ``rows`` as one Arrow array (chunks combined)."""
    found = rows.column(field)
    return found.combine_chunks() if hasattr(found, "combine_chunks") else found


_INT64_BOUND = 2**62


def int_sum(column: Any) -> int | None:
    """The sum of an integer column's non-null values when Arrow adds it exactly (no int64 overflow), else None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_integer(column.type):
        return None
    bounds = pc.min_max(column)
    low, high = bounds["min"].as_py(), bounds["max"].as_py()
    if low is None:
        return 0  # only nulls
    if len(column) * builtins.max(abs(low), abs(high)) >= _INT64_BOUND:
        return None
    return int(pc.sum(column).as_py() or 0)


def grouped(column: Any, groups: Any, count: int, how: str) -> list[Any]:
    """Arrow's ``how`` ("sum", "min", "max", "count") of ``column`` per group index in ``range(count)``.

    None for a group without non-null values (0 for "count"). Integer columns
    (whose sums the caller has checked fit int64) are reduced with numpy, the
    same values without building Arrow's hash table.
    """
    import pyarrow as pa

    if how == "count" or pa.types.is_integer(column.type):
        return grouped_numbers(column, groups, count, how)
    table = pa.table({"g": pa.array(groups), "v": column}).group_by("g").aggregate([("v", how)])
    out: list[Any] = [None] * count
    for g, value in zip(table.column("g").to_pylist(), python_values(table.column(f"v_{how}")), strict=True):
        out[g] = value
    return out


def grouped_numbers(column: Any, groups: Any, count: int, how: str) -> list[Any]:
    """:func:`grouped` of an integer column (any column for "count") with numpy's unbuffered ``ufunc.at``."""
    import numpy as np
    import pyarrow.compute as pc

    if column.null_count:
        valid = np.asarray(pc.is_valid(column).to_numpy(zero_copy_only=False), bool)
        groups, column = groups[valid], column.filter(pc.is_valid(column))
    present = np.bincount(groups, minlength=count)
    if how == "count":
        return present.tolist()  # type: ignore[no-any-return]
    values = np.asarray(column.to_numpy(zero_copy_only=False))
    if how == "sum":
        out = np.zeros(count, np.int64)
        np.add.at(out, groups, values.astype(np.int64))
    else:
        out = np.zeros(count, values.dtype)
        seen = present > 0
        out[groups] = values  # some value of each group present, then the extreme of them all
        (np.minimum if how == "min" else np.maximum).at(out, groups, values)
        return [int(v) if ok else None for v, ok in zip(out.tolist(), seen.tolist(), strict=True)]
    return [int(v) if n else None for v, n in zip(out.tolist(), present.tolist(), strict=True)]


def values_by_group(column: Any, groups: Any, count: int) -> list[list[Any]]:
    """The non-null values of each group, in row order."""
    out: list[list[Any]] = [[] for _ in range(count)]
    for value, g in zip(python_values(column), groups.tolist(), strict=True):
        if value is not None:
            out[g].append(value)
    return out


def fits_int64(column: Any) -> bool:
    """Whether Arrow can add any subset of an integer column's values without overflowing int64."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_integer(column.type):
        return False
    bounds = pc.min_max(column)
    low, high = bounds["min"].as_py(), bounds["max"].as_py()
    return low is None or len(column) * builtins.max(abs(low), abs(high)) < _INT64_BOUND


def add_grouped(accs: list[Any], column: Any, groups: Any) -> list[Any]:
    """Each group's non-null values added to its accumulator, as ``acc + v`` left to right would give."""
    count = len(accs)
    sums = grouped(column, groups, count, "sum") if fits_int64(column) else None
    if sums is not None and all(type(acc) is int for acc in accs):
        return [acc + (total or 0) for acc, total in zip(accs, sums, strict=True)]
    values = values_by_group(column, groups, count)
    return [builtins.sum(v, acc) for acc, v in zip(accs, values, strict=True)]


def present_values(column: Any) -> list[Any]:
    """The non-null values, in order."""
    return [v for v in python_values(column) if v is not None]


def add_values(acc: Any, column: Any) -> Any:
    """``acc`` plus every non-null value, as ``acc + v`` left to right would give."""
    if type(acc) is int:
        total = int_sum(column)
        if total is not None:
            return acc + total
    return builtins.sum(present_values(column), acc)
