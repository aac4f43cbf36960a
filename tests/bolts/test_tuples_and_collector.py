"""Tuples are read-only; emitting checks the stream and the number of values."""

import re

import pytest

from bolts import BaseBolt, Fields, Tuple
from topologies.testing import BoltHarness


def test_tuple_access():
    t = Tuple([1, "x"], Fields("n", "s"), "s1", "spout")
    assert (t["n"], t[1], t.get("missing", 9), t.get_value_by_field("s"), t.get_value(0)) == (1, "x", 9, "x", 1)
    assert (t.values, t.fields.to_list(), t.stream, t.source_component) == ((1, "x"), ["n", "s"], "s1", "spout")
    assert t.as_dict() == {"n": 1, "s": "x"} and t.contains("n") and not t.contains("z")
    with pytest.raises(AttributeError, match="read-only"):
        t.values = (2, "y")
    with pytest.raises(KeyError, match="no field 'z'; the fields are: n, s"):
        t["z"]


def test_tuple_index_by_position_as_a_python_tuple():
    t = Tuple([1, "x"], Fields("n", "s"))
    assert (t[0], t[-1], t[-2], t[True], t[0:1]) == (1, "x", 1, "x", (1,))
    for i in (2, -3):
        with pytest.raises(IndexError):
            t[i]
    assert t.get(0, "default") == "default"  # get takes field names only


def test_fields_refuse_duplicates_and_bad_names():
    assert Fields(["a", "b"]) == Fields("a", "b")
    with pytest.raises(ValueError, match="a appear more than once"):
        Fields("a", "b", "a")
    with pytest.raises(TypeError, match="non-empty str"):
        Fields("a", "")


def test_tuple_values_must_match_fields():
    with pytest.raises(ValueError, match=re.escape("Tuple: 1 values for 2 fields ['a', 'b']")):
        Tuple([1], Fields("a", "b"))


class Echo(BaseBolt):
    def execute(self, input):
        self.collector.emit([input["x"] * 2])
        if input["x"] > 10:
            self.collector.emit("big", [input["x"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("doubled"))
        declarer.declare_stream("big", Fields("x"))


def test_a_plain_bolt_runs_in_the_harness_and_emits_on_named_streams():
    h = BoltHarness(Echo(), fields=("x",))
    h.feed([3])
    h.feed({"x": 12})
    assert h.emitted == [("default", [6]), ("default", [24]), ("big", [12])]


class BadEmitter(BaseBolt):
    def __init__(self, values, stream="default"):
        self.values, self.stream = values, stream

    def execute(self, input):
        self.collector.emit(self.values, stream=self.stream)

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("a"))


@pytest.mark.parametrize(
    ("bolt", "error", "message"),
    [
        (BadEmitter([1], "nope"), ValueError,
         "emit: stream 'nope' is not declared by bolt; declared streams are: default"),
        (BadEmitter([1, 2]), ValueError, "emit: stream 'default' has fields ['a'] but bolt 'bolt' emitted 2 values"),
        (BadEmitter("ab"), TypeError, "emit: `values` must be a list or tuple of field values; bolt 'bolt' gave 'ab'"),
    ],
)
def test_bad_emits_are_refused(bolt, error, message):
    h = BoltHarness(bolt, fields=("x",))
    with pytest.raises(error, match=re.escape(message)):
        h.feed([1])


def test_harness_refuses_unknown_streams_fields_and_time_going_back():
    h = BoltHarness(Echo(), fields=("x",))
    with pytest.raises(ValueError, match="stream 'other' is not an input; inputs are: default"):
        h.feed([1], stream="other")
    with pytest.raises(ValueError, match=re.escape("fields ['y'] are not among ['x']")):
        h.feed({"y": 1})
    h.advance(10)
    with pytest.raises(ValueError, match="time cannot go back from 10 to 5"):
        h.advance_to(5)
