"""max_by, min_by, top_k (with ties), top_n and distinct_count: columns against tuples, and against plain Python.

Their ``add`` is the oracle: ``add_column`` and ``add_groups`` must return what
folding ``add`` over each group's rows gives, on integer, string, float (NaN
included) and timestamp columns, with nulls, from accumulators that already
hold rows. ``add`` itself is checked against a brute-force reading of the
documented rules (ties by arrival), ``merge`` against one fold over all rows,
and accumulators must survive msgpack, as the store keeps them. ``SQUALL_EXAMPLES``
sets the number of examples of the property tests (100 by default).
"""

from __future__ import annotations

import copy
import itertools
import math
import os
from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import Fields, Tuple
from bolts.codecs.value_codec import pack_value, unpack_value
from windowing import aggregators
from windowing.arrow_values import python_values

FIELDS = Fields("key", "p", "v")
KINDS = ["int", "str", "float", "timestamp"]


def _value(kind, n):
    if n is None:
        return None
    if kind == "int":
        return n
    if kind == "str":
        return f"s{n:03d}"
    if kind == "float":
        return math.nan if n == 7 else n / 2
    return datetime.fromtimestamp(n, UTC)


def _arrow_type(kind):
    return {"int": pa.int64(), "str": pa.string(), "float": pa.float64(), "timestamp": pa.timestamp("us", "UTC")}[kind]


def make(name):
    return {
        "max_by": aggregators.max_by("key", "p"),
        "min_by": aggregators.min_by(["key", "v"], "p"),
        "max_by_row": aggregators.max_by(None, "p"),
        "top_k_first": aggregators.top_k("p", 2),
        "top_k_all": aggregators.top_k("p", 2, ties="all", value="key"),
        "top_k_1_all": aggregators.top_k("p", 1, ties="all"),
        "top_n": aggregators.top_n("p", 3),
        "distinct_count": aggregators.distinct_count("p"),
    }[name]


NAMES = ["max_by", "min_by", "max_by_row", "top_k_first", "top_k_all", "top_k_1_all", "top_n", "distinct_count"]
rows_strategy = st.lists(
    st.tuples(st.integers(0, 3), st.sampled_from(["a", "b", None]), st.none() | st.integers(0, 9), st.integers(0, 5)),
    max_size=40,
)


def _table_and_tuples(kind, rows):
    data = [(key, _value(kind, p), v) for _, key, p, v in rows]
    table = pa.table({"key": pa.array([d[0] for d in data], pa.string()),
                      "p": pa.array([d[1] for d in data], _arrow_type(kind)),
                      "v": pa.array([d[2] for d in data], pa.int64())})
    # The tuples a task builds from the table (zoned timestamps in UTC, as windowing.arrow_values reads them).
    values = list(zip(*(python_values(table.column(i)) for i in range(3)), strict=True)) if data else []
    return table, [Tuple(list(vs), FIELDS) for vs in values]


def _same(a, b):
    """Equal, NaN equal to NaN (a pickled NaN in a kept row compares unequal to itself)."""
    return pack_value(a) == pack_value(b)


@settings(max_examples=int(os.environ.get("SQUALL_EXAMPLES", "100")), deadline=None)
@given(st.sampled_from(NAMES), st.sampled_from(KINDS), rows_strategy, st.lists(st.integers(0, 9), max_size=4))
def test_add_groups_and_add_column_equal_folding_add(name, kind, rows, seed):
    aggregator = make(name)
    table, tuples = _table_and_tuples(kind, rows)
    accs = []
    for g in range(4):  # windows that already took rows (the first ones the seed rows)
        acc = aggregator.create()
        for tup in (_table_and_tuples(kind, [(0, "z", s, g) for s in seed])[1] if g < 2 else []):
            acc = aggregator.add(acc, tup)
        accs.append(acc)
    expected = copy.deepcopy(accs)
    for (g, *_), tup in zip(rows, tuples, strict=True):
        expected[g] = aggregator.add(expected[g], tup)
    groups = np.array([g for g, *_ in rows], np.int64)
    assert _same(aggregator.add_groups(copy.deepcopy(accs), table, groups), expected)
    for g in range(4):
        mine = table.filter(pa.array(groups == g)) if len(rows) else table
        if mine.num_rows:
            assert _same(aggregator.add_column(copy.deepcopy(accs[g]), mine), expected[g])


@settings(max_examples=int(os.environ.get("SQUALL_EXAMPLES", "100")), deadline=None)
@given(st.sampled_from(NAMES), rows_strategy, st.lists(st.integers(0, 40), max_size=3))
def test_merging_parts_in_order_equals_one_fold(name, rows, cuts):
    aggregator = make(name)
    _, tuples = _table_and_tuples("int", rows)
    bounds = sorted({0, len(tuples), *(c % (len(tuples) + 1) for c in cuts)})
    parts = []
    for a, b in itertools.pairwise(bounds):
        acc = aggregator.create()
        for tup in tuples[a:b]:
            acc = aggregator.add(acc, tup)
        parts.append(acc)
    whole = aggregator.create()
    for tup in tuples:
        whole = aggregator.add(whole, tup)
    merged = aggregator.merge(parts or [aggregator.create()])
    assert aggregator.extract(merged) == aggregator.extract(whole)


