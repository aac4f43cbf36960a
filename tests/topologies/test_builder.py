"""TopologyBuilder and SparkRunner refuse bad topologies and settings with messages that name the fix."""

import pytest

from bolts import BaseBolt, Fields
from tests.topologies.helpers import FIELDS, LateValues, Record
from topologies import SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout, RateSpout
from windowing import Count, Duration


class Echo(BaseBolt):
    def execute(self, input):
        self.collector.emit([input["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))
        declarer.declare_stream("odd", Fields("value"))


def builder():
    b = TopologyBuilder()
    b.set_spout("events", FileSpout("/tmp/none", "json", FIELDS, schema="key STRING, ts BIGINT, value BIGINT"))
    return b


def test_a_good_topology_is_ordered_upstream_first():
    b = builder()
    b.set_bolt("c", Echo()).shuffle_grouping("b", "odd")
    b.set_bolt("b", Echo()).shuffle_grouping("a")
    b.set_bolt("a", Echo(), 2).fields_grouping("events", Fields("key"))
    topo = b.create_topology()
    assert topo.order == ("a", "b", "c")
    assert topo.terminal_streams() == [("a", "odd"), ("b", "default"), ("c", "default"), ("c", "odd")]


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        (lambda b: b.set_bolt("x", Echo()).shuffle_grouping("nope"), "unknown component 'nope'; the components are"),
        (lambda b: b.set_bolt("x", Echo()).shuffle_grouping("events", "s2"),
         "stream 's2' of 'events', which it does not declare; declared streams are: default"),
        (lambda b: b.set_bolt("x", Echo()).fields_grouping("events", Fields("word")),
         "fields grouping on 'word', which the stream does not declare; its fields are: key, ts, value"),
        (lambda b: b.set_bolt("x", Echo()), "bolt 'x' subscribes to nothing"),
        (lambda b: b.set_bolt("x", Record().with_tumbling_window(Count(2)).with_timestamp_field("time"))
         .shuffle_grouping("events"), "with_timestamp_field: bolt 'x' takes timestamps from field 'time'"),
        (lambda b: b.set_bolt("x", Record().with_lag(Duration(5))).shuffle_grouping("events"),
         "with_window: the window length is not set"),
        (lambda b: b.set_bolt("late", LateValues()).shuffle_grouping("events", "late"),
         "declared streams are: default"),
    ],
)
def test_create_topology_refuses(wire, message):
    b = builder()
    wire(b)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        b.create_topology()


def test_cycles_are_refused_with_the_cycle():
    b = builder()
    b.set_bolt("a", Echo()).shuffle_grouping("events").shuffle_grouping("c")
    b.set_bolt("b", Echo()).shuffle_grouping("a")
    b.set_bolt("c", Echo()).shuffle_grouping("b")
    with pytest.raises(ValueError, match="the bolts form a cycle: a -> b -> c -> a; a topology must be acyclic"):
        b.create_topology()


def test_duplicate_ids_and_bad_arguments():
    b = builder()
    with pytest.raises(ValueError, match="set_bolt: id 'events' is already used by a spout"):
        b.set_bolt("events", Echo())
    with pytest.raises(ValueError, match="reserved"):
        b.set_bolt("__x", Echo())
    with pytest.raises(ValueError, match="set_bolt: `parallelism` must be at least 1; got 0"):
        b.set_bolt("y", Echo(), 0)
    with pytest.raises(TypeError, match="set_spout: `spout` must be a Spout"):
        b.set_spout("s", "data/")
    with pytest.raises(ValueError, match="already subscribes to events:default"):
        b.set_bolt("z", Echo()).shuffle_grouping("events").global_grouping("events")
    with pytest.raises(ValueError, match="create_topology: the topology has no spout"):
        TopologyBuilder().create_topology()


def test_spouts_check_their_arguments():
    with pytest.raises(ValueError, match="FileSpout: `format` must be one of json, csv, parquet; got 'xml'"):
        FileSpout("d", "xml", ("a",))
    with pytest.raises(TypeError, match="FileSpout: `fields` must be a list of field names"):
        FileSpout("d", "json", "a")
    with pytest.raises(ValueError, match="RateSpout: `rows_per_second` must be a positive int; got 0"):
        RateSpout(0)


def test_runner_checks_its_settings(tmp_path):
    with pytest.raises(ValueError, match="`mode` must be one of driver, distributed; got 'local'"):
        SparkRunner(None, mode="local", checkpoint_location=tmp_path)
    with pytest.raises(ValueError, match=r"mode='distributed' runs bolt tasks in Spark's executor processes.*"
                                         r"state='redis://host:6379/0'"):
        SparkRunner(None, mode="distributed", checkpoint_location=tmp_path)
    with pytest.raises(ValueError, match="schemes memory://, redis://, rediss://, hbase://; got 'mysql://x'"):
        SparkRunner(None, state="mysql://x", checkpoint_location=tmp_path)
    with pytest.raises(ValueError, match=r"got 'mysql://u:\*\*\*@x'"):
        SparkRunner(None, state="mysql://u:secret@x", checkpoint_location=tmp_path)
    with pytest.raises(ValueError, match=r"`trigger_interval` must be a Duration of 0 or more .*Duration\(-1\)"):
        SparkRunner(None, checkpoint_location=tmp_path, trigger_interval=Duration(-1))
    assert SparkRunner(None, checkpoint_location=tmp_path, trigger_interval=Duration(0)).trigger_interval.value == 0
    runner = SparkRunner(None, checkpoint_location=tmp_path)
    b = TopologyBuilder()
    b.set_spout("r", RateSpout(5))
    b.set_bolt("e", Echo()).shuffle_grouping("r")
    with pytest.raises(ValueError, match="available_now=True needs bounded sources, but spout\\(s\\) r"):
        runner.submit("t", b.create_topology(), available_now=True)
    with pytest.raises(ValueError, match="submit: `name` must be letters"):
        runner.submit("a b", b.create_topology())
