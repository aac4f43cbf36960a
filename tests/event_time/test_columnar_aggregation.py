"""A windowed aggregation placed on columns gives exactly what the per-tuple path gives: the oracle is the tuple.

Two tasks of the same bolt see the same batches: one gets each batch as an Arrow
segment (placed by ``bolts.aggregate.columnar``), the other as rows, executed
tuple by tuple. Panes (values, timestamps, pane info, retractions), late tuples,
drop counters and the whole task state must be equal after every batch. Set
``SQUALL_EXAMPLES`` for a longer run (100 examples by default).
"""

from __future__ import annotations

import copy
import os
from unittest import mock

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import Fields, TaskOptions, Tuple, WindowedAggregateBolt, make_task
from bolts.aggregate import row_columns
from bolts.aggregate.columnar import supports, takes, with_row_columns
from bolts.aggregate.spec import OUTPUT_FIELDS
from bolts.task_input import Segment, TaskInput
from windowing import AccumulationMode, Duration, FixedWindows, GlobalWindows, Sessions, SlidingWindows, aggregators
from windowing.triggers import AfterCount, AfterProcessingTime, AfterWatermark, Repeatedly

FIELDS = Fields("key", "k2", "ts", "v")
SCHEMA = pa.schema([("key", pa.string()), ("k2", pa.int64()), ("ts", pa.int64()), ("v", pa.int64())])
FLOAT_SCHEMA = pa.schema([("key", pa.string()), ("k2", pa.int64()), ("ts", pa.int64()), ("v", pa.float64())])

ASSIGNERS = [
    FixedWindows(Duration(1_000)),
    SlidingWindows(Duration(1_000), Duration(300)),
    SlidingWindows(Duration(900), Duration(300)),  # the period divides the size: as many windows for every row
    SlidingWindows(Duration(500), Duration(700)),
    GlobalWindows(),
]  # the last sliding one has gaps


class ColumnOnlySum:
    """A user's aggregator with ``add_column`` but no ``add_groups``: the bolt adds each window's rows apart."""

    input_fields = ("v",)
    _sum = aggregators.sum("v")

    def create(self):
        return 0

    def add(self, acc, tup):
        return self._sum.add(acc, tup)

    def add_column(self, acc, rows):
        return self._sum.add_column(acc, rows)

    def merge(self, accs):
        return self._sum.merge(accs)

    def extract(self, acc):
        return acc


AGGREGATORS = [
    aggregators.count(),
    aggregators.sum("v"),
    aggregators.min("v"),
    aggregators.max("v"),
    aggregators.mean("v"),
    aggregators.collect("v"),
    ColumnOnlySum(),
]
# The ranking and distinct aggregators (issue 36): ties broken by arrival, whole rows kept as dicts.
RANKING = [
    aggregators.top_n("v", 2),
    aggregators.max_by("key", "v"),
    aggregators.min_by(None, "v"),
    aggregators.top_k("v", 2, ties="all", value=["key", "ts"]),
    aggregators.top_k("v", 1),
    aggregators.distinct_count("v"),
]
TRIGGERS = [
    None,
    Repeatedly(AfterCount(3)),
    AfterWatermark(early=AfterProcessingTime(Duration(400)), late=AfterCount(1)),
    # Triggers that finish: later rows of their windows meet a closed window (dropped and counted).
    AfterWatermark(),
    AfterCount(2),
]

rows = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c", None]),
        st.integers(0, 2),
        st.integers(-1_500, 6_000),
        st.none() | st.integers(-50, 50),
    ),
    max_size=25,
)


def bolt_of(
    assigner, aggregator, trigger, mode, lateness, keys, late_stream, combiner="end_of_window",
    closing="fire_if_non_empty", ingress=False,
):
    # The combiner and closing behaviour (issue 14): both paths must add the same holds (element and
    # garbage-collection holds, against each key's output watermark, which the snapshots compare).
    bolt = (
        WindowedAggregateBolt(aggregator, key_fields=keys)
        .with_windows(assigner)
        .with_accumulation_mode(mode)
        .with_lag(Duration(200))
        .with_watermark_interval(Duration(500))
        .with_timestamp_combiner(combiner)
        .with_closing_behavior(closing)
    )
    if not ingress:  # at ingress time every row of a batch has the batch's processing time
        bolt = bolt.with_timestamp_field("ts")
    if not isinstance(assigner, GlobalWindows) or trigger is not None:
        bolt = bolt.with_allowed_lateness(Duration(lateness))
    if trigger is not None:
        bolt = bolt.with_trigger(trigger)
    elif isinstance(assigner, GlobalWindows):
        bolt = bolt.with_trigger(Repeatedly(AfterCount(4)))
    return bolt.with_late_tuple_stream("late") if late_stream else bolt


