"""Ready-made aggregators, spelled as PySpark users know them: ``count()``, ``sum("v")``, ``max_by("a", "p")``.

An aggregator tells a ``WindowedAggregateBolt`` what to compute per window:
:class:`Aggregator` (``create``/``add``/``merge``/``extract``, a tuple at a
time) and, for the bolt's columnar path, :class:`ColumnarAggregator`
(``add_column``, a window's rows of a batch at once) and
:class:`GroupedAggregator` (``add_groups``, many windows at once);
:class:`RetractingAggregator` (``retract``) consumes upstream retractions.
Their signatures and rules are in :mod:`windowing.aggregators.protocol`;
docs/event-time.md shows a user's vectorised aggregator.

Every ready aggregator is a :class:`GroupedAggregator`, its ``add`` the oracle
its columnar methods equal, and its accumulator plain data (it is stored with
the window). As PySpark's aggregate functions skip nulls, the field aggregators
skip a tuple whose value is ``None`` (``count()`` counts every tuple, as
``count("*")``). Empty windows (possible only in an ON_TIME pane of a
DISCARDING window) and windows of only ``None`` values extract to 0 for
``count``/``sum``/``distinct_count``, ``None`` for ``min``/``max``/``mean``/
``max_by``/``min_by`` and ``[]`` otherwise. A value the aggregator cannot
combine (``sum`` of a str and an int) fails the batch with a ``TupleError``
naming the aggregator and the tuple.

``count()`` makes a :class:`TupleCount`, named apart from ``windowing.Count``
(a window's length in tuples).
"""

from __future__ import annotations

from collections.abc import Sequence

from windowing.aggregators.basic import Collect, Max, Mean, Min, Sum, TupleCount
from windowing.aggregators.distinct import DistinctCount
from windowing.aggregators.protocol import (
    Aggregator,
    ColumnarAggregator,
    GroupedAggregator,
    RetractingAggregator,
    can_retract,
    is_columnar,
    read_fields,
)
from windowing.aggregators.ranking import MaxBy, MinBy, TopK, TopN


def count() -> TupleCount:
    """Count tuples."""
    return TupleCount()


def sum(field: str) -> Sum:
    """Sum ``field``."""
    return Sum(field)


def min(field: str) -> Min:
    """Smallest ``field`` (cannot retract)."""
    return Min(field)


def max(field: str) -> Max:
    """Largest ``field`` (cannot retract)."""
    return Max(field)


def mean(field: str) -> Mean:
    """Mean of ``field``."""
    return Mean(field)


def collect(field: str) -> Collect:
    """All values of ``field``, in arrival order."""
    return Collect(field)


def top_n(field: str, n: int) -> TopN:
    """The ``n`` largest values of ``field``, largest first (cannot retract)."""
    return TopN(field, n)


def max_by(value: str | Sequence[str] | None, by: str) -> MaxBy:
    """What ``value`` picks of the tuple with the largest ``by`` (the first such tuple; cannot retract).

    ``value``: a field name (that field's value), a list of names (a ``{field:
    value}`` dict of them) or None (the whole tuple, as a dict of every field),
    as Spark's ``max_by(value, by)``; None for a window with no ``by`` but None.
    """
    return MaxBy(value, by)  # type: ignore[arg-type]


def min_by(value: str | Sequence[str] | None, by: str) -> MinBy:
    """What ``value`` picks of the tuple with the smallest ``by`` (the first such tuple; cannot retract).

    ``value`` as for :func:`max_by`.
    """
    return MinBy(value, by)  # type: ignore[arg-type]


def top_k(by: str, k: int, *, ties: str = "first", value: str | Sequence[str] | None = None) -> TopK:
    """The ``k`` tuples with the largest ``by``, largest first (cannot retract).

    ``ties="first"``: exactly ``k`` (the earliest among tuples tied at the cut);
    ``ties="all"``: also every tuple equal to the ``k``-th, so more than ``k`` may
    come out (Nexmark q7's highest bids: ``top_k("price", 1, ties="all")``).
    ``value`` picks what is kept of each tuple, as for :func:`max_by` (None: the
    whole tuple as a dict).
    """
    return TopK(by, k, ties, value)  # type: ignore[arg-type]


def distinct_count(field: str) -> DistinctCount:
    """The number of distinct values of ``field`` (None skipped; exact, retractable)."""
    return DistinctCount(field)


__all__ = [
    "Aggregator",
    "Collect",
    "ColumnarAggregator",
    "DistinctCount",
    "GroupedAggregator",
    "Max",
    "MaxBy",
    "Mean",
    "Min",
    "MinBy",
    "RetractingAggregator",
    "Sum",
    "TopK",
    "TopN",
    "TupleCount",
    "can_retract",
    "collect",
    "count",
    "distinct_count",
    "is_columnar",
    "max",
    "max_by",
    "mean",
    "min",
    "min_by",
    "read_fields",
    "sum",
    "top_k",
    "top_n",
]
