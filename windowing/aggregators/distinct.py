"""``distinct_count(field)``: how many different values of a field a window holds, exactly, and retractable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from windowing.aggregators.basic import FieldAggregator
from windowing.aggregators.columns import column_of
from windowing.arrow_values import python_values


def _counts_by_arrow(column: Any) -> bool:
    """Whether Arrow's hash grouping tells ``column``'s values apart exactly as a Python dict does.

    Not for floats (a dict keeps each NaN apart and ``0.0`` with ``-0.0``),
    nor for nested or dictionary types.
    """
    import pyarrow as pa

    kind = column.type
    checks = (pa.types.is_integer, pa.types.is_string, pa.types.is_large_string, pa.types.is_binary,
              pa.types.is_large_binary, pa.types.is_boolean, pa.types.is_date, pa.types.is_timestamp,
              pa.types.is_null)
    return any(check(kind) for check in checks)


@dataclass(frozen=True)
class DistinctCount(FieldAggregator):
    """The number of distinct values of ``field`` (None skipped, as Spark's ``count(DISTINCT f)``).

    The accumulator is a ``{value: tuples with it}`` dict, so the count is
    exact and a retraction takes one tuple out (its value goes when its last
    tuple does); it grows with the distinct values of a window. Values are
    equal as Python's ``==`` and ``hash`` say (``1`` and ``1.0`` are one value);
    a value that cannot be a dict key (a list) is refused.
    """

    def create(self) -> dict[Any, int]:
        """No values."""
        return {}

    def add(self, acc: dict[Any, int], tup: Any) -> dict[Any, int]:
        """Count the value (None is skipped), in place."""
        value = tup[self.field]
        if value is not None:
            acc[value] = acc.get(value, 0) + 1
        return acc

    def add_column(self, acc: dict[Any, int], rows: Any) -> dict[Any, int]:
        """Count the values (None is skipped), in place."""
        import numpy as np

        return self.add_groups([acc], rows, np.zeros(rows.num_rows, np.int64))[0]

    def add_groups(self, accs: list[dict[Any, int]], rows: Any, groups: Any) -> list[dict[Any, int]]:
        """Count each group's values (None is skipped), in place: one Arrow ``group_by`` of ``(group, value)``.

        New values enter an accumulator in the order of their first row, as ``add``
        would put them. Every value is checked before any accumulator changes
        (``TypeError`` for one that cannot be a dict key).
        """
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        column = column_of(rows, self.field)
        if _counts_by_arrow(column):
            pairs = pa.table({"g": pa.array(groups), "v": column, "r": np.arange(len(column))})
            counted = (pairs.filter(pc.is_valid(column)).group_by(["g", "v"], use_threads=False)
                       .aggregate([([], "count_all"), ("r", "min")]).sort_by("r_min"))
            found = zip(counted.column("g").to_pylist(), python_values(counted.column("v")),
                        counted.column("count_all").to_pylist(), strict=True)
        else:
            found = ((g, v, 1) for g, v in zip(groups.tolist(), python_values(column), strict=True) if v is not None)
        found = list(found)
        for _, value, _ in found:
            hash(value)  # TypeError before any accumulator changes
        for g, value, n in found:
            acc = accs[g]
            acc[value] = acc.get(value, 0) + n
        return accs

    def retract(self, acc: dict[Any, int], tup: Any) -> dict[Any, int]:
        """Take one tuple of the value out (None, or a value not held, changes nothing)."""
        value = tup[self.field]
        if value is None or value not in acc:
            return acc
        out = dict(acc)
        if out[value] > 1:
            out[value] -= 1
        else:
            del out[value]
        return out

    def merge(self, accs: list[dict[Any, int]]) -> dict[Any, int]:
        """The counts of all, added."""
        out: dict[Any, int] = {}
        for acc in accs:
            for value, n in acc.items():
                out[value] = out.get(value, 0) + n
        return out

    def extract(self, acc: dict[Any, int]) -> int:
        """The number of distinct values."""
        return len(acc)
