"""Ranking rows on columns: each group's best rows by a field, and what to keep of a row.

The ranking aggregators (``top_n``, ``top_k``, ``max_by``, ``min_by``) keep a
window's best rows by a field ``by``, ties broken by arrival (an earlier row
ranks first). On columns this is one stable sort of ``(group, by, row)``,
exact where Arrow's order of the column is Python's (:func:`total_order`);
elsewhere (floats holding NaN, which Python does not order) the aggregators
fold the rows one by one, as ``add`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from windowing.arrow_values import python_rows, python_values

Selection = str | tuple[str, ...] | None  # one field's value, a dict of some fields, or a dict of every field


def total_order(column: Any) -> bool:
    """Whether Arrow orders ``column``'s non-null values exactly as Python's ``<`` does.

    Integers, strings, binaries, booleans, dates, timestamps, decimals, and
    floats without NaN (Python's comparisons with NaN are all false).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_floating(kind):
        return not pc.any(pc.is_nan(column)).as_py()
    checks = (pa.types.is_integer, pa.types.is_string, pa.types.is_large_string, pa.types.is_binary,
              pa.types.is_large_binary, pa.types.is_boolean, pa.types.is_date, pa.types.is_timestamp,
              pa.types.is_decimal, pa.types.is_null)
    return any(check(kind) for check in checks)


def ranked(by: Any, groups: Any, count: int, k: int, *, keep_ties: bool, largest: bool) -> tuple[Any, Any]:
    """Each group's best rows by ``by``: ``(groups, rows)`` arrays, by group, then rank, then row.

    A group's first ``k`` non-null rows in the order largest (or smallest) ``by``
    first, earlier row first among equals; with ``keep_ties`` also every row equal
    to its ``k``-th. ``by`` must be a :func:`total_order` column; ``groups[i]``
    is the group of row ``i`` (``count`` groups).
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    valid = np.asarray(pc.is_valid(by).to_numpy(zero_copy_only=False), bool)
    rows = np.flatnonzero(valid)
    if not len(rows):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    table = pa.table({"g": groups[rows], "b": by.filter(pa.array(valid)), "r": rows})
    order = pc.sort_indices(table, sort_keys=[("g", "ascending"), ("b", "descending" if largest else "ascending"),
                                              ("r", "ascending")]).to_numpy()
    g = table.column("g").to_numpy()[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    sizes = np.diff(np.r_[starts, len(g)])
    position = np.arange(len(g)) - np.repeat(starts, sizes)
    keep = position < k
    if keep_ties:
        kth = np.repeat(starts + np.minimum(sizes, k) - 1, sizes)  # the sorted index of each group's k-th row
        b = table.column("b").take(pa.array(order))
        keep |= np.asarray(pc.equal(b, b.take(pa.array(kth))).to_numpy(zero_copy_only=False), bool)
    return g[keep], table.column("r").to_numpy()[order[keep]]


def group_bounds(groups: Any, count: int) -> list[tuple[int, int]]:
    """For sorted group numbers, each group's ``(start, stop)`` slice, for every group in ``range(count)``."""
    import numpy as np

    starts = np.searchsorted(groups, np.arange(count + 1))
    return list(zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True))


def kept_fields(selection: Selection) -> tuple[str, ...] | None:
    """The fields that a row's ``selection`` needs (None: every field)."""
    if selection is None:
        return None
    return (selection,) if isinstance(selection, str) else selection


def pick(selection: Selection, tup: Any) -> Any:
    """What is kept of ``tup`` (a ``Tuple``, or a dict in tests).

    ``selection``: a field name (its value), a tuple of names (a ``{field:
    value}`` dict of them, in that order) or None (a dict of every field of the
    tuple, as ``Tuple.as_dict()``).
    """
    if isinstance(selection, str):
        return read(tup, selection)
    if selection is None:
        return dict(tup) if isinstance(tup, dict) else tup.as_dict()
    return {name: read(tup, name) for name in selection}


def pick_rows(selection: Selection, rows: Any, indices: Sequence[int] | Any) -> list[Any]:
    """:func:`pick` of each row of ``rows`` (a ``pyarrow.Table``) at ``indices``, in order."""
    import pyarrow as pa

    taken = pa.array(indices, pa.int64())
    if isinstance(selection, str):
        return python_values(rows.column(selection).take(taken))
    chosen = rows if selection is None else rows.select(list(selection))
    return python_rows(chosen.take(taken))


def read(tup: Any, field: str) -> Any:
    """``tup[field]``; ``ValueError`` naming the field when the tuple has none (so the bolt rejects the tuple)."""
    try:
        return tup[field]
    except KeyError:
        msg = f"the tuple has no field {field!r}"
        raise ValueError(msg) from None


def check_selection(owner: str, value: object) -> Selection:
    """``value`` as a :data:`Selection`; ``TypeError`` naming ``owner`` when it is none of them."""
    if value is None or (isinstance(value, str) and value):
        return value  # type: ignore[return-value]
    if isinstance(value, list | tuple) and value and all(isinstance(v, str) and v for v in value):
        return tuple(value)
    msg = (f"{owner}: `value` must be a field name, a non-empty list of field names, or None (the whole tuple); "
           f"got {value!r} instead")
    raise TypeError(msg)