def task_of(bolt):
    emitted: list = []
    task = make_task(copy.deepcopy(bolt), TaskOptions(component="agg", input_streams=[("spout", "default")],
                                                      watermark_at_batch_end=True))
    task.prepare({}, lambda stream, values: emitted.append((stream, values)))
    return task, emitted


def feed_both(b, columnar, per_tuple):
    """Batch ``b`` into both ``(task, emitted, input)``: the same panes, late tuples, drops and state after it."""
    for task, _, batch_input in (columnar, per_tuple):
        task.advance_to(1_000 * (b + 1))
        if task is columnar[0]:
            task.execute_batch(batch_input)
        else:
            for tup in batch_input.tuples():  # one by one: never placed on columns
                task.execute(tup)
        task.end_batch()
    (ct, c_out, _), (pt, p_out, _) = columnar, per_tuple
    assert c_out == p_out, f"batch {b}"
    assert ct.snapshot() == pt.snapshot(), f"batch {b}"
    assert (ct.late_tuples, ct.closed_window_drops) == (pt.late_tuples, pt.closed_window_drops), f"batch {b}"


@settings(max_examples=int(os.environ.get("SQUALL_EXAMPLES", "100")), deadline=None)
@given(
    batches=st.lists(rows, min_size=1, max_size=6),
    assigner=st.sampled_from(ASSIGNERS),
    aggregator=st.sampled_from(AGGREGATORS + RANKING),
    trigger=st.sampled_from(TRIGGERS),
    mode=st.sampled_from(list(AccumulationMode)),
    lateness=st.sampled_from([0, 700]),
    keys=st.sampled_from([None, ("key",), ("key", "k2")]),
    late_stream=st.booleans(),
    floats=st.booleans(),
    combiner=st.sampled_from(["end_of_window", "earliest", "latest"]),
    closing=st.sampled_from(["fire_if_non_empty", "fire_always"]),
    ingress=st.booleans(),
)
def test_columns_and_tuples_give_the_same_panes_late_tuples_and_state(
    batches, assigner, aggregator, trigger, mode, lateness, keys, late_stream, floats, combiner, closing, ingress
):
    bolt = bolt_of(assigner, aggregator, trigger, mode, lateness, keys, late_stream, combiner, closing, ingress)
    columnar, columnar_out = task_of(bolt)
    per_tuple, per_tuple_out = task_of(bolt)
    assert columnar._columnar
    schema = FLOAT_SCHEMA if floats else SCHEMA
    for b, batch in enumerate(batches):
        data = [(k, k2, ts, None if v is None else (v / 4 if floats else v)) for k, k2, ts, v in batch]
        table = pa.table({f: [row[i] for row in data] for i, f in enumerate(FIELDS)}, schema=schema)
        as_columns = TaskInput()
        as_columns.append_table("spout", 0, "default", FIELDS, table)
        as_tuples = TaskInput.of([Tuple(row, FIELDS, "default", "spout", 0) for row in data])
        feed_both(b, (columnar, columnar_out, as_columns), (per_tuple, per_tuple_out, as_tuples))
    columnar.close()
    per_tuple.close()
    assert columnar_out == per_tuple_out


def test_fixed_sliding_global_and_session_windows_with_a_timestamp_field_and_add_column_take_columns():
    from windowing import Sessions, TimeDifferenceWindows

    base = WindowedAggregateBolt(aggregators.sum("v")).with_timestamp_field("ts")
    assert supports(base.with_windows(FixedWindows(Duration(10))).build_spec("agg"))
    assert supports(base.with_windows(Sessions(Duration(10))).build_spec("agg"))
    assert not supports(base.with_windows(TimeDifferenceWindows(Duration(10), Duration(5))).build_spec("agg"))
    extracted = WindowedAggregateBolt(aggregators.sum("v")).with_timestamp_extractor(lambda t: t["ts"])
    assert not supports(extracted.with_windows(Sessions(Duration(10))).build_spec("agg"))
    ingress = WindowedAggregateBolt(aggregators.count(), key_fields=("key",)).with_windows(FixedWindows(Duration(10)))
    assert supports(ingress.build_spec("agg"))  # ingress time: the batch's processing time for every row
    user = (
        WindowedAggregateBolt(ColumnOnlySum())
        .with_windows(FixedWindows(Duration(10)))
        .with_timestamp_field("ts")
    )
    assert supports(user.build_spec("agg"))  # a user's aggregator with add_column takes the fast path
    per_tuple = (
        WindowedAggregateBolt(PerTupleSum())
        .with_windows(FixedWindows(Duration(10)))
        .with_timestamp_field("ts")
    )
    assert not supports(per_tuple.build_spec("agg"))


