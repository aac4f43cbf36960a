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
from typing import Any

from bolts.tuples import DEFAULT_STREAM, Fields


class Grouping(ABC):
    """How a subscription spreads tuples over the ``n`` tasks of the subscribing bolt."""

    name: str = ""

    @abstractmethod
    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """The task indexes (in ``range(n)``) that receive a tuple; ``counter`` counts earlier tuples."""

    def required_fields(self) -> tuple[str, ...]:
        """The fields the upstream stream must declare for this grouping."""
        return ()


class ShuffleGrouping(Grouping):
    """Storm's shuffle grouping, made deterministic: round-robin over the tasks."""

    name = "shuffle"

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """Task ``counter % n``."""
        return [counter % n]


class GlobalGrouping(Grouping):
    """Every tuple goes to the task with the lowest index, as in Storm."""

    name = "global"

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """Task 0."""
        return [0]


class AllGrouping(Grouping):
    """Every task gets a copy of every tuple."""

    name = "all"

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """Every task."""
        return list(range(n))


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
