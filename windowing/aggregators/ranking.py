"""Aggregators that keep a window's best rows: ``top_n``, ``top_k`` (with ties), ``max_by`` and ``min_by``.

None of them can retract (what is taken out may have been one of the best,
and the others are not kept): a topology that would give them retractions is
refused when it is built. Rows whose ``by`` value is None are skipped.

Ties are broken by arrival: among rows with equal ``by``, the one added to the
accumulator first ranks first (so ``max_by`` keeps the first row with the
largest ``by``, and ``top_k(..., ties="first")`` the earliest of the tied rows
at its cut). Within a micro-batch that is the order of the batch, which is the
same when Spark runs the batch again. When accumulators merge (session
windows), the rows of the first accumulator in ``merge``'s order (the earlier
session) rank before equal rows of the later ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from windowing.aggregators.basic import FieldAggregator, require_field
from windowing.aggregators.columns import column_of, values_by_group
from windowing.aggregators.ranks import (
    Selection,
    check_selection,
    group_bounds,
    kept_fields,
    pick,
    pick_rows,
    ranked,
    read,
    total_order,
)
from windowing.arrow_values import python_values

TIES = ("first", "all")


def _check_count(owner: str, name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        msg = f"{owner}: `{name}` must be an int of at least 1; got {value!r} instead"
        raise ValueError(msg)
    return value


@dataclass(frozen=True)
class TopN(FieldAggregator):
    """The ``n`` largest values of ``field``, largest first (cannot retract); the accumulator is that list."""

    n: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_count("top_n", "n", self.n)

    def create(self) -> list[Any]:
        """An empty list."""
        return []

    def add(self, acc: list[Any], tup: Any) -> list[Any]:
        """Insert the value, keep the top ``n`` (None is skipped)."""
        value = tup[self.field]
        if value is None:
            return acc
        return sorted([*acc, value], reverse=True)[: self.n]

    def add_column(self, acc: list[Any], rows: Any) -> list[Any]:
        """Insert the values, keep the top ``n`` (None is skipped)."""
        import numpy as np

        return self.add_groups([acc], rows, np.zeros(rows.num_rows, np.int64))[0]

    def add_groups(self, accs: list[list[Any]], rows: Any, groups: Any) -> list[list[Any]]:
        """Each group's values inserted into its list, the top ``n`` kept (None is skipped)."""
        column = column_of(rows, self.field)
        if not total_order(column) or any(map(_holds_nan, accs)):  # NaN: as add, one value at a time
            out = []
            for acc, values in zip(accs, values_by_group(column, groups, len(accs)), strict=True):
                for value in values:
                    acc = sorted([*acc, value], reverse=True)[: self.n]
                out.append(acc)
            return out
        kept_groups, kept_rows = ranked(column, groups, len(accs), self.n, keep_ties=False, largest=True)
        values = python_values(column.take(kept_rows))
        out = []
        for acc, (start, stop) in zip(accs, group_bounds(kept_groups, len(accs)), strict=True):
            out.append(sorted([*acc, *values[start:stop]], reverse=True)[: self.n] if stop > start else acc)
        return out

    def merge(self, accs: list[list[Any]]) -> list[Any]:
        """The top ``n`` of all."""
        return sorted((v for a in accs for v in a), reverse=True)[: self.n]

    def extract(self, acc: list[Any]) -> list[Any]:
        """The values, largest first."""
        return list(acc)


def _holds_nan(values: list[Any]) -> bool:
    """Whether ``values`` hold a float NaN (which Python's comparisons do not order)."""
    return any(v != v for v in values if isinstance(v, float))


