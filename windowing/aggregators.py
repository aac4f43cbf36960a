"""Ready-made aggregators, spelled as PySpark users know them: ``count()``, ``sum("v")``, ``top_n("v", 3)``.

An aggregator is any object with ``create() -> acc``, ``add(acc, tuple) -> acc``,
``merge(accs) -> acc`` and ``extract(acc) -> value``, and optionally
``retract(acc, tuple) -> acc`` (needed to consume retractions from upstream).
Accumulators must be plain data (numbers, strings, lists, None) so a window's
state can be snapshotted with msgpack. ``input_fields`` names the tuple fields
an aggregator reads; the bolt checks them before adding a tuple. ``add`` may
update ``acc`` in place and return it (``collect`` does), provided ``extract``
returns a value that shares nothing with ``acc``: panes already emitted, and
the last one kept for its retraction, must not change. The bolt never gives
one accumulator to two windows.

An aggregator may also have ``add_column(acc, rows) -> acc``, where ``rows``
is a ``pyarrow.Table`` of tuples (one column per field) in arrival order: it
must return what ``add`` of each row in order returns. When the aggregator
declares ``input_fields``, ``rows`` may hold only those columns (at least one
column, so the row count is kept). A
``WindowedAggregateBolt`` then adds each window's rows of a batch at once
(fixed, sliding and global windows; see docs/performance.md). The ready
aggregators have it: on integer and string columns they use Arrow compute
where the result is provably the same (integer sums that cannot overflow, into
an int accumulator), and fold the Python values otherwise, so float sums are
added in the same order as ``add`` would.

For many windows at once, an aggregator may also have ``add_groups(accs,
rows, groups) -> accs``: ``groups[i]`` is the window (an index into ``accs``)
of row ``i`` of ``rows``; it returns each window's accumulator with its rows
added, as ``add_column`` of each window's rows would. The ready aggregators
have it, computing all windows' sums, counts and extremes in one Arrow
``group_by`` where that is exact.

As PySpark's aggregate functions skip nulls, the field aggregators skip a
tuple whose value is ``None`` (``count()`` counts every tuple, as
``count("*")``). Empty windows (possible only in an ON_TIME pane of a
DISCARDING window) and windows of only ``None`` values extract to 0 for
``count``/``sum``, ``None`` for ``min``/``max``/``mean`` and ``[]`` otherwise.
A value the aggregator cannot combine (``sum`` of a str and an int) fails the
batch with a ``TupleError`` naming the aggregator and the tuple.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable


@runtime_checkable
class Aggregator(Protocol):
    """What the windowed bolts need from an aggregator."""

    def create(self) -> Any:
        """A new, empty accumulator."""

    def add(self, acc: Any, tup: Any) -> Any:
        """``acc`` with the tuple added."""

    def merge(self, accs: list[Any]) -> Any:
        """One accumulator holding everything in ``accs``."""

    def extract(self, acc: Any) -> Any:
        """The output value of ``acc``."""


def _require_field(owner: str, field: object) -> str:
    if not isinstance(field, str) or not field:
        msg = f"{owner}: `field` must be a non-empty str; got {field!r} instead"
        raise TypeError(msg)
    return field


@dataclass(frozen=True)
class _FieldAggregator:
    field: str

    def __post_init__(self) -> None:
        _require_field(type(self).__name__, self.field)

    @property
    def input_fields(self) -> tuple[str, ...]:
        return (self.field,)

    def _column(self, rows: Any) -> Any:
        column = rows.column(self.field)
        return column.combine_chunks() if hasattr(column, "combine_chunks") else column


_INT64_BOUND = 2**62


def _int_sum(column: Any) -> int | None:
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


def _grouped(column: Any, groups: Any, count: int, how: str) -> list[Any]:
    """Arrow's ``how`` ("sum", "min", "max", "count") of ``column`` per group index in ``range(count)``.

    None for a group without non-null values (0 for "count"). Integer columns
    (whose sums the caller has checked fit int64) are reduced with numpy, the
    same values without building Arrow's hash table.
    """
    import pyarrow as pa

    if how == "count" or pa.types.is_integer(column.type):
        return _grouped_numbers(column, groups, count, how)
    table = pa.table({"g": pa.array(groups), "v": column}).group_by("g").aggregate([("v", how)])
    out: list[Any] = [None] * count
    for g, value in zip(table.column("g").to_pylist(), table.column(f"v_{how}").to_pylist(), strict=True):
        out[g] = value
    return out


def _grouped_numbers(column: Any, groups: Any, count: int, how: str) -> list[Any]:
    """:func:`_grouped` of an integer column (any column for "count") with numpy's unbuffered ``ufunc.at``."""
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


