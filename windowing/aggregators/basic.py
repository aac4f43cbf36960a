"""The ready aggregators PySpark users know: ``count()``, ``sum``, ``min``, ``max``, ``mean``, ``collect``.

Each has ``add`` (the oracle) and the columnar ``add_column``/``add_groups``
(see :mod:`windowing.aggregators.protocol`). As PySpark's aggregate functions
skip nulls, the field aggregators skip a ``None`` value (``count()`` counts
every tuple, as ``count("*")``).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from windowing.aggregators.columns import (
    add_grouped,
    add_values,
    column_of,
    grouped,
    present_values,
    values_by_group,
)


def require_field(owner: str, field: object) -> str:
    """``field`` when it is a non-empty str; else ``TypeError`` naming ``owner``."""
    if not isinstance(field, str) or not field:
        msg = f"{owner}: `field` must be a non-empty str; got {field!r} instead"
        raise TypeError(msg)
    return field


@dataclass(frozen=True)
class FieldAggregator:
    """An aggregator of one field's values: ``input_fields`` is ``(field,)``."""

    field: str

    def __post_init__(self) -> None:
        require_field(type(self).__name__, self.field)

    @property
    def input_fields(self) -> tuple[str, ...]:
        """The one field read."""
        return (self.field,)

    def _column(self, rows: Any) -> Any:
        return column_of(rows, self.field)


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
class Sum(FieldAggregator):
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
        return add_values(acc, self._column(rows))

    def add_groups(self, accs: list[Any], rows: Any, groups: Any) -> list[Any]:
        """Add each group's values (None is skipped)."""
        return add_grouped(accs, self._column(rows), groups)

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
class _Extreme(FieldAggregator):
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
            candidates = present_values(column)
        for value in candidates:
            acc = value if acc is None else self.pick([acc, value])
        return acc

    def add_groups(self, accs: list[Any], rows: Any, groups: Any) -> list[Any]:
        """Keep the extreme of each group's accumulator and values (None is skipped)."""
        import pyarrow as pa

        column = self._column(rows)
        if pa.types.is_integer(column.type) or pa.types.is_string(column.type):
            extremes = grouped(column, groups, len(accs), "min" if self.pick is builtins.min else "max")
            candidates = [[] if value is None else [value] for value in extremes]
        else:
            candidates = values_by_group(column, groups, len(accs))
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
class Mean(FieldAggregator):
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
        return acc if not present else [add_values(acc[0], column), acc[1] + present]

    def add_groups(self, accs: list[list[Any]], rows: Any, groups: Any) -> list[list[Any]]:
        """Add each group's values (None is skipped)."""
        column = self._column(rows)
        present = grouped(column, groups, len(accs), "count")  # non-null values per group
        totals = add_grouped([acc[0] for acc in accs], column, groups)
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
class Collect(FieldAggregator):
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
        acc.extend(present_values(self._column(rows)))
        return acc

    def add_groups(self, accs: list[list[Any]], rows: Any, groups: Any) -> list[list[Any]]:
        """Append each group's values, in place."""
        for acc, values in zip(accs, values_by_group(self._column(rows), groups, len(accs)), strict=True):
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
