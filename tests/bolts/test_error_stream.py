"""``with_error_stream``: every kind of bolt sends the tuples it rejects to a stream, on every path, or fails.

A rejected tuple (a ``TupleError``) is emitted as ``[tuple, component, reason]``
and leaves no trace in the windows; the batch (columnar) paths give exactly what
one tuple at a time gives. Without an error stream the ``TupleError`` is raised.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pytest

from bolts import (
    ERROR_FIELDS,
    BaseBolt,
    BaseStatefulWindowedBolt,
    Fields,
    TaskOptions,
    Tuple,
    TupleError,
    WindowedAggregateBolt,
    make_task,
)
from bolts.task_input import TaskInput
from state_backends import open_backend
from tests.topologies.helpers import Record
from topologies import TopologyBuilder
from topologies.spouts import FileSpout
from topologies.testing import BoltHarness
from windowing import Count, Duration, FixedWindows, aggregators

FIELDS = Fields("key", "ts", "value")

BAD_TS = "with_timestamp_field: the timestamp in 'ts' must be an int of epoch milliseconds or a datetime; got "


def tup(*values, fields=FIELDS):
    return Tuple(list(values), fields, "default", "spout")


def run_task(bolt, batches, *, per_tuple=False, columnar=False, fields=FIELDS, state=None):
    """Emissions of one task over ``batches`` (lists of value rows), delivered as the executor or one by one does."""
    emitted = []
    task = make_task(bolt, TaskOptions(component="bolt", input_streams=[("spout", "default")], store=state,
                                       watermark_at_batch_end=True))
    task.prepare({}, lambda stream, values: emitted.append((stream, values)))
    for rows in batches:
        if per_tuple:
            for values in rows:
                task.execute(tup(*values, fields=fields))
        elif columnar:
            table = pa.table({f: [r[i] for r in rows] for i, f in enumerate(fields)})
            batch = TaskInput()
            batch.append_table("spout", 0, "default", fields, table)
            task.execute_batch(batch)
        else:
            task.execute_batch(TaskInput.of([tup(*values, fields=fields) for values in rows]))
        task.end_batch()
    task.close()
    return emitted, task


def rejected(emitted, stream="bad"):
    return [(values[0].values, values[2]) for s, values in emitted if s == stream]


# Windowed bolts -------------------------------------------------------------------------------------
BATCHES = [[("a", 1_000, 1), ("b", None, 2), ("c", 5_000, 3)],
           [("d", 500, 4), ("e", "soon", 5), ("f", 12_000, 6)]]  # d is late: the watermark is past 1000


def test_an_event_time_window_rejects_bad_timestamps_in_arrival_order_among_late_tuples():
    bolt = (Record().with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts")
            .with_late_tuple_stream("late").with_error_stream("bad"))
    emitted, task = run_task(bolt, BATCHES)
    assert emitted == run_task(bolt, BATCHES, per_tuple=True)[0]  # the batch path gives what one by one gives
    assert [s for s, _ in emitted] == ["bad", "late", "bad", "default", "default"]
    assert rejected(emitted) == [
        (("b", None, 2), f"{BAD_TS}None (NoneType) in Tuple(spout:default, {{'key': 'b', 'ts': None, 'value': 2}})"),
        (("e", "soon", 5), f"{BAD_TS}'soon' (str) in Tuple(spout:default, {{'key': 'e', 'ts': 'soon', 'value': 5}})")]
    assert [values[:3] for s, values in emitted if s == "default"] == [[0, 10_000, [1, 3]], [10_000, 20_000, [6]]]
    assert [values[1] for s, values in emitted if s == "bad"] == ["bolt", "bolt"]
    assert task.rejected_tuples == 2


def test_without_an_error_stream_the_batch_fails_after_the_tuples_before_the_bad_one():
    bolt = Record().with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts")
    with pytest.raises(TupleError, match=re.escape("got None (NoneType) in Tuple(spout:default, {'key': 'b'")):
        run_task(bolt, BATCHES)


class Total(BaseStatefulWindowedBolt):
    def execute(self, window):
        self.collector.emit([sum(t["value"] for t in window.get())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("total"))


@pytest.mark.parametrize(("length", "event_time", "windows"), [
    (Count(2), False, [[50]]),  # fires on arrival: one tuple at a time
    (Count(2), True, [[50]]),
    (Duration.seconds(10), False, []),  # the batch at once (its window fires on a timer, not here)
], ids=["count", "event-time", "processing-time"])
def test_a_message_id_window_rejects_tuples_without_an_int_id(length, event_time, windows):
    fields = Fields("id", "ts", "value")
    bolt = Total().with_tumbling_window(length).with_message_id_field("id").with_error_stream("bad")
    bolt = bolt.with_timestamp_field("ts") if event_time else bolt
    rows = [[1, 1_000, 10], [None, 1_100, 20], ["x", 1_200, 30], [2, 1_300, 40]]

    def run(per_tuple):
        state = open_backend("memory://").namespace("t")
        return run_task(bolt, [rows], per_tuple=per_tuple, fields=fields, state=state)

    emitted, task = run(per_tuple=False)
    assert emitted == run(per_tuple=True)[0]
    assert rejected(emitted) == [
        ((None, 1_100, 20), "with_message_id_field: 'id' must be an int; got None in "
                            "Tuple(spout:default, {'id': None, 'ts': 1100, 'value': 20})"),
        (("x", 1_200, 30), "with_message_id_field: 'id' must be an int; got 'x' in "
                           "Tuple(spout:default, {'id': 'x', 'ts': 1200, 'value': 30})")]
    assert [values for s, values in emitted if s == "default"] == windows
    task.commit(1)  # the held tuples all have ids: the commit writes them


# Windowed aggregations: per tuple and on columns ------------------------------------------------------
def aggregate():
    return (WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
            .with_windows(FixedWindows(Duration.seconds(10))).with_timestamp_field("ts").with_error_stream("bad"))


def test_an_aggregation_rejects_a_value_the_aggregator_refuses_and_leaves_no_window_behind():
    rows = [("a", 1_000, 1), ("z", 2_000, "x"), ("a", None, 5), ("a", 3_000, 2)]
    emitted, _ = run_task(aggregate(), [rows], per_tuple=True)
    assert [values[:4] for s, values in emitted if s == "default"] == [["a", 0, 10_000, 3]]  # no pane for "z"
    assert rejected(emitted) == [
        (("z", 2_000, "x"), "WindowedAggregateBolt: the aggregator Sum(field='value') cannot take "
                            "Tuple(spout:default, {'key': 'z', 'ts': 2000, 'value': 'x'}): unsupported operand "
                            "type(s) for +: 'int' and 'str'"),
        (("a", None, 5), f"{BAD_TS}None (NoneType) in Tuple(spout:default, {{'key': 'a', 'ts': None, 'value': 5}})")]


@pytest.mark.parametrize("rows", [
    [("a", 1_000, 1), ("b", None, 2), ("a", 3_000, 3)],  # a null timestamp: the segment goes one by one
    [("a", 1_000, "1"), ("b", 2_000, "x")],  # a str column the sum refuses: nothing placed, then one by one
], ids=["null-timestamp", "refused-column"])
def test_the_columnar_path_rejects_what_the_per_tuple_path_rejects(rows):
    columnar, task = run_task(aggregate(), [rows], columnar=True)
    assert columnar == run_task(aggregate(), [rows], per_tuple=True)[0]
    assert task.rejected_tuples == sum(1 for r in rows if r[1] is None or isinstance(r[2], str))


def test_the_columnar_path_without_an_error_stream_names_the_tuple_at_fault():
    bolt = (WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
            .with_windows(FixedWindows(Duration.seconds(10))).with_timestamp_field("ts"))
    with pytest.raises(TupleError, match=re.escape("cannot take Tuple(spout:default, {'key': 'a', 'ts': 1000, "
                                                   "'value': '1'})")):
        run_task(bolt, [[("a", 1_000, "1")]], columnar=True)


# Plain bolts ----------------------------------------------------------------------------------------
class Parse(BaseBolt):
    def execute(self, input):
        if not str(input["value"]).isdigit():
            msg = f"Parse: value {input['value']!r} is not a number"
            raise TupleError(msg)
        self.collector.emit([int(input["value"])])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("number"))


def test_a_plain_bolt_that_raises_a_tuple_error_rejects_the_tuple():
    h = BoltHarness(Parse().with_error_stream("bad"), fields=("value",))
    h.feed_batch([["1"], ["one"], ["3"]])
    assert h.emitted[0] == ("default", [1])
    assert h.emitted[1][0] == "bad"
    assert h.emitted[1][1][1:] == ["bolt", "Parse: value 'one' is not a number"]
    assert h.emitted[2] == ("default", [3])
    with pytest.raises(TupleError, match="Parse: value 'one' is not a number"):
        BoltHarness(Parse(), fields=("value",)).feed(["one"])


# Configuration ----------------------------------------------------------------------------------------
def test_the_error_stream_is_declared_and_can_be_subscribed_to():
    b = TopologyBuilder()
    b.set_spout("events", FileSpout("/unused", "json", FIELDS, schema="key STRING, ts BIGINT, value BIGINT"))
    b.set_bolt("w", Record().with_tumbling_window(Count(2)).with_error_stream("bad")).shuffle_grouping("events")
    b.set_bolt("errors", Parse()).fields_grouping("w", Fields("component"), "bad")
    topo = b.create_topology()
    assert topo.streams["w"]["bad"] == Fields(ERROR_FIELDS) == Fields("tuple", "component", "reason")
    assert topo.subscribers[("w", "bad")][0][0] == "errors"


@pytest.mark.parametrize(("stream_id", "error", "message"), [
    (3, TypeError, "with_error_stream: `stream_id` must be a str; got 3 (int) instead"),
    ("", ValueError, "with_error_stream: `stream_id` must not be empty"),
])
def test_a_bad_stream_id_is_refused_at_once(stream_id, error, message):
    with pytest.raises(error, match=re.escape(message)):
        Parse().with_error_stream(stream_id)


@pytest.mark.parametrize(("bolt", "message"), [
    (Record().with_tumbling_window(Count(2)).with_error_stream("default"),
     "with_error_stream: bolt 'x' already declares stream 'default' as Fields('start', 'end', 'values', 'new', "
     "'expired'); choose a stream id that is none of: default"),
    (Record().with_tumbling_window(Count(2)).with_timestamp_field("ts").with_late_tuple_stream("late")
     .with_error_stream("late"),
     "with_error_stream: bolt 'x' already declares stream 'late' as Fields('late_tuple'); choose a stream id that "
     "is none of: default, late"),
    (aggregate().with_error_stream("default"), "with_error_stream: bolt 'x' already declares stream 'default'"),
], ids=["declared", "late", "aggregate-panes"])
def test_an_error_stream_that_clashes_with_a_declared_stream_is_refused_when_the_topology_is_built(bolt, message):
    b = TopologyBuilder()
    b.set_spout("events", FileSpout("/unused", "json", FIELDS, schema="key STRING, ts BIGINT, value BIGINT"))
    b.set_bolt("x", bolt).shuffle_grouping("events")
    with pytest.raises(ValueError, match=re.escape(message)):
        b.create_topology()
    with pytest.raises(ValueError, match="with_error_stream: bolt 'bolt' already declares stream"):
        BoltHarness(bolt, fields=FIELDS)