class PerTupleSum:
    """A user's aggregator without ``add_column``: the per-tuple path."""

    def create(self):
        return 0

    def add(self, acc, tup):
        return acc + tup["v"]

    def merge(self, accs):
        return sum(accs)

    def extract(self, acc):
        return acc


@pytest.mark.parametrize("aggregator", AGGREGATORS[:-1], ids=lambda a: type(a).__name__)
def test_integer_sums_that_would_overflow_int64_are_added_in_python(aggregator):
    rows = pa.table({"v": pa.array([2**62, 2**62, 2**62, None], pa.int64())})
    acc = aggregator.create()
    expected = acc
    for value in rows.column("v").to_pylist():
        expected = aggregator.add(copy.deepcopy(expected), Tuple([value], Fields("v")))
    assert aggregator.add_column(copy.deepcopy(acc), rows) == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=60), st.sampled_from([1, 1_000_003]))
def test_groups_are_numbered_in_first_touch_order_whether_their_ids_are_dense_or_sparse(ids, spread):
    # Sparse ids (many keys times many windows, few rows) take the sorting branch, dense ones the arrays.
    import numpy as np

    from bolts.aggregate.row_groups import first_touch_groups

    numbers: dict[int, int] = {}
    for i in ids:
        numbers.setdefault(i, len(numbers))
    firsts = [ids.index(i) for i in numbers]
    group_of_pair, first_pair = first_touch_groups(np.array(ids, np.int64) * spread)
    assert group_of_pair.tolist() == [numbers[i] for i in ids]
    assert first_pair.tolist() == firsts


def test_windows_far_apart_in_one_segment_are_grouped_without_overflow():
    # Timestamps 2**60 ms apart: window steps between them do not fit a dense slot table, nor, times the
    # keys, an int64; the windows are numbered by rank instead.
    bolt = bolt_of(FixedWindows(Duration(1_000)), aggregators.sum("v"), None, AccumulationMode.DISCARDING, 0,
                   ("key",), True)
    columnar, columnar_out = task_of(bolt)
    per_tuple, per_tuple_out = task_of(bolt)
    data = [("a", 0, 2**60, 1), ("b", 0, 5, 2), ("a", 0, 7, 3), ("b", 0, 2**60 + 1, 4)]
    table = pa.table({f: [row[i] for row in data] for i, f in enumerate(FIELDS)}, schema=SCHEMA)
    as_columns = TaskInput()
    as_columns.append_table("spout", 0, "default", FIELDS, table)
    columnar.execute_batch(as_columns)
    per_tuple.execute_batch(TaskInput.of([Tuple(row, FIELDS, "default", "spout", 0) for row in data]))
    for task in (columnar, per_tuple):
        task.end_batch()
        task.close()
    assert columnar_out == per_tuple_out
    assert len(columnar_out) == 4


# Panes of an upstream aggregation re-aggregated in their own windows (no assigner), as rows an upstream bolt emits.
PANES = Fields(*OUTPUT_FIELDS)
PANE_AGGREGATORS = [
    aggregators.count(),
    aggregators.sum("value"),
    aggregators.max("value"),
    aggregators.mean("value"),
    aggregators.collect("value"),
    aggregators.top_k("value", 1, ties="all", value=["key", "value"]),
    aggregators.max_by("key", "value"),
    aggregators.distinct_count("value"),
]
WINDOWS = [(0, 1_000), (0, 2_000), (1_000, 2_000), (1_000, 3_000), (2_000, 3_000), (4_000, 5_000)]  # starts shared
ROW_ASSIGNERS = [None, FixedWindows(Duration(1_000)), SlidingWindows(Duration(2_000), Duration(1_000)),
                 Sessions(Duration(500))]
pane_rows = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", None]),
        st.sampled_from(WINDOWS),
        st.integers(0, 999),
        st.none() | st.integers(-50, 50) | st.floats(-50, 50, allow_nan=False),
    ),
    max_size=30,
)


