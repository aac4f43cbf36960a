"""Session windows placed on columns give exactly what the per-tuple path gives: the oracle is the tuple.

Two tasks of the same bolt see the same batches. One gets each batch as Arrow
segments (cut at random points; sometimes one of them as rows, which sends the
batch one tuple at a time), placed by ``bolts.aggregate.sessions.placing``; the
other gets the rows as tuples, held and merged tuple by tuple. Panes (values,
timestamps, pane info, retractions of merged sessions), late tuples,
closed-window drops and the whole task state must be equal after every batch,
with Beam's rules and with Spark's (``with_spark_semantics``: touching sessions
merge, lateness judged by the batch before), for random triggers (those that
finish leave closed sessions that later merges land on), accumulation modes,
allowed lateness, keys and timestamp combiners. ``SQUALL_EXAMPLES`` sets the
number of examples (100 by default).
"""

from __future__ import annotations

import itertools
import os

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import Fields, Tuple, TupleError, WindowedAggregateBolt
from bolts.task_input import TaskInput
from tests.event_time.test_columnar_aggregation import RANKING, ColumnOnlySum, feed_both, task_of
from tests.event_time.test_property_triggers import triggers
from windowing import AccumulationMode, Duration, Sessions, aggregators
from windowing.triggers import AfterAny, AfterCount, AfterProcessingTime, AfterWatermark, Repeatedly

FIELDS = Fields("key", "k2", "ts", "v")
SCHEMA = pa.schema([("key", pa.string()), ("k2", pa.int64()), ("ts", pa.int64()), ("v", pa.int64())])
GAP = 100

AGGREGATORS = [
    aggregators.count(),
    aggregators.sum("v"),
    aggregators.max("v"),
    aggregators.mean("v"),
    aggregators.collect("v"),
    ColumnOnlySum(),
    *RANKING,
]
SESSION_TRIGGERS = st.sampled_from([
    None,
    Repeatedly(AfterCount(2)),
    AfterWatermark(early=AfterProcessingTime(Duration(300)), late=AfterCount(1)),
    AfterWatermark(),  # finishes on time: later tuples next to it open sessions beside it
    AfterCount(2),  # finishes early: merges land on closed sessions
    AfterAny(AfterProcessingTime(Duration(500)), AfterWatermark()),
]) | triggers

row = st.tuples(
    st.sampled_from(["a", "b", "c", None]),
    st.integers(0, 1),
    st.integers(-300, 2_500),  # a few gaps' worth: sessions extend, merge and bridge
    st.none() | st.integers(-50, 50),
)
batch = st.tuples(st.lists(row, max_size=30), st.lists(st.integers(0, 30), max_size=3), st.booleans())


def bolt_of(aggregator, trigger, mode, lateness, keys, late_stream, combiner, spark, ingress=False):
    bolt = (
        WindowedAggregateBolt(aggregator, key_fields=keys)
        .with_windows(Sessions(Duration(GAP)))
        .with_accumulation_mode(mode)
        .with_lag(Duration(150))
        .with_allowed_lateness(Duration(lateness))
        .with_timestamp_combiner(combiner)
    )
    if not ingress:  # at ingress time every row of a batch has the batch's processing time
        bolt = bolt.with_timestamp_field("ts")
    if spark and not ingress:  # Spark's semantics need event time
        bolt = bolt.with_spark_semantics()
    else:
        bolt = bolt.with_watermark_interval(Duration(500))
    if trigger is not None:
        bolt = bolt.with_trigger(trigger)
    return bolt.with_late_tuple_stream("late") if late_stream else bolt


def segments_of(rows, cuts, one_as_rows):
    """The batch as Arrow segments cut at ``cuts`` (the last one as rows when ``one_as_rows``), and as tuples."""
    bounds = sorted({0, len(rows), *(c % (len(rows) + 1) for c in cuts)})
    as_columns = TaskInput()
    for i, (a, b) in enumerate(itertools.pairwise(bounds)):
        part = rows[a:b]
        if one_as_rows and i == len(bounds) - 2:
            for values in part:
                as_columns.append_row("spout", 0, "default", FIELDS, values)
        else:
            table = pa.table({f: [r[j] for r in part] for j, f in enumerate(FIELDS)}, schema=SCHEMA)
            as_columns.append_table("spout", 0, "default", FIELDS, table)
    return as_columns, TaskInput.of([Tuple(r, FIELDS, "default", "spout", 0) for r in rows])