def _values_by_group(column: Any, groups: Any, count: int) -> list[list[Any]]:
    """The non-null values of each group, in row order."""
    out: list[list[Any]] = [[] for _ in range(count)]
    for value, g in zip(column.to_pylist(), groups.tolist(), strict=True):
        if value is not None:
            out[g].append(value)
    return out


def _fits_int64(column: Any) -> bool:
    """Whether Arrow can add any subset of an integer column's values without overflowing int64."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_integer(column.type):
        return False
    bounds = pc.min_max(column)
    low, high = bounds["min"].as_py(), bounds["max"].as_py()
    return low is None or len(column) * builtins.max(abs(low), abs(high)) < _INT64_BOUND


def _add_grouped(accs: list[Any], column: Any, groups: Any) -> list[Any]:
    """Each group's non-null values added to its accumulator, as ``acc + v`` left to right would give."""
    count = len(accs)
    sums = _grouped(column, groups, count, "sum") if _fits_int64(column) else None
    if sums is not None and all(type(acc) is int for acc in accs):
        return [acc + (total or 0) for acc, total in zip(accs, sums, strict=True)]
    values = _values_by_group(column, groups, count)
    return [builtins.sum(v, acc) for acc, v in zip(accs, values, strict=True)]


def _values(column: Any) -> list[Any]:
    """The non-null values, in order."""
    return [v for v in column.to_pylist() if v is not None]


def _add_values(acc: Any, column: Any) -> Any:
    """``acc`` plus every non-null value, as ``acc + v`` left to right would give."""
    if type(acc) is int:
        total = _int_sum(column)
        if total is not None:
            return acc + total
    return builtins.sum(_values(column), acc)


@dataclass(frozen=True)
class TupleCount:
    """The number of tuples (``count()``; named apart from ``windowing.Count``, a window's length in tuples)."""

    input_fields = ()

    def create(self) -> int:
        """Zero."""
        return 0

    def add(self, acc: int, tup: Any) -> int:
        """One more."""
        return acc + 1

    def add_column(self, acc: int, rows: Any) -> int:
        """As many more as rows."""
        return acc + rows.num_rows

    def add_groups(self, accs: list[int], rows: Any, groups: Any) -> list[int]:
        """As many more as each group's rows."""
        import numpy as np

        counts = np.bincount(groups, minlength=len(accs)).tolist()
        return [acc + n for acc, n in zip(accs, counts, strict=True)]

    def retract(self, acc: int, tup: Any) -> int:
        """One fewer."""
        return acc - 1

    def merge(self, accs: list[int]) -> int:
        """The total."""
        return builtins.sum(accs)

    def extract(self, acc: int) -> int:
        """The count."""
        return acc


