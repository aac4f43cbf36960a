"""Column kernels both columnar placements share: keys as codes, groups in first-touch order, rows into accumulators.

:mod:`bolts.aggregate.columnar` (fixed, sliding and global windows) and
:mod:`bolts.aggregate.sessions.placing` (session windows) place a batch's rows
with these; each gives what the per-tuple path gives row by row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from windowing.aggregators import read_fields
from windowing.arrow_values import python_values

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    from bolts.aggregate.spec import AggregateSpec


def key_codes(spec: AggregateSpec, table: pa.Table) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
    """A key code per row and the key (the tuple of key values, as a row would give it) of each code."""
    import numpy as np
    import pyarrow.compute as pc

    if spec.key_fields is None:
        return np.zeros(table.num_rows, np.int64), [()]
    combined: Any = None
    dictionaries = []
    for name in spec.key_fields:
        encoded = pc.dictionary_encode(table.column(name).combine_chunks(), null_encoding="encode")
        size = len(encoded.dictionary)
        codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        dictionaries.append((python_values(encoded.dictionary), size))  # keys as a Tuple holds them
        combined = codes if combined is None else combined * size + codes
    if len(dictionaries) == 1:  # the dictionary holds exactly the values present: its codes are the keys'
        return combined, [(value,) for value in dictionaries[0][0]]
    unique, codes = np.unique(combined, return_inverse=True)
    keys = []
    for code in unique.tolist():
        values = []
        for column_values, size in reversed(dictionaries):
            code, index = divmod(code, size)
            values.append(column_values[index])
        keys.append(tuple(reversed(values)))
    return codes.astype(np.int64), keys


def first_touch_groups(group_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's group numbered in first-touch order, and each group's first pair.

    Dense arrays indexed by the ids when they are few (no sort), else a sort.
    """
    import numpy as np

    n = len(group_ids)
    span = int(group_ids.max()) + 1
    positions = np.arange(n)
    if span <= 4 * n + 4096:
        first = np.full(span, n, np.int64)
        np.minimum.at(first, group_ids, positions)
        present = np.flatnonzero(first < n)
        order = present[np.argsort(first[present])]  # firsts are distinct: no ties
        rank = np.empty(span, np.int64)
        rank[order] = np.arange(len(order))
        return rank[group_ids], first[order]
    _, first, inverse = np.unique(group_ids, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty(len(first), np.int64)
    rank[order] = np.arange(len(order))
    return rank[inverse.reshape(-1)], first[order]


def read_columns(spec: AggregateSpec, table: pa.Table) -> pa.Table:
    """The columns of ``table`` the aggregator reads (every one when it reads any field; one when it reads none)."""
    fields = read_fields(spec.aggregator)
    if fields is None:
        return table
    return table.select(list(fields) or ([spec.timestamp_field] if spec.timestamp_field else [0]))


def add_rows(spec: AggregateSpec, rows: pa.Table, accs: list[Any], groups: np.ndarray) -> list[Any] | None:
    """Each accumulator with its rows of ``rows`` added: one ``add_groups`` call, or ``add_column`` per group.

    ``groups[i]`` is the index in ``accs`` of row ``i``'s window; each group's rows
    are in arrival order. None when the aggregator refuses the rows
    (``TypeError`` or ``ValueError``; it must change no accumulator before it
    fails): the caller then places them one by one.
    """
    import numpy as np
    import pyarrow as pa

    aggregator = spec.aggregator
    try:
        if callable(getattr(aggregator, "add_groups", None)):
            return aggregator.add_groups(accs, rows, groups)  # type: ignore[no-any-return]
        order = np.argsort(groups, kind="stable")
        bounds = np.searchsorted(groups[order], np.arange(len(accs) + 1)).tolist()
        return [
            aggregator.add_column(acc, rows.take(pa.array(order[bounds[i] : bounds[i + 1]])))
            if bounds[i + 1] > bounds[i] else acc
            for i, acc in enumerate(accs)
        ]
    except (TypeError, ValueError):
        return None