@settings(max_examples=int(os.environ.get("SQUALL_EXAMPLES", "100")), deadline=None)
@given(rows_strategy, st.integers(1, 4), st.sampled_from(["first", "all"]))
def test_top_k_keeps_the_largest_ties_by_arrival(rows, k, ties):
    _, tuples = _table_and_tuples("int", rows)
    aggregator = aggregators.top_k("p", k, ties=ties, value=["key", "v"])
    acc = aggregator.create()
    for tup in tuples:
        acc = aggregator.add(acc, tup)
    present = [(t["p"], i) for i, t in enumerate(tuples) if t["p"] is not None]
    ranked = sorted(present, key=lambda e: (-e[0], e[1]))  # largest first, earlier first among equals
    chosen = ranked[:k]
    if ties == "all" and len(ranked) > k:
        chosen = [e for e in ranked if e[0] >= ranked[k - 1][0]]
    assert aggregator.extract(acc) == [{"key": tuples[i]["key"], "v": tuples[i]["v"]} for _, i in chosen]


@settings(max_examples=100, deadline=None)
@given(rows_strategy)
def test_max_by_and_min_by_keep_the_first_tuple_with_the_extreme(rows):
    _, tuples = _table_and_tuples("int", rows)
    present = [(t["p"], i) for i, t in enumerate(tuples) if t["p"] is not None]
    for aggregator, pick in ((aggregators.max_by("v", "p"), max), (aggregators.min_by("v", "p"), min)):
        acc = aggregator.create()
        for tup in tuples:
            acc = aggregator.add(acc, tup)
        if not present:
            assert aggregator.extract(acc) is None
            continue
        best = pick(p for p, _ in present)
        first = next(i for p, i in present if p == best)
        assert aggregator.extract(acc) == tuples[first]["v"]


def test_max_by_keeps_the_whole_tuple_as_a_dict():
    aggregator = aggregators.max_by(None, "p")
    acc = aggregator.create()
    for values in (["a", 3, 1], ["b", 5, 2], ["c", 5, 3]):
        acc = aggregator.add(acc, Tuple(values, FIELDS))
    assert aggregator.extract(acc) == {"key": "b", "p": 5, "v": 2}
    assert aggregator.input_fields is None  # it reads every field


@settings(max_examples=100, deadline=None)
@given(rows_strategy, st.data())
def test_distinct_count_counts_values_and_retracts_one_tuple_at_a_time(rows, data):
    _, tuples = _table_and_tuples("int", rows)
    aggregator = aggregators.distinct_count("p")
    acc = aggregator.create()
    for tup in tuples:
        acc = aggregator.add(acc, tup)
    assert aggregator.extract(acc) == len({t["p"] for t in tuples if t["p"] is not None})
    gone = data.draw(st.lists(st.booleans(), min_size=len(tuples), max_size=len(tuples)))
    for tup, out in zip(tuples, gone, strict=True):
        if out:
            acc = aggregator.retract(acc, tup)
    rest = {t["p"] for t, out in zip(tuples, gone, strict=True) if not out and t["p"] is not None}
    assert aggregator.extract(acc) == len(rest)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_accumulators_are_plain_data_that_survive_the_store(name, kind):
    aggregator = make(name)
    _, tuples = _table_and_tuples(kind, [(0, "a", 3, 1), (0, "b", 5, 2), (0, None, 5, 3), (0, "c", None, 4)])
    acc = aggregator.create()
    for tup in tuples:
        acc = aggregator.add(acc, tup)
    back = unpack_value(pack_value(acc))
    assert _same(aggregator.extract(back), aggregator.extract(acc))
    more = Tuple(["d", _value(kind, 9), 5], FIELDS)
    assert _same(aggregator.add(back, more), aggregator.add(acc, more))


def test_bad_settings_are_refused_naming_the_factory():
    with pytest.raises(ValueError, match=r"top_k: `ties` must be one of 'first', 'all'; got 'some' instead"):
        aggregators.top_k("p", 1, ties="some")
    with pytest.raises(ValueError, match=r"top_k: `k` must be an int of at least 1; got 0 instead"):
        aggregators.top_k("p", 0)
    with pytest.raises(TypeError, match=r"MaxBy: `value` must be a field name, a non-empty list of field names"):
        aggregators.max_by(3, "p")
    with pytest.raises(TypeError, match=r"MinBy: `field` must be a non-empty str; got None instead"):
        aggregators.min_by("v", None)


def test_the_ready_aggregators_are_columnar_and_only_some_retract():
    for name in NAMES:
        assert isinstance(make(name), aggregators.GroupedAggregator), name
    retracting = [n for n in NAMES if isinstance(make(n), aggregators.RetractingAggregator)]
    assert retracting == ["distinct_count"]