@dataclass(frozen=True)
class Sum(_FieldAggregator):
    """The sum of ``field``."""

    def create(self) -> Any:
        """Zero."""
        return 0

    def add(self, acc: Any, tup: Any) -> Any:
        """Add the value (None is skipped)."""
        value = tup[self.field]
        return acc if value is None else acc + value

    def add_column(self, acc: Any, rows: Any) -> Any:
        """Add the values (None is skipped)."""
        return _add_values(acc, self._column(rows))

    def add_groups(self, accs: list[Any], rows: Any, groups: Any) -> list[Any]:
        """Add each group's values (None is skipped)."""
        return _add_grouped(accs, self._column(rows), groups)

    def retract(self, acc: Any, tup: Any) -> Any:
        """Subtract the value (None is skipped)."""
        value = tup[self.field]
        return acc if value is None else acc - value

    def merge(self, accs: list[Any]) -> Any:
        """The total."""
        return builtins.sum(accs, 0)

    def extract(self, acc: Any) -> Any:
        """The sum."""
        return acc


@dataclass(frozen=True)
class _Extreme(_FieldAggregator):
    pick: ClassVar[Callable[[list[Any]], Any]]

    def create(self) -> Any:
        """None: no value yet."""
        return None

    def add(self, acc: Any, tup: Any) -> Any:
        """Keep the extreme of the two (None is skipped)."""
        value = tup[self.field]
        if value is None:
            return acc
        return value if acc is None else self.pick([acc, value])

    def add_column(self, acc: Any, rows: Any) -> Any:
        """Keep the extreme of ``acc`` and the values (None is skipped)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        column = self._column(rows)
        if pa.types.is_integer(column.type) or pa.types.is_string(column.type):
            bounds = pc.min_max(column)  # a total order: the same extreme as a fold
            value = bounds["min" if self.pick is builtins.min else "max"].as_py()
            candidates = [] if value is None else [value]
        else:
            candidates = _values(column)
        for value in candidates:
            acc = value if acc is None else self.pick([acc, value])
        return acc

    def add_groups(self, accs: list[Any], rows: Any, groups: Any) -> list[Any]:
        """Keep the extreme of each group's accumulator and values (None is skipped)."""
        import pyarrow as pa

        column = self._column(rows)
        if pa.types.is_integer(column.type) or pa.types.is_string(column.type):
            extremes = _grouped(column, groups, len(accs), "min" if self.pick is builtins.min else "max")
            candidates = [[] if value is None else [value] for value in extremes]
        else:
            candidates = _values_by_group(column, groups, len(accs))
        out = []
        for acc, values in zip(accs, candidates, strict=True):
            for value in values:
                acc = value if acc is None else self.pick([acc, value])
            out.append(acc)
        return out

    def merge(self, accs: list[Any]) -> Any:
        """The extreme of the accumulators."""
        values = [a for a in accs if a is not None]
        return self.pick(values) if values else None

    def extract(self, acc: Any) -> Any:
        """The value (None when empty)."""
        return acc


@dataclass(frozen=True)
class Min(_Extreme):
    """The smallest value of ``field`` (cannot retract)."""

    pick = staticmethod(builtins.min)


@dataclass(frozen=True)
class Max(_Extreme):
    """The largest value of ``field`` (cannot retract)."""

    pick = staticmethod(builtins.max)


@dataclass(frozen=True)
class Mean(_FieldAggregator):
    """The arithmetic mean of ``field``; the accumulator is ``[total, count]``."""

    def create(self) -> list[Any]:
        """No values."""
        return [0, 0]

    def add(self, acc: list[Any], tup: Any) -> list[Any]:
        """Add the value (None is skipped)."""
        value = tup[self.field]
        return acc if value is None else [acc[0] + value, acc[1] + 1]

    def add_column(self, acc: list[Any], rows: Any) -> list[Any]:
        """Add the values (None is skipped)."""
        column = self._column(rows)
        present = len(column) - column.null_count
        return acc if not present else [_add_values(acc[0], column), acc[1] + present]

    def add_groups(self, accs: list[list[Any]], rows: Any, groups: Any) -> list[list[Any]]:
        """Add each group's values (None is skipped)."""
        column = self._column(rows)
        present = _grouped(column, groups, len(accs), "count")  # non-null values per group
        totals = _add_grouped([acc[0] for acc in accs], column, groups)
        return [acc if not n else [total, acc[1] + n] for acc, total, n in zip(accs, totals, present, strict=True)]

    def retract(self, acc: list[Any], tup: Any) -> list[Any]:
        """Remove the value (None is skipped)."""
        value = tup[self.field]
        return acc if value is None else [acc[0] - value, acc[1] - 1]

    def merge(self, accs: list[list[Any]]) -> list[Any]:
        """Totals and counts added."""
        return [builtins.sum((a[0] for a in accs), 0), builtins.sum(a[1] for a in accs)]

    def extract(self, acc: list[Any]) -> float | None:
        """The mean (None when empty)."""
        return acc[0] / acc[1] if acc[1] else None


