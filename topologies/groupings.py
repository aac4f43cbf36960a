"""Stream groupings: which task(s) of a subscribing bolt receive each tuple.

Every grouping is deterministic, so a replayed batch is routed exactly as the
first time: shuffle is a round-robin per (source task, subscriber) whose
position is part of the executor's state, fields grouping uses a stable hash of
the grouped values (CRC-32 of their ``repr``, the same in every process, unlike
Python's salted ``hash``), global sends everything to task 0, all to every task.
"""

from __future__ import annotations

import zlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bolts.tuples import DEFAULT_STREAM, Fields

if TYPE_CHECKING:
    import pyarrow as pa


class Grouping(ABC):
    """How a subscription spreads tuples over the ``n`` tasks of the subscribing bolt."""

    name: str = ""

    @abstractmethod
    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """The task indexes (in ``range(n)``) that receive a tuple; ``counter`` counts earlier tuples."""

    def required_fields(self) -> tuple[str, ...]:
        """The fields the upstream stream must declare for this grouping."""
        return ()

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """The rows of ``table`` each of the ``n`` tasks receives, in row order: :meth:`targets` on columns.

        ``counter`` counts the tuples before the table's first row; row ``i`` has
        counter ``counter + i``. The default asks :meth:`targets` row by row;
        the built-in groupings compute the same choice on whole columns.
        """
        import pyarrow as pa

        columns = [table.column(i).to_pylist() for i in range(table.num_columns)]
        per_task: list[list[int]] = [[] for _ in range(n)]
        for i, values in enumerate(zip(*columns, strict=True)):
            for task in self.targets(values, fields, n, counter + i):
                per_task[task].append(i)
        return [table.take(pa.array(rows, pa.int64())) for rows in per_task]


class ShuffleGrouping(Grouping):
    """Storm's shuffle grouping, made deterministic: round-robin over the tasks."""

    name = "shuffle"

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """Task ``counter % n``."""
        return [counter % n]

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """Row ``i`` to task ``(counter + i) % n``: every n-th row from the task's first."""
        import pyarrow as pa

        rows = table.num_rows
        return [table.take(pa.array(range((task - counter) % n, rows, n), pa.int64())) for task in range(n)]


class GlobalGrouping(Grouping):
    """Every tuple goes to the task with the lowest index, as in Storm."""

    name = "global"

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """Task 0."""
        return [0]

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """Every row to task 0."""
        return [table, *(table.slice(0, 0) for _ in range(n - 1))]


class AllGrouping(Grouping):
    """Every task gets a copy of every tuple."""

    name = "all"

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """Every task."""
        return list(range(n))

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """Every row to every task."""
        return [table] * n


class FieldsGrouping(Grouping):
    """Tuples with equal values in ``fields`` go to the same task."""

    name = "fields"

    def __init__(self, fields: Fields) -> None:
        self.fields = fields

    def required_fields(self) -> tuple[str, ...]:
        """The grouped fields."""
        return tuple(self.fields)

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """The task chosen by :func:`fields_task` for the grouped values."""
        return [fields_task([values[fields.index(f)] for f in self.fields], n)]

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """:func:`fields_task` once per distinct key (on the values a row would give), then a ``take`` per task."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if table.num_rows == 0:
            return [table] * n
        # Each key column as dictionary codes; the codes combined into one code per distinct key.
        combined: Any = None
        dictionaries = []
        for name in self.fields:
            encoded = pc.dictionary_encode(table.column(name), null_encoding="encode")
            chunks = encoded.combine_chunks() if isinstance(encoded, pa.ChunkedArray) else encoded
            size = len(chunks.dictionary)
            codes = pc.cast(chunks.indices, pa.int64())
            dictionaries.append((chunks.dictionary.to_pylist(), size))
            combined = codes if combined is None else pc.add(pc.multiply(combined, size), codes)
        keys = pc.dictionary_encode(combined)
        task_of_key = []
        for code in keys.dictionary.to_pylist():
            values = []
            for values_of_column, size in reversed(dictionaries):
                code, index = divmod(code, size)
                values.append(values_of_column[index])
            task_of_key.append(fields_task(values[::-1], n))
        targets = pc.take(pa.array(task_of_key, pa.int64()), keys.indices)
        return [table.filter(pc.equal(targets, task)) for task in range(n)]

    def __repr__(self) -> str:
        return f"FieldsGrouping({self.fields!r})"


def fields_task(key: Sequence[Any], n: int) -> int:
    """The task of a fields grouping for the grouped values ``key``: a stable hash modulo ``n``."""
    return zlib.crc32(repr(tuple(key)).encode("utf-8")) % n


@dataclass(frozen=True)
class Subscription:
    """A bolt subscribes to ``stream`` of ``component`` with ``grouping``."""

    component: str
    stream: str = DEFAULT_STREAM
    grouping: Grouping = ShuffleGrouping()  # noqa: RUF009 - groupings are immutable