@settings(max_examples=int(os.environ.get("SQUALL_EXAMPLES", "100")), deadline=None)
@given(
    batches=st.lists(pane_rows, min_size=1, max_size=5),
    aggregator=st.sampled_from(PANE_AGGREGATORS),
    mode=st.sampled_from(list(AccumulationMode)),
    lateness=st.sampled_from([0, 1_500]),
    keyed=st.booleans(),
    late_stream=st.booleans(),
    one_type=st.booleans(),
    assigner=st.sampled_from(ROW_ASSIGNERS),
    ingress=st.booleans(),
)
def test_an_upstream_bolts_rows_give_on_columns_what_they_give_one_by_one(
    batches, aggregator, mode, lateness, keyed, late_stream, one_type, assigner, ingress
):
    """Rows as an upstream bolt emits them: placed on columns when they convert exactly, else one by one.

    In the panes' own windows (no assigner), and in windows of their timestamps (sessions held to the batch's
    end) or, with an assigner and no timestamp field, of the batch's processing time (ingress time).
    """
    bolt = (WindowedAggregateBolt(aggregator, key_fields=("key",) if keyed else None)
            .with_accumulation_mode(mode).with_lag(Duration(200)).with_watermark_interval(Duration(500))
            .with_allowed_lateness(Duration(lateness)))
    bolt = bolt if ingress and assigner is not None else bolt.with_timestamp_field("timestamp")
    bolt = bolt if assigner is None else bolt.with_windows(assigner)
    bolt = bolt.with_late_tuple_stream("late") if late_stream else bolt
    columnar, columnar_out = task_of(bolt)
    per_tuple, per_tuple_out = task_of(bolt)
    assert columnar._columnar
    with mock.patch.object(row_columns, "MIN_ROWS", 1):
        for b, batch in enumerate(batches):
            data = [[key, start, end, value if value is None or not one_type else int(value),
                     start + offset % (end - start), {"index": i}, False]
                    for i, (key, (start, end), offset, value) in enumerate(batch)]
            as_rows = TaskInput()
            for row in data:
                as_rows.append_row("counts", 0, "default", PANES, row)
            feed_both(b, (columnar, columnar_out, as_rows), (per_tuple, per_tuple_out, as_rows))
    columnar.close()
    per_tuple.close()
    assert columnar_out == per_tuple_out


def test_an_upstream_bolts_rows_of_one_type_each_are_placed_on_columns_not_one_by_one():
    bolt = WindowedAggregateBolt(aggregators.top_k("value", 1, ties="all", value=["key", "value"])) \
        .with_timestamp_field("timestamp")
    task, emitted = task_of(bolt)
    batch = TaskInput()
    for i in range(row_columns.MIN_ROWS):
        batch.append_row("counts", 0, "default", PANES, [f"a{i % 3}", 0, 1_000, i % 7, 999, {"index": i}, False])
    with mock.patch.object(type(task), "execute", side_effect=AssertionError("a row went one by one")):
        task.advance_to(1_000)
        task.execute_batch(batch)
        task.end_batch()
    task.close()
    (_, pane), = [e for e in emitted if e[0] == "default"]
    sixes = range(6, row_columns.MIN_ROWS, 7)  # the rows holding the largest value, 6
    assert pane[:3] == [None, 0, 1_000]
    assert pane[3] == [{"key": f"a{i % 3}", "value": 6} for i in sixes]  # ties in arrival order


def test_rows_convert_to_columns_only_when_every_value_comes_back_equal_and_of_its_type():
    from bolts.aggregate.row_columns import _column

    assert _column([1, None, 3]).to_pylist() == [1, None, 3]
    assert _column(["a", "b"]).to_pylist() == ["a", "b"]
    assert _column([True, None]).to_pylist() == [True, None]
    for values in ([1, 2.5], [True, 1], [2**63], [(1,), (2,)], [None, None], [], [np.int64(1)]):
        assert _column(values) is None, values


def test_a_segment_with_an_upstream_retraction_or_a_missing_field_stays_rows():
    bolt = WindowedAggregateBolt(aggregators.sum("value")).with_timestamp_field("timestamp")
    spec = bolt.build_spec("agg")
    rows = [["a", 0, 1_000, i, 999, None, i == 70] for i in range(100)]
    segment = Segment("counts", 0, "default", PANES, rows=rows)
    converted = with_row_columns(spec, segment)
    assert converted.table is not None and converted.values() == rows  # tuples are built from the rows
    assert not takes(spec, converted)  # a true is_retraction: one by one
    rows[70][6] = False
    assert takes(spec, with_row_columns(spec, segment))
    fewer = Segment("counts", 0, "default", Fields("key", "window_start", "timestamp", "value"),
                    rows=[["a", 0, 999, 1]] * 100)
    assert with_row_columns(spec, fewer) is fewer  # no window_end: the per-tuple path names it
