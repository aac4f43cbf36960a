"""Storm's ``OutputCollector`` and ``BaseBasicBolt`` forms under the harness, and their bad uses."""

from __future__ import annotations

import logging

import pytest

from bolts import BaseRichBolt, Fields, TupleError
from bolts.collector import TupleFailedError
from bolts.storm.base_basic_bolt import BaseBasicBolt, FailedException, ReportedFailedException
from topologies import TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.groupings import CustomStreamGrouping
from topologies.spouts import RateSpout
from topologies.testing import BoltHarness


class Forms(BaseRichBolt):
    """Emits the same values in every argument order Storm has, and records what ``emit`` returned."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.returned = []

    def execute(self, input):
        v = [input["value"]]
        c = self.collector
        self.returned += [c.emit(v), c.emit(input, v), c.emit([input, input], v), c.emit("s", v),
                          c.emit("s", input, v), c.emit("s", [input], v), c.emit(v, stream="s"), c.emit(v, "s"),
                          c.emit(input, v, stream="s")]
        c.ack(input)
        c.reset_timeout(input)

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))
        declarer.declare_stream("s", Fields("value"))


def test_every_storm_argument_order_emits_once_on_its_stream():
    h = BoltHarness(Forms())
    h.feed([7])
    assert h.emitted == [("default", [7])] * 3 + [("s", [7])] * 6
    assert h.bolt.returned == [[]] * 9  # the harness's bolt is alone in its topology: no task gets it


class Bad(BaseRichBolt):
    def __init__(self, action):
        self.action = action

    def execute(self, input):
        self.action(self.collector, input)

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))
        declarer.declare_stream("to", True, Fields("value"))


@pytest.mark.parametrize(("action", "error", "match"), [
    (lambda c, t: c.emit("nope", [1]), ValueError, r"emit: stream 'nope' is not declared by bolt"),
    (lambda c, t: c.emit([1, 2]), ValueError, r"has fields \['value'\] but bolt 'bolt' emitted 2 values"),
    (lambda c, t: c.emit("to", [1]), ValueError, r"emit: stream 'to' of bolt 'bolt' is declared direct"),
    (lambda c, t: c.emit_direct(1, [1]), ValueError,
     r"emit_direct: stream 'default' of bolt 'bolt' is not declared direct"),
    (lambda c, t: c.emit_direct("1", "to", [1]), TypeError, r"emit_direct: `task_id` must be an int task id; got '1'"),
    (lambda c, t: c.emit([1, 2], [1]), TypeError,
     r"emit: anchors must be an input Tuple or a list of them; bolt 'bolt' passed \[1, 2\]"),
    (lambda c, t: c.emit("s", "x", [1]), TypeError, r"anchors must be"),
    (lambda c, t: c.emit(), TypeError, r"emit: bolt 'bolt' gave 0 arguments; expects \(values\)"),
    (lambda c, t: c.emit("default", [1], stream="s"), TypeError, r"bolt 'bolt' gave the stream twice"),
    (lambda c, t: c.ack([1]), TypeError, r"ack: expects an input Tuple; bolt 'bolt' passed \[1\]"),
    (lambda c, t: c.fail(None), TypeError, r"fail: expects an input Tuple"),
    (lambda c, t: c.report_error(42), TypeError, r"report_error: `error` must be an exception or a str; got 42"),
])
def test_bad_uses_name_the_method_the_bolt_and_the_value(action, error, match):
    h = BoltHarness(Bad(action))
    with pytest.raises(error, match=match):
        h.feed([1])


def test_fail_fails_the_batch_naming_the_bolt_and_the_tuple():
    h = BoltHarness(Bad(lambda c, t: c.fail(t)))
    with pytest.raises(TupleFailedError, match=r"bolt 'bolt' task 0 failed tuple .*value.*1.*Spark runs it again"):
        h.feed([1])


def test_report_error_goes_to_the_log_or_the_error_stream(caplog):
    with caplog.at_level(logging.ERROR, logger="squall.bolts"):
        h = BoltHarness(Bad(lambda c, t: c.report_error(ValueError("boom"))))
        h.feed([1])
    assert "bolt 'bolt' task 0 reported an error: ValueError: boom" in caplog.text
    assert h.emitted == []
    h = BoltHarness(Bad(lambda c, t: c.report_error("disk full")).with_error_stream("errors"))
    h.feed([1])
    assert h.emitted == [("errors", [None, "bolt", "disk full"])]


class Exclaim(BaseBasicBolt):
    def prepare(self, conf, context):
        self.suffix = conf.get("suffix", "!!!")

    def execute(self, input, collector):
        word = input.get_string(0)
        if word == "fail":
            raise FailedException("cannot shout " + word)
        if word == "report":
            raise ReportedFailedException("reported " + word)
        if word == "bad":
            raise TupleError("a TupleError goes to the error stream")
        collector.emit([word + self.suffix])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("word"))


def test_a_basic_bolt_emits_with_a_basic_collector_and_takes_its_two_argument_prepare():
    h = BoltHarness(Exclaim(), fields=("word",), conf={"suffix": "?"})
    h.feed(["hi"])
    assert h.emitted == [("default", ["hi?"])]


def test_failed_exception_fails_the_batch_and_a_reported_one_is_reported_first(caplog):
    h = BoltHarness(Exclaim(), fields=("word",))
    with pytest.raises(TupleFailedError, match=r"bolt 'bolt' task 0 failed tuple") as info:
        h.feed(["fail"])
    assert isinstance(info.value.__cause__, FailedException)
    h = BoltHarness(Exclaim().with_error_stream("errors"), fields=("word",))
    with pytest.raises(TupleFailedError):
        h.feed(["report"])
    assert h.emitted == [("errors", [None, "bolt", "ReportedFailedException: reported report"])]
    h.feed(["bad"])
    assert h.emitted[-1][1][1:] == ["bolt", "a TupleError goes to the error stream"]


def test_a_basic_bolt_must_override_execute():
    class Empty(BaseBasicBolt):
        pass

    with pytest.raises(TypeError, match=r"Empty.execute: override execute\(self, input, collector\)"):
        BoltHarness(Empty()).feed([1])


def test_declare_takes_storms_direct_flag_first_and_refuses_other_shapes():
    from bolts.collector import OutputFieldsDeclarer

    d = OutputFieldsDeclarer("b")
    d.declare(True, Fields("a"))
    d.declare_stream("s", False, Fields("x"))
    d.declare_stream("t", ["y"], direct=True)
    assert d.direct_streams == {"default", "t"}
    with pytest.raises(TypeError, match=r"declare_stream: give the fields, or `direct` then the fields"):
        d.declare_stream("u", True, Fields("a"), 3)
    with pytest.raises(TypeError, match=r"declare_stream: `direct` must be a bool; got 'yes'"):
        d.declare_stream("u", Fields("a"), direct="yes")
    with pytest.raises(ValueError, match=r"declares stream 's' twice"):
        d.declare_stream("s", True, Fields("x"))


# Build-time refusals ------------------------------------------------------------------------------------------


class Direct(BaseRichBolt):
    def execute(self, input):
        self.collector.emit_direct(self.target, "to", [input["value"]])

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.target = conf.get("target", 1)

    def declare_output_fields(self, declarer):
        declarer.declare_stream("to", True, Fields("value"))
        declarer.declare(Fields("value"))


class Echo(BaseRichBolt):
    def execute(self, input):
        self.collector.emit([input["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


def builder():
    b = TopologyBuilder()
    b.set_spout("rate", RateSpout(rows_per_second=1))
    return b


def test_direct_groupings_and_direct_streams_must_match_when_the_topology_is_built():
    b = builder()
    b.set_bolt("d", Direct()).shuffle_grouping("rate")
    b.set_bolt("e", Echo()).direct_grouping("d")
    with pytest.raises(ValueError, match=r"direct_grouping: bolt 'e' subscribes to d:default with a direct grouping, "
                                         r"but the stream is not direct; declare it with"):
        b.create_topology()
    b = builder()
    b.set_bolt("d", Direct()).shuffle_grouping("rate")
    b.set_bolt("e", Echo()).shuffle_grouping("d", "to")
    with pytest.raises(ValueError, match=r"bolt 'e' subscribes to direct stream d:to with shuffle grouping"):
        b.create_topology()
    b = builder()
    b.set_bolt("e", Echo()).direct_grouping("rate")
    with pytest.raises(ValueError, match=r"a spout's streams are never direct"):
        b.create_topology()


def test_groupings_refuse_bad_arguments_naming_the_method():
    b = builder()
    with pytest.raises(TypeError, match=r"custom_grouping: `grouping` of bolt 'e' must be a CustomStreamGrouping"):
        b.set_bolt("e", Echo()).custom_grouping("rate", lambda task, values: [1])
    with pytest.raises(TypeError, match=r"partial_key_grouping: `fields` must be Fields"):
        b.set_bolt("f", Echo()).partial_key_grouping("rate", "value")
    b = builder()
    b.set_bolt("g", Echo()).partial_key_grouping("rate", Fields("nope"))
    with pytest.raises(ValueError, match=r"partial_key grouping on 'nope', which the stream does not declare"):
        b.create_topology()


def run_driver(topology, tmp_path, conf=None, rows=([1], [2])):
    executor = batch_loop(topology, BatchClock(tmp_path, iter(range(1, 10**9)).__next__), conf=conf or {})
    executor.run(0, {"rate": [[0, v] for (v,) in rows]})
    return executor.log.all()


def test_a_direct_emit_to_a_task_of_another_bolt_fails_naming_the_bolt_and_the_task(tmp_path):
    b = builder()
    b.set_bolt("d", Direct()).shuffle_grouping("rate")
    b.set_bolt("e", Echo(), 2).direct_grouping("d", "to")
    b.set_bolt("f", Echo()).shuffle_grouping("d")  # d's default stream
    topology = b.create_topology()
    assert topology.layout.task_ids("e") == [2, 3]
    assert [o.task for o in run_driver(topology, tmp_path / "ok", {"target": 3}) if o.component == "e"] == [1, 1]
    with pytest.raises(ValueError, match=r"emit_direct: bolt 'd' sent a tuple on 'to' to task 4, which is a task of "
                                         r"'f'; the direct subscribers' tasks are: \{'e': \[2, 3\]\}"):
        run_driver(topology, tmp_path / "bad", {"target": 4})


class Wrong(CustomStreamGrouping):
    def choose_tasks(self, task_id, values):
        return [99]


def test_a_custom_grouping_choosing_a_task_it_was_not_given_fails_naming_it(tmp_path):
    b = builder()
    b.set_bolt("e", Echo(), 2).custom_grouping("rate", Wrong())
    with pytest.raises(ValueError, match=r"custom_grouping: Wrong.choose_tasks returned \[99\] for \[0, 1\] on "
                                         r"rate:default; it must return a list of task ids of bolt 'e': \[1, 2\]"):
        run_driver(b.create_topology(), tmp_path)


def test_a_function_is_a_bolt_as_storm_2s_lambdas_are(tmp_path):
    seen = []
    b = builder()
    b.set_bolt("shout", lambda t, collector: collector.emit([f"{t.get_value(1)}!"]), 2, "word") \
        .shuffle_grouping("rate")
    b.set_bolt("quiet", lambda t: seen.append(t.get_value(0)), 1).shuffle_grouping("shout")
    topology = b.create_topology()
    assert topology.streams["shout"]["default"] == Fields("word")
    assert [o.values for o in run_driver(topology, tmp_path)] == []  # quiet has no output
    assert sorted(seen) == ["1!", "2!"]  # the same function object in this process: driver mode
    with pytest.raises(TypeError, match=r"set_bolt: bolt 'bad''s function must take \(tuple\) or \(tuple, collector\); "
                                        r"it takes 3"):
        builder().set_bolt("bad", lambda a, b, c: None)
    with pytest.raises(TypeError, match=r"set_bolt: bolt 'one''s function must take \(tuple, collector\) to emit"):
        builder().set_bolt("one", lambda t: None, 1, "word")
    with pytest.raises(TypeError, match=r"set_bolt: output fields \['x'\] are for a function bolt"):
        builder().set_bolt("e", Echo(), 1, "x")


def test_storm_2s_set_bolt_overload_without_parallelism_takes_the_fields_after_the_function(tmp_path):
    b = builder()
    # Storm's setBolt(id, (tuple, collector) -> ..., "strValue", "intValue"): one task, two output fields.
    b.set_bolt("shout", lambda t, collector: collector.emit([f"{t.get_value(1)}!", 999]), "strValue", "intValue") \
        .shuffle_grouping("rate")
    topology = b.create_topology()
    assert topology.streams["shout"]["default"] == Fields("strValue", "intValue")
    assert topology.parallelism("shout") == 1
    assert sorted(o.values for o in run_driver(topology, tmp_path)) == [["1!", 999], ["2!", 999]]
    with pytest.raises(TypeError, match=r"set_bolt: bolt 'one''s function must take \(tuple, collector\) to emit "
                                        r"\['word'\]"):
        builder().set_bolt("one", lambda t: None, "word")
    with pytest.raises(TypeError, match=r"set_bolt: `parallelism` must be an int; got 'x' \(str\)"):
        builder().set_bolt("e", Echo(), "x")


def test_topology_debug_logs_every_emit_naming_bolt_task_and_stream(caplog):
    with caplog.at_level(logging.INFO, logger="squall.debug"):
        h = BoltHarness(Forms(), conf={"topology.debug": True})
        h.feed([7])
    lines = [r.getMessage() for r in caplog.records if r.name == "squall.debug"]
    assert lines[:2] == ["bolt 'bolt' task 0 emitting on 'default': [7]"] * 2
    assert len(lines) == 9
    caplog.clear()
    BoltHarness(Forms()).feed([7])
    assert not [r for r in caplog.records if r.name == "squall.debug"]


def test_a_custom_grouping_that_cannot_travel_is_refused_when_built():
    import threading

    class Locked(CustomStreamGrouping):
        def __init__(self):
            self.lock = threading.Lock()

        def choose_tasks(self, task_id, values):
            return [1]

    b = builder()
    with pytest.raises(TypeError, match=r"custom_grouping: the grouping of bolt 'e' \(Locked\) cannot be copied"):
        b.set_bolt("e", Echo()).custom_grouping("rate", Locked())


def test_one_custom_grouping_given_to_two_subscriptions_is_prepared_for_each(tmp_path):
    class First(CustomStreamGrouping):
        def prepare(self, context, stream, target_tasks):
            self.targets = target_tasks

        def choose_tasks(self, task_id, values):
            return [self.targets[0]]

    g = First()
    b = builder()
    b.set_bolt("x", Echo(), 2).custom_grouping("rate", g)
    b.set_bolt("y", Echo(), 2).custom_grouping("rate", g)
    assert sorted((o.component, o.task) for o in run_driver(b.create_topology(), tmp_path)) == \
        [("x", 0), ("x", 0), ("y", 0), ("y", 0)]


def test_a_component_configuration_of_none_means_none_as_storms_null(tmp_path):
    class NoConf(Echo):
        def get_component_configuration(self):
            return None

    b = builder()
    b.set_bolt("e", NoConf()).shuffle_grouping("rate")
    assert [o.values for o in run_driver(b.create_topology(), tmp_path)] == [[1], [2]]