@dataclass(frozen=True)
class Collect(_FieldAggregator):
    """Every value of ``field`` but None, in arrival order (PySpark's ``collect_list``)."""

    def create(self) -> list[Any]:
        """An empty list."""
        return []

    def add(self, acc: list[Any], tup: Any) -> list[Any]:
        """Append the value, in place: a window of n tuples costs O(n), not O(n^2)."""
        value = tup[self.field]
        if value is not None:
            acc.append(value)
        return acc

    def add_column(self, acc: list[Any], rows: Any) -> list[Any]:
        """Append the values, in place."""
        acc.extend(_values(self._column(rows)))
        return acc

    def add_groups(self, accs: list[list[Any]], rows: Any, groups: Any) -> list[list[Any]]:
        """Append each group's values, in place."""
        for acc, values in zip(accs, _values_by_group(self._column(rows), groups, len(accs)), strict=True):
            acc.extend(values)
        return accs

    def retract(self, acc: list[Any], tup: Any) -> list[Any]:
        """Remove the first occurrence of the value (nothing when absent)."""
        out = list(acc)
        if tup[self.field] in out:
            out.remove(tup[self.field])
        return out

    def merge(self, accs: list[list[Any]]) -> list[Any]:
        """The lists joined in order."""
        return [v for a in accs for v in a]

    def extract(self, acc: list[Any]) -> list[Any]:
        """The values."""
        return list(acc)


@dataclass(frozen=True)
class TopN(_FieldAggregator):
    """The ``n`` largest values of ``field``, largest first (cannot retract)."""

    n: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            msg = f"top_n: `n` must be an int of at least 1; got {self.n!r} instead"
            raise ValueError(msg)

    def create(self) -> list[Any]:
        """An empty list."""
        return []

    def add(self, acc: list[Any], tup: Any) -> list[Any]:
        """Insert the value, keep the top ``n`` (None is skipped)."""
        value = tup[self.field]
        if value is None:
            return acc
        return sorted([*acc, value], reverse=True)[: self.n]

    def merge(self, accs: list[list[Any]]) -> list[Any]:
        """The top ``n`` of all."""
        return sorted((v for a in accs for v in a), reverse=True)[: self.n]

    def extract(self, acc: list[Any]) -> list[Any]:
        """The values, largest first."""
        return list(acc)


def count() -> TupleCount:
    """Count tuples."""
    return TupleCount()


def sum(field: str) -> Sum:
    """Sum ``field``."""
    return Sum(field)


def min(field: str) -> Min:
    """Smallest ``field``."""
    return Min(field)


def max(field: str) -> Max:
    """Largest ``field``."""
    return Max(field)


def mean(field: str) -> Mean:
    """Mean of ``field``."""
    return Mean(field)


def collect(field: str) -> Collect:
    """All values of ``field``."""
    return Collect(field)


def top_n(field: str, n: int) -> TopN:
    """The ``n`` largest values of ``field``."""
    return TopN(field, n)


def input_fields(aggregator: object) -> tuple[str, ...]:
    """The fields ``aggregator`` reads (empty when it does not say)."""
    return tuple(getattr(aggregator, "input_fields", ()))


def can_retract(aggregator: object) -> bool:
    """Whether ``aggregator`` can take retractions."""
    return callable(getattr(aggregator, "retract", None))