class RankedRows:
    """The best ``k`` rows by ``by``; the accumulator is ``[[by, kept], ...]``, best first, ties by arrival.

    ``kept`` is what :func:`~windowing.aggregators.ranks.pick` keeps of a row
    (``value``); ``keep_ties`` keeps every row equal to the ``k``-th too;
    ``largest``: the largest ``by`` ranks first (else the smallest). Subclasses
    are frozen dataclasses with ``by`` and ``value`` fields.
    """

    by: str
    value: Selection
    k: int = 1
    largest: ClassVar[bool] = True

    @property
    def keep_ties(self) -> bool:
        """Whether rows tied with the ``k``-th are kept too."""
        return False

    @property
    def input_fields(self) -> tuple[str, ...] | None:
        """``by`` and the kept fields (None when the whole tuple is kept: every field)."""
        kept = kept_fields(self.value)
        return None if kept is None else tuple(dict.fromkeys((self.by, *kept)))

    def _above(self, a: Any, b: Any) -> bool:
        """Whether ``by`` value ``a`` ranks strictly before ``b``."""
        return a > b if self.largest else a < b  # type: ignore[no-any-return]

    def create(self) -> list[list[Any]]:
        """No rows."""
        return []

    def add(self, acc: list[list[Any]], tup: Any) -> list[list[Any]]:
        """Insert the row after every kept row ranking at or before it; keep the best ``k`` (and ties)."""
        rank = read(tup, self.by)
        if rank is None:
            return acc
        i = self._slot(acc, rank)
        return acc if i is None else self._trim([*acc[:i], [rank, pick(self.value, tup)], *acc[i:]])

    def _slot(self, acc: list[list[Any]], rank: Any) -> int | None:
        """Where a row ranked ``rank`` goes: after every kept row at or before it; None when it is not kept."""
        i = 0
        while i < len(acc) and not self._above(rank, acc[i][0]):
            i += 1
        if i >= self.k and not (self.keep_ties and not self._above(acc[self.k - 1][0], rank)):
            return None  # below the k-th (and not tied with it, when ties are kept)
        return i

    def _trim(self, entries: list[list[Any]]) -> list[list[Any]]:
        """The first ``k`` entries of a ranked list, and with ``keep_ties`` those tied with the ``k``-th."""
        if len(entries) <= self.k:
            return entries
        stop = self.k
        if self.keep_ties:
            kth = entries[self.k - 1][0]
            while stop < len(entries) and not self._above(kth, entries[stop][0]):
                stop += 1
        return entries[:stop]

    def add_column(self, acc: list[list[Any]], rows: Any) -> list[list[Any]]:
        """The rows inserted as ``add`` of each would insert them."""
        import numpy as np

        return self.add_groups([acc], rows, np.zeros(rows.num_rows, np.int64))[0]

    def add_groups(self, accs: list[list[list[Any]]], rows: Any, groups: Any) -> list[list[list[Any]]]:
        """Each group's rows inserted into its accumulator: one stable sort of ``(group, by, row)``."""
        by = column_of(rows, self.by)
        if not total_order(by) or any(_holds_nan([e[0] for e in acc]) for acc in accs):  # NaN: as add, row by row
            return self._fold_groups(accs, rows, groups, by)
        kept_groups, kept_rows = ranked(by, groups, len(accs), self.k, keep_ties=self.keep_ties, largest=self.largest)
        ranks = python_values(by.take(kept_rows))
        kept = pick_rows(self.value, rows, kept_rows)
        out = []
        for acc, (start, stop) in zip(accs, group_bounds(kept_groups, len(accs)), strict=True):
            if start == stop:
                out.append(acc)
                continue
            entries = [*acc, *([r, v] for r, v in zip(ranks[start:stop], kept[start:stop], strict=True))]
            out.append(self._trim(sorted(entries, key=lambda e: e[0], reverse=self.largest)))
        return out

    def _fold_groups(self, accs: list[Any], rows: Any, groups: Any, by: Any) -> list[Any]:
        """:meth:`add_groups` one row at a time, as ``add`` does (for columns Python orders apart from Arrow)."""
        kept = pick_rows(self.value, rows, range(rows.num_rows))
        out = list(accs)
        for g, rank, value in zip(groups.tolist(), python_values(by), kept, strict=True):
            if rank is not None:
                acc = out[g]
                i = self._slot(acc, rank)
                if i is not None:
                    out[g] = self._trim([*acc[:i], [rank, value], *acc[i:]])
        return out

    def merge(self, accs: list[list[list[Any]]]) -> list[list[Any]]:
        """The best of all, the earlier accumulator's rows first among equals."""
        entries = [e for acc in accs for e in acc]
        return self._trim(sorted(entries, key=lambda e: e[0], reverse=self.largest))

    def extract(self, acc: list[list[Any]]) -> list[Any]:
        """What was kept of each row, best first."""
        return [e[1] for e in acc]


@dataclass(frozen=True)
class TopK(RankedRows):
    """The ``k`` rows with the largest ``by``, largest first: ``top_k(by, k, ties=..., value=...)``.

    ``ties="first"``: exactly ``k`` rows (fewer while the window has fewer), the
    earliest of the tied rows at the cut; ``ties="all"``: every row equal to the
    ``k``-th too, so a window may give more than ``k`` (Nexmark's q7: the bids
    with the highest price, ``top_k("price", 1, ties="all")``).
    """

    by: str
    k: int = 1
    ties: str = "first"
    value: Selection = None

    def __post_init__(self) -> None:
        require_field("top_k", self.by)
        _check_count("top_k", "k", self.k)
        if self.ties not in TIES:
            msg = f"top_k: `ties` must be one of {', '.join(map(repr, TIES))}; got {self.ties!r} instead"
            raise ValueError(msg)
        object.__setattr__(self, "value", check_selection("top_k", self.value))

    @property
    def keep_ties(self) -> bool:
        """With ``ties="all"``."""
        return self.ties == "all"


@dataclass(frozen=True)
class MaxBy(RankedRows):
    """What is kept of the row with the largest ``by`` (the first such row); None for a window without one."""

    value: Selection
    by: str

    def __post_init__(self) -> None:
        require_field(type(self).__name__, self.by)
        object.__setattr__(self, "value", check_selection(type(self).__name__, self.value))

    def extract(self, acc: list[list[Any]]) -> Any:
        """The kept value of the best row, or None."""
        return acc[0][1] if acc else None


@dataclass(frozen=True)
class MinBy(MaxBy):
    """What is kept of the row with the smallest ``by`` (the first such row); None for a window without one."""

    largest: ClassVar[bool] = False