def run_both(bolt, batches):
    """Feed both tasks; assert equal after every batch and after close; the columnar task."""
    columnar, columnar_out = task_of(bolt)
    per_tuple, per_tuple_out = task_of(bolt)
    assert columnar._columnar
    per_tuple._columnar = False  # the oracle: every tuple one by one
    for b, (rows, cuts, one_as_rows) in enumerate(batches):
        as_columns, as_tuples = segments_of(rows, cuts, one_as_rows)
        feed_both(b, (columnar, columnar_out, as_columns), (per_tuple, per_tuple_out, as_tuples))
    columnar.close()
    per_tuple.close()
    assert columnar_out == per_tuple_out
    return columnar_out


@settings(max_examples=int(os.environ.get("SQUALL_EXAMPLES", "100")), deadline=None)
@given(
    batches=st.lists(batch, min_size=1, max_size=6),
    aggregator=st.sampled_from(AGGREGATORS),
    trigger=SESSION_TRIGGERS,
    mode=st.sampled_from(list(AccumulationMode)),
    lateness=st.sampled_from([0, 300]),
    keys=st.sampled_from([None, ("key",), ("key", "k2")]),
    late_stream=st.booleans(),
    combiner=st.sampled_from(["end_of_window", "earliest", "latest"]),
    spark=st.booleans(),
    ingress=st.booleans(),
)
def test_sessions_on_columns_and_tuple_by_tuple_give_the_same_panes_late_tuples_and_state(
    batches, aggregator, trigger, mode, lateness, keys, late_stream, combiner, spark, ingress
):
    run_both(bolt_of(aggregator, trigger, mode, lateness, keys, late_stream, combiner, spark, ingress), batches)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5_000), min_size=1, max_size=200), st.integers(1, 6), st.booleans())
def test_many_keys_and_large_batches(stamps, split, spark):
    # Many keys (one in seven rows a new one), few timestamps per key, batches of tens to hundreds of rows.
    rows = [(f"k{i % 37}", i % 2, ts, i) for i, ts in enumerate(stamps)]
    size = max(1, len(rows) // split)
    batches = [(rows[i : i + size], [size // 3], False) for i in range(0, len(rows), size)]
    bolt = bolt_of(aggregators.count(), Repeatedly(AfterCount(3)), AccumulationMode.ACCUMULATING_AND_RETRACTING,
                   300, ("key",), True, "earliest", spark)
    run_both(bolt, batches)


def test_merges_retract_the_parts_and_late_rows_go_to_the_late_stream():
    # Two sessions; the watermark (lag 150) closes [0, 100) at the end of the first batch. The second batch
    # makes one run [80, 360) that merges with the open [300, 400) (retracting its pane); a row at 10 is late.
    bolt = bolt_of(aggregators.sum("v"), Repeatedly(AfterCount(1)), AccumulationMode.ACCUMULATING_AND_RETRACTING,
                   0, ("key",), True, "end_of_window", False)
    batches = [([("a", 0, 0, 1), ("a", 0, 300, 2)], [], False),
               ([("a", 0, 80, 4), ("a", 0, 170, 8), ("a", 0, 260, 16)], [1], False),
               ([("a", 0, 2_000, 32), ("a", 0, 10, 64)], [], False)]
    out = run_both(bolt, batches)
    panes = [(v[1], v[2], v[3], v[6]) for stream, v in out if stream == "default"]
    assert panes[:6] == [(0, 100, 1, False), (300, 400, 2, False), (0, 100, 1, True), (0, 100, 1, False),
                         (300, 400, 2, True), (80, 400, 30, False)]
    late = [v[0] for stream, v in out if stream == "late"]
    assert [t["ts"] for t in late] == [10]


class Strict(ColumnOnlySum):
    """A sum that refuses a value of 13: on columns too (``add_column`` raises before changing anything)."""

    def __repr__(self):
        return "Strict()"

    def add(self, acc, tup):
        if tup["v"] == 13:
            raise ValueError("13 is refused")
        return super().add(acc, tup)

    def add_column(self, acc, rows):
        if 13 in rows.column("v").to_pylist():
            raise ValueError("13 is refused")
        return super().add_column(acc, rows)


@pytest.mark.parametrize("error_stream", [False, True])
def test_a_row_the_aggregator_refuses_is_rejected_as_tuple_by_tuple(error_stream):
    bolt = bolt_of(Strict(), Repeatedly(AfterCount(1)), AccumulationMode.ACCUMULATING, 0, ("key",), False,
                   "end_of_window", False)
    if error_stream:
        bolt = bolt.with_error_stream("errors")
    batches = [([("a", 0, 0, 1), ("b", 0, 10, 2)], [], False), ([("a", 0, 50, 13), ("a", 0, 60, 4)], [], False)]
    if error_stream:
        out = run_both(bolt, batches)
        assert [v[0]["v"] for stream, v in out if stream == "errors"] == [13]
        return
    with pytest.raises(TupleError, match="13 is refused"):
        run_both(bolt, batches)
