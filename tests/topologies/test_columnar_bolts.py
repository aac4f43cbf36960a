"""A columnar bolt (``execute_table`` / ``emit_table``) in a topology gives what the same bolt tuple by tuple gives.

The batch loop runs, without Spark, a topology whose first bolt is columnar,
and the same topology with a bolt that computes the same per tuple: every
downstream bolt (a plain bolt, a windowed bolt holding the tables, a
columnar aggregation, another columnar bolt) and every output must be equal,
and a batch run again after a crash (its committed tables re-sent) too.
"""

from __future__ import annotations

import itertools

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import BaseBolt, Fields, WindowedAggregateBolt
from tests.topologies.helpers import FIELDS, START, STEP, Record, loop_of
from topologies import TopologyBuilder
from topologies.spouts import FileSpout
from windowing import Duration, FixedWindows, aggregators

OUT_FIELDS = Fields("key", "ts", "value")


class DoubleOdd(BaseBolt):
    """Per tuple: odd values doubled on the default stream; even ones, as they are, on ``even`` (an output)."""

    def execute(self, input):
        key, ts, value = input.values
        if value % 2:
            self.collector.emit([key, ts, value * 2])
        else:
            self.collector.emit("even", [key, ts, value])

    def declare_output_fields(self, declarer):
        declarer.declare(OUT_FIELDS)
        declarer.declare_stream("even", OUT_FIELDS)


class ColumnarDoubleOdd(DoubleOdd):
    """The same on columns: two tables per run (so the streams' rows come in another order within a run)."""

    def execute_table(self, input):
        rows = input.to_arrow()
        odd = pc.equal(pc.bit_wise_and(rows["value"], 1), 1)
        doubled = rows.filter(odd)
        doubled = doubled.set_column(2, "value", pc.multiply(doubled["value"], 2))
        self.collector.emit_table(doubled)
        self.collector.emit_table(rows.filter(pc.invert(odd)), "even")


class Echo(BaseBolt):
    """Per tuple: the tuple with the task that got it."""

    def prepare(self, conf, context, collector):
        super().prepare(conf, context, collector)
        self.task = context.get_this_task_index()

    def execute(self, input):
        self.collector.emit([self.task, *input.values])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("task", *OUT_FIELDS))


class ColumnarEcho(Echo):
    """The same on columns, downstream of the first bolt: its input tables are what that bolt emitted."""

    def execute_table(self, input):
        rows = input.to_arrow()
        self.collector.emit_table(rows.add_column(0, "task", pa.array([self.task] * len(rows), pa.int64())))


def spout():
    return FileSpout("/unused", "json", FIELDS, schema="key STRING, ts BIGINT, value BIGINT")


def topology(first: type[BaseBolt]):
    b = TopologyBuilder()
    b.set_spout("events", spout())
    b.set_bolt("first", first(), 2).shuffle_grouping("events")
    b.set_bolt("echo", Echo(), 3).shuffle_grouping("first")
    b.set_bolt("columnar_echo", ColumnarEcho(), 2).fields_grouping("first", Fields("key"))
    b.set_bolt("win", Record().with_tumbling_window(Duration.seconds(2)).with_timestamp_field("ts"), 2) \
        .fields_grouping("first", Fields("key"))
    b.set_bolt("sums", WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
               .with_windows(FixedWindows(Duration.seconds(2))).with_timestamp_field("ts"), 2) \
        .fields_grouping("first", Fields("key"))
    return b.create_topology()


def run(first: type[BaseBolt], batches, again=()):
    loop = loop_of(topology(first), itertools.count(START, STEP))
    for b, rows in enumerate(batches):
        loop.run(b, {"events": rows})
        if b in again:
            loop.run(b, {"events": rows})  # the same batch id again, as after a crash before Spark's commit
    loop.flush()
    return [(o.component, o.task, o.stream, o.values) for o in loop.log.all()]


row = st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 9_000), st.integers(-50, 50)).map(list)


@settings(max_examples=25, deadline=None)
@given(batches=st.lists(st.lists(row, max_size=15), min_size=1, max_size=4), again=st.sets(st.integers(0, 3)))
def test_a_columnar_bolt_gives_every_downstream_bolt_and_output_what_the_per_tuple_bolt_gives(batches, again):
    expected = run(DoubleOdd, batches)
    got = run(ColumnarDoubleOdd, batches, again)
    assert sorted(got, key=repr) == sorted(expected, key=repr)
    by_component = lambda outs, c: [o for o in outs if o[0] == c]  # noqa: E731
    for component in ("echo", "columnar_echo", "win", "sums"):  # one source stream each: same order too
        assert by_component(got, component) == by_component(expected, component), component


class KeptSink:
    """A sink that keeps ``first:even`` on the executors (as a ``TableSink`` does) and records what it reads."""

    name = "kept"
    streams = frozenset({"first:even"})
    schemas: dict = {}
    keeps_on_executors = True

    def __init__(self) -> None:
        self.records: list = []

    def write(self, batch):
        self.records += [(o.component, o.task, o.stream, o.values) for o in batch.records(self.streams)]


def run_with_sink(first: type[BaseBolt], batches, mode: str, tmp_path):
    import uuid

    from topologies.engine.placements import chunks
    from topologies.engine.placements.local_frames import LocalFrames

    sink = KeptSink()
    options = {} if mode == "driver" else {
        "mode": "distributed", "backend": chunks.worker_backend("memory://"), "state_url": "memory://",
        "name": f"kept-{uuid.uuid4().hex[:6]}", "frames": LocalFrames()}
    loop = loop_of(topology(first), itertools.count(START, STEP), tmp_path / uuid.uuid4().hex, sinks=[sink], **options)
    for b, rows in enumerate(batches):
        loop.run(b, {"events": rows})
    loop.flush()
    return sink, [(o.component, o.task, o.stream, o.values) for o in loop.log.all()]


def test_a_table_on_a_stream_a_sink_keeps_on_the_executors_reaches_it_as_rows_in_both_modes(tmp_path):
    batches = [[["a", 100, 3], ["b", 2500, 4], ["a", 4100, 6], ["c", 300, 7]], [["a", 6100, 8], ["b", 8000, 1]]]
    reference, reference_log = run_with_sink(DoubleOdd, batches, "driver", tmp_path)
    assert sorted(v for *_, v in reference.records) == [["a", 4100, 6], ["a", 6100, 8], ["b", 2500, 4]]
    for first in (DoubleOdd, ColumnarDoubleOdd):
        for mode in ("driver", "distributed"):
            sink, log = run_with_sink(first, batches, mode, tmp_path)
            assert sorted(sink.records, key=repr) == sorted(reference.records, key=repr), (first, mode)
            others = [o for o in reference_log if o[2] != "even"]  # distributed mode keeps the sink's stream there
            assert sorted((o for o in log if o[2] != "even"), key=repr) == sorted(others, key=repr), (first, mode)
