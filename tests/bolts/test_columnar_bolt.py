"""A columnar plain bolt under the harness: what ``execute_table`` gets, what ``emit_table`` takes and refuses.

Its emissions equal the same bolt's tuple by tuple; a lone tuple (``feed``, a
tick) reaches it as a table of one row; a bad table is refused at the call,
naming the method and what was wrong; a ``TupleError`` sends every tuple of
the run to the error stream (or fails the batch); a failed tuple fails it.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import BaseBolt, Fields, TupleError, TupleFailedError
from topologies.testing import BoltHarness


class Scale(BaseBolt):
    """Per tuple: ``[key, value * 3]`` for positive values."""

    def execute(self, input):
        if input["value"] > 0:
            self.collector.emit([input["key"], input["value"] * 3])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "value"))


class ColumnarScale(BaseBolt):
    """The same on columns only; what each call got is kept in ``seen``."""

    def prepare(self, conf, context, collector):
        super().prepare(conf, context, collector)
        self.seen = []

    def execute_table(self, input):
        rows = input.to_arrow()
        self.seen.append((input.source_component, input.source_task, input.stream, list(input.fields), len(input)))
        kept = rows.filter(pc.greater(rows["value"], 0))
        self.collector.emit_table(kept.set_column(1, "value", pc.multiply(kept["value"], 3)))

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "value"))


@settings(max_examples=60, deadline=None)
@given(batches=st.lists(st.lists(st.tuples(st.sampled_from("abc"), st.integers(-9, 9)), max_size=8), max_size=4))
def test_a_columnar_bolt_emits_what_the_per_tuple_bolt_emits(batches):
    columnar, per_tuple = BoltHarness(ColumnarScale(), ("key", "value")), BoltHarness(Scale(), ("key", "value"))
    for rows in batches:
        table = pa.table({"key": pa.array([k for k, _ in rows], pa.string()),
                          "value": pa.array([v for _, v in rows], pa.int64())})
        columnar.feed_table(table)
        per_tuple.feed_batch([list(r) for r in rows])
    assert columnar.emitted == per_tuple.emitted
    assert columnar.bolt.seen == [("spout", 0, "default", ["key", "value"], len(r)) for r in batches if r]


def test_a_lone_tuple_reaches_execute_table_as_a_table_of_one_row():
    h = BoltHarness(ColumnarScale(), ("key", "value"))
    h.feed(["a", 2])
    h.feed(["b", -1])
    assert h.emitted == [("default", ["a", 6])]
    assert h.bolt.seen == [("spout", 0, "default", ["key", "value"], 1)] * 2


def test_rows_a_bolt_emitted_one_by_one_become_columns_of_inferred_types():
    seen = []

    class Keep(BaseBolt):
        def execute_table(self, input):
            seen.append(input.to_arrow())

    h = BoltHarness(Keep(), ("key", "at"))
    at = dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
    h.feed(["a", at])
    assert seen[0].to_pylist() == [{"key": "a", "at": at}]
    assert seen[0].schema.field("at").type == pa.timestamp("us", tz="UTC")


def test_a_value_without_an_arrow_type_is_named_when_the_bolt_asks_for_columns():
    class Columns(BaseBolt):
        def execute_table(self, input):
            input.to_arrow()

    h = BoltHarness(Columns(), ("key", "thing"))
    with pytest.raises(ValueError, match=r"to_arrow: the tuples of spout:default \(task 0\) hold values with no "
                                         r"Arrow type .*read them with get\(\)"):
        h.feed(["b", object()])


class Emits(BaseBolt):
    """Emits whatever ``make`` builds from its input table, on ``stream``."""

    def __init__(self, make, stream="default"):
        self.make, self.stream = make, stream

    def execute_table(self, input):
        self.collector.emit_table(self.make(input.to_arrow()), self.stream)

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "value"))
        declarer.declare_stream("direct", True, Fields("key", "value"))


ROWS = pa.table({"key": ["a", "b"], "value": [1, 2]})


@pytest.mark.parametrize(("make", "stream", "error", "message"), [
    (lambda t: t.to_pylist(), "default", TypeError,
     r"emit_table: `table` must be a pyarrow.Table; bolt 'bolt' passed \[\{'key': 'a'"),
    (lambda t: t.select(["value", "key"]), "default", ValueError,
     r"emit_table: stream 'default' of bolt 'bolt' has the fields \['key', 'value'\]; the table's columns are "
     r"\['value', 'key'\] \(select or rename them to match, in order\)"),
    (lambda t: t.select(["key"]), "default", ValueError, r"the table's columns are \['key'\]"),
    (lambda t: t, "nowhere", ValueError, r"emit_table: bolt 'bolt' has no stream 'nowhere'; it declares "
                                         r"\['default', 'direct'\]"),
    (lambda t: t, "direct", ValueError, r"emit_table: stream 'direct' of bolt 'bolt' is declared direct; send its "
                                        r"tuples with emit_direct\(task_id, 'direct', values\)"),
])
def test_a_bad_table_is_refused_at_emit_table_naming_what_is_wrong(make, stream, error, message):
    h = BoltHarness(Emits(make, stream), ("key", "value"))
    with pytest.raises(error, match=message):
        h.feed_table(ROWS)
    assert h.emitted == []


def test_an_empty_table_emits_nothing():
    h = BoltHarness(Emits(lambda t: t.slice(0, 0)), ("key", "value"))
    h.feed_table(ROWS)
    assert h.emitted == []


class Refuses(BaseBolt):
    """Raises a TupleError for a run holding a negative value, fails the run's first tuple when it holds a zero."""

    def execute_table(self, input):
        values = input.to_arrow()["value"].to_pylist()
        if min(values) < 0:
            raise TupleError("a negative value")
        if 0 in values:
            self.collector.fail(input.get()[0])
        self.collector.emit_table(input.to_arrow())

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "value"))


