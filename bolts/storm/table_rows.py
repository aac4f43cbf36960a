"""A spout's columnar block as a window holds it: an Arrow table and where its tuples came from.

A window keeps the block's rows as arrays beside it (``windowing.storm.blocks``)
and builds ``Tuple`` objects only for the rows a bolt reads, in bulk, each
time it reads them; the block itself holds no tuple. A stateful task stores the
block as an Arrow IPC chunk and rebuilds one from it.
"""

from __future__ import annotations

from typing import Any

from bolts.task_input import Segment, collector_paused
from bolts.tuples import Fields, Tuple
from windowing.arrow_values import python_values


class TableRows:
    """Rows of ``table`` (columns named as ``fields``) from task ``source_task`` of ``source_component``, ``stream``."""

    __slots__ = ("fields", "source_component", "source_task", "stream", "table")

    def __init__(self, table: Any, fields: Fields, stream: str, source_component: str, source_task: int) -> None:
        self.table = table
        self.fields = fields
        self.stream = stream
        self.source_component = source_component
        self.source_task = source_task

    @classmethod
    def of(cls, segment: Segment) -> TableRows:
        """The rows of a columnar segment (its table must be set)."""
        return cls(segment.table, segment.fields, segment.stream, segment.source_component, segment.source_task)

    def __len__(self) -> int:
        return int(self.table.num_rows)

    def values_of(self, rows: Any) -> list[Tuple]:
        """Rows ``rows`` (increasing row numbers, a numpy array) as ``Tuple`` objects, built in bulk."""
        n = len(rows)
        if not n:
            return []
        first = int(rows[0])
        part = self.table.slice(first, n) if int(rows[-1]) - first + 1 == n else self.table.take(rows)
        with collector_paused():
            columns = [python_values(column) for column in part.columns]
            values = zip(*columns, strict=True) if columns else (() for _ in range(n))
            return Tuple.many(values, self.fields, self.stream, self.source_component, self.source_task)

    def row(self, index: int) -> Tuple:
        """Row ``index`` as a ``Tuple``."""
        values = tuple(python_values(column)[0] for column in self.table.slice(index, 1).columns)
        return Tuple(values, self.fields, self.stream, self.source_component, self.source_task)

    def __reduce__(self) -> tuple[Any, ...]:
        return (TableRows, (self.table, self.fields, self.stream, self.source_component, self.source_task))
