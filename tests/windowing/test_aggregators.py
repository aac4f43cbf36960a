"""The ready aggregators against plain Python on random values, split into random partial accumulators.

None values are skipped by every field aggregator (as PySpark's aggregate functions skip nulls)
wherever they come; ``count()`` counts every tuple. Retracting some tuples leaves the aggregate of
the others. ``collect`` appends in place, so the bolt must never let a later tuple change a pane it
already emitted or the value it will retract.
"""

from __future__ import annotations

import builtins
import itertools
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import TupleError
from tests.event_time.helpers import harness, panes, sum_bolt
from windowing import Duration, aggregators
from windowing.accumulation import AccumulationMode
from windowing.aggregators import can_retract
from windowing.assigners import FixedWindows
from windowing.triggers import AfterCount, Repeatedly

values = st.lists(st.none() | st.integers(-50, 50), max_size=30)
cuts = st.lists(st.integers(0, 30), max_size=4)


def reference(name: str, vs: list[int | None]):
    present = [v for v in vs if v is not None]
    if name == "count":
        return len(vs)
    if name == "sum":
        return builtins.sum(present)
    if name in ("min", "max"):
        return getattr(builtins, name)(present) if present else None
    if name == "mean":
        return statistics.fmean(present) if present else None
    if name == "collect":
        return present
    return sorted(present, reverse=True)[:3]  # top_n(..., 3)


def make(name: str):
    return aggregators.count() if name == "count" else (
        aggregators.top_n("v", 3) if name == "top_n" else getattr(aggregators, name)("v"))


NAMES = ["count", "sum", "min", "max", "mean", "collect", "top_n"]


def split(vs: list[int | None], at: list[int]) -> list[list[int | None]]:
    bounds = sorted({0, len(vs), *(c % (len(vs) + 1) for c in at)})
    return [vs[a:b] for a, b in itertools.pairwise(bounds)] or [[]]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(NAMES), values, cuts)
def test_each_aggregator_equals_plain_python_on_the_values_that_are_not_none(name, vs, at):
    agg = make(name)
    parts = []
    for part in split(vs, at):
        acc = agg.create()
        for v in part:
            acc = agg.add(acc, {"v": v})
        parts.append(acc)
    got = agg.extract(agg.merge(parts))
    want = reference(name, vs)
    assert got == pytest.approx(want) if name == "mean" and want is not None else got == want


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([n for n in NAMES if can_retract(make(n))]), values, st.data())
def test_retracting_some_tuples_leaves_the_aggregate_of_the_rest(name, vs, data):
    agg = make(name)
    gone = data.draw(st.lists(st.booleans(), min_size=len(vs), max_size=len(vs)))
    acc = agg.create()
    for v in vs:
        acc = agg.add(acc, {"v": v})
    for v, out in zip(vs, gone, strict=True):
        if out:
            acc = agg.retract(acc, {"v": v})
    rest = [v for v, out in zip(vs, gone, strict=True) if not out]
    got, want = agg.extract(acc), reference(name, rest)
    if name == "collect":
        assert sorted(got) == sorted(want)
    elif name == "mean" and want is not None:
        assert got == pytest.approx(want)
    else:
        assert got == want


def test_a_value_the_aggregator_cannot_combine_fails_the_batch_naming_it():
    h = harness(sum_bolt(FixedWindows(Duration(10))))
    with pytest.raises(TupleError, match=r"the aggregator Sum\(field='v'\) cannot take .*'v': 'x'"):
        h.feed_batch([["a", 1, 3], ["a", 2, "x"]])


def test_collect_never_changes_a_pane_it_emitted_nor_what_it_retracts():
    bolt = (sum_bolt(FixedWindows(Duration(10)), mode=AccumulationMode.ACCUMULATING_AND_RETRACTING,
                     aggregator=aggregators.collect("v"))
            .with_trigger(Repeatedly(AfterCount(1))))
    h = harness(bolt)
    h.feed_batch([["a", 1, 1]])
    first = panes(h)[0]["value"]
    h.feed_batch([["a", 2, None], ["a", 3, 2]])
    h.feed_batch([["a", 4, 3]])
    assert first == [1]
    assert [(p["value"], p["is_retraction"]) for p in panes(h)] == [
        ([1], False), ([1], True), ([1, 2], False), ([1, 2], True), ([1, 2, 3], False),
    ]


INTEGER_TYPES = ["int8", "int64", "uint64"]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["count", "sum", "min", "max", "mean", "collect"]),
    st.sampled_from(INTEGER_TYPES),
    st.lists(st.tuples(st.integers(0, 4), st.none() | st.integers(0, 100)), max_size=40),
    st.lists(st.none() | st.integers(-5, 5), min_size=5, max_size=5),
)
def test_add_groups_on_integer_columns_equals_adding_each_groups_tuples_one_by_one(name, kind, rows, starts):
    # Integer columns are reduced with numpy (issue 22): the same accumulators as folding `add` per group,
    # groups without rows or with only nulls included, from non-empty accumulators too.
    import numpy as np
    import pyarrow as pa

    from bolts import Fields, Tuple

    aggregator = make(name)
    accs = []
    for start in starts:
        acc = aggregator.create()
        if start is not None and name != "collect":  # a window that already took a value (unsigned: >= 0)
            acc = aggregator.add(acc, Tuple([abs(start)], Fields("v")))
        accs.append(acc)
    groups = np.array([g for g, _ in rows], np.int64)
    table = pa.table({"v": pa.array([v for _, v in rows], getattr(pa, kind)())})
    expected = [copy_of(acc) for acc in accs]
    for g, v in rows:
        expected[g] = aggregator.add(expected[g], Tuple([v], Fields("v")))
    assert aggregator.add_groups([copy_of(acc) for acc in accs], table, groups) == expected


def copy_of(acc):
    return list(acc) if isinstance(acc, list) else acc