def test_a_tuple_error_sends_every_tuple_of_the_run_to_the_error_stream():
    h = BoltHarness(Refuses().with_error_stream("errors"), ("key", "value"))
    h.feed_table(pa.table({"key": ["a", "b"], "value": [1, -1]}))
    h.feed_table(ROWS)
    assert [(s, v[0].values, v[1], v[2]) for s, v in h.emitted[:2]] == [
        ("errors", ("a", 1), "bolt", "a negative value"), ("errors", ("b", -1), "bolt", "a negative value")]
    assert h.emitted[2:] == [("default", ["a", 1]), ("default", ["b", 2])]
    assert h.task.rejected_tuples == 2


def test_without_an_error_stream_a_tuple_error_fails_the_batch_and_a_failed_tuple_too():
    with pytest.raises(TupleError, match="a negative value"):
        BoltHarness(Refuses(), ("key", "value")).feed_table(pa.table({"key": ["a"], "value": [-1]}))
    with pytest.raises(TupleFailedError, match=r"bolt 'bolt' task 0 failed tuple .*'key': 'a', 'value': 0"):
        BoltHarness(Refuses(), ("key", "value")).feed_table(pa.table({"key": ["a", "b"], "value": [0, 1]}))


def test_feed_table_refuses_a_table_without_the_streams_fields():
    h = BoltHarness(ColumnarScale(), ("key", "value"))
    with pytest.raises(ValueError, match=r"BoltHarness.feed_table: `table` must be a pyarrow.Table with the columns "
                                         r"\['key', 'value'\]; got \['value', 'key'\]"):
        h.feed_table(ROWS.select(["value", "key"]))


def test_a_column_whose_values_cannot_travel_is_refused_naming_it():
    table = pa.table({"key": ["a"], "value": pa.array([Decimal("1.5")], pa.decimal128(5, 2))})
    h = BoltHarness(Emits(lambda t: table), ("key", "value"))
    with pytest.raises(TypeError, match=r"emit_table: column 'value' of stream 'default' of bolt 'bolt' is of type "
                                        r"decimal128\(5, 2\), whose decimal128\(5, 2\) values cannot travel"):
        h.feed_table(ROWS)
    nested = pa.table({"key": ["a"], "value": pa.array([[dt.timedelta(1)]], pa.list_(pa.duration("s")))})
    with pytest.raises(TypeError, match=r"is of type list<item: duration\[s\]>, whose duration\[s\] values"):
        BoltHarness(Emits(lambda t: nested), ("key", "value")).feed_table(ROWS)


def test_a_stream_without_fields_gives_a_table_of_as_many_rows_as_tuples():
    seen = []

    class Count(BaseBolt):
        def execute_table(self, input):
            seen.append((len(input), input.to_arrow().num_rows))

    h = BoltHarness(Count(), fields=())
    h.feed([])
    h.feed_batch([[], []])
    assert seen == [(1, 1), (1, 1), (1, 1)]


def test_feed_table_refuses_a_record_batch():
    with pytest.raises(ValueError, match=r"BoltHarness.feed_table: `table` must be a pyarrow\.Table"):
        BoltHarness(ColumnarScale(), ("key", "value")).feed_table(ROWS.to_batches()[0])


def test_values_python_cannot_hold_are_refused_at_emit_table_not_when_read():
    far = pa.table({"key": ["a"], "value": pa.array([3_000_000], pa.date32())})
    with pytest.raises(ValueError, match=r"emit_table: column 'value' of stream 'default' of bolt 'bolt' holds "
                                         r"3000000 \(date32\[day\] units from the epoch\), outside the years 1-9999"):
        BoltHarness(Emits(lambda t: far), ("key", "value")).feed_table(ROWS)
    nanos = pa.table({"key": ["a"], "value": pa.array([1], pa.timestamp("ns", "UTC"))})
    with pytest.raises(TypeError, match=r"is of type timestamp\[ns, tz=UTC\], whose timestamp\[ns, tz=UTC\] values"):
        BoltHarness(Emits(lambda t: nanos), ("key", "value")).feed_table(ROWS)
    near = pa.table({"key": ["a"], "value": pa.array([2_932_896], pa.date32())})  # 9999-12-31 travels
    h = BoltHarness(Emits(lambda t: near), ("key", "value"))
    h.feed_table(ROWS)
    assert h.emitted == [("default", ["a", dt.date(9999, 12, 31)])]
