"""``topology.fall.back.on.java.serialization``: objects of unregistered classes travel and are stored by pickle, only
while the topology sets the key; without it nothing is pickled, and nothing read back is ever unpickled.

The switch is per process and set from the conf by ``register_from_conf`` (as every process running tasks does);
tests/conftest.py turns it off after each test.
"""

from __future__ import annotations

import pickle
import threading
from collections import Counter
from dataclasses import dataclass

import msgpack
import pytest

from bolts.codecs.pickle_fallback import FALL_BACK_KEY, PICKLE_EXT, fall_back_enabled
from bolts.codecs.value_codec import OBJECT_EXT, pack_value, register_class, register_from_conf, unpack_value
from bolts.instance_fields import InstanceFields, decode_field, encode_field
from squall import BaseRichBolt, BaseStatefulBolt, Config, Fields
from tests.porting.java_serialization import ext_codes
from topologies.testing import BoltHarness

ON = {FALL_BACK_KEY: True}


class Rankable:
    """A plain class holding objects of another plain class: neither is registered nor a dataclass."""

    def __init__(self, word, count):
        self.word, self.count = word, count

    def __eq__(self, other):
        return isinstance(other, Rankable) and (other.word, other.count) == (self.word, self.count)


class Rankings:
    def __init__(self, items=()):
        self.items = list(items)

    def __eq__(self, other):
        return isinstance(other, Rankings) and other.items == self.items


@dataclass
class Point:
    x: int
    y: int


class Registered:
    def __init__(self, n):
        self.n = n


register_class(Registered, lambda r: r.n, Registered)

RAN = []


class Exploit:
    """Unpickling it calls RAN.append: what a crafted store entry would do with os.system."""

    def __reduce__(self):
        return RAN.append, ("ran",)


def test_without_the_key_an_unregistered_object_is_refused_naming_the_key_as_the_other_way_out():
    register_from_conf({})
    with pytest.raises(TypeError, match=r"cannot send .*Rankings\) between tasks or store it: .*registered with "
                                        r"Config.register_serialization.*; or set topology.fall.back.on.java."
                                        r"serialization \(Config.set_fall_back_on_java_serialization\(True\)\)"):
        pack_value([Rankings([Rankable("a", 1)])])


def test_without_the_key_a_pickled_value_read_back_is_refused_and_never_unpickled():
    register_from_conf(ON)
    stored = pack_value([Exploit()])  # as a store someone else wrote to would hold it
    register_from_conf({})
    with pytest.raises(TypeError, match=r"refusing to unpickle a value .*: it was written by pickle under "
                                        r"topology.fall.back.on.java.serialization, which this topology does not set"):
        unpack_value(stored)
    with pytest.raises(TypeError, match=r"refusing to unpickle"):
        decode_field(stored)
    assert RAN == []


def test_with_the_key_objects_of_unregistered_classes_come_back_equal_nested_in_plain_data():
    register_from_conf(ON)
    value = {"top": Rankings([Rankable("a", 3), Rankable("b", 1)]), "n": [1, Rankable("c", 2)]}
    back = unpack_value(pack_value(value))
    assert back == value and type(back["top"]) is Rankings and type(back["top"].items[0]) is Rankable
    assert ext_codes(pack_value([Rankable("a", 1)])) == [PICKLE_EXT]


def test_with_the_key_plain_data_dataclasses_and_registered_classes_are_encoded_as_without_it():
    values = [1, "s", [1.5, None], {"k": b"x"}, Point(1, 2), Registered(4)]
    register_from_conf({})
    without = pack_value(values)
    register_from_conf(ON)
    assert pack_value(values) == without
    assert ext_codes(without) == [OBJECT_EXT, OBJECT_EXT]


def test_the_switch_follows_the_last_conf_registered_in_the_process():
    register_from_conf(ON)
    assert fall_back_enabled()
    register_from_conf(Config())  # another topology's conf, without the key
    assert not fall_back_enabled()
    register_from_conf({FALL_BACK_KEY: False})
    assert not fall_back_enabled()
    conf = Config()
    conf.set_fall_back_on_java_serialization(True)
    register_from_conf(conf)
    assert fall_back_enabled()


def test_what_pickle_cannot_pickle_is_refused_even_with_the_key():
    register_from_conf(ON)
    with pytest.raises(TypeError, match=r"cannot pickle .*\(Rankings\) either: .*lock"):
        pack_value([Rankings([threading.Lock()])])


# --- a bolt's attributes -----------------------------------------------------------------------------------------

class Ranker(BaseRichBolt):
    """Holds a plain-class object set in __init__ (as Storm's AbstractRankerBolt), changed in place by execute."""

    def __init__(self):
        self.rankings = Rankings()

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.client = Counter()  # built by prepare: the task's own, never written, with or without the key

    def execute(self, input):
        self.rankings.items.append(Rankable(input["word"], input["count"]))
        self.client["calls"] += 1


def tracked(bolt):
    fields = InstanceFields(bolt, "ranker")
    fields.track_prepare(lambda: bolt.prepare({}, None, object()))
    return fields


def test_with_the_key_an_object_the_bolt_held_before_prepare_is_written_when_it_changes_and_restored():
    register_from_conf(ON)
    bolt = Ranker()
    fields = tracked(bolt)
    assert fields.writes() == ({}, [])  # unchanged since prepare: nothing written
    bolt.rankings.items.append(Rankable("a", 2))
    puts, _ = fields.writes()
    assert list(puts) == [b"f/rankings"] and ext_codes(puts[b"f/rankings"]) == [PICKLE_EXT]
    fields.committed()

    rebuilt = Ranker()
    again = tracked(rebuilt)
    again.restore(puts.items())
    assert rebuilt.rankings == Rankings([Rankable("a", 2)])
    assert again.writes() == ({}, [])  # what the store holds already


def test_without_the_key_the_same_bolt_keeps_its_objects_to_itself_as_before():
    register_from_conf({})
    bolt = Ranker()
    fields = tracked(bolt)
    bolt.rankings.items.append(Rankable("a", 2))
    assert fields.writes() == ({}, [])


def test_with_the_key_an_object_execute_binds_is_stored_and_one_pickle_cannot_take_fails_the_commit():
    register_from_conf(ON)
    bolt = Ranker()
    fields = tracked(bolt)
    bolt.last = Rankable("z", 9)
    puts, _ = fields.writes()
    assert decode_field(puts[b"f/last"]) == Rankable("z", 9)
    bolt.last = threading.Lock()
    with pytest.raises(TypeError, match=r"commit: bolt 'ranker' \(Ranker\): attribute 'last' holds .*cannot pickle"):
        fields.writes()


def test_without_the_key_an_object_execute_binds_fails_the_commit_naming_the_key():
    register_from_conf({})
    bolt = Ranker()
    fields = tracked(bolt)
    bolt.last = Rankable("z", 9)
    with pytest.raises(TypeError, match=r"attribute 'last' holds .*register its classes, or set "
                                        r"topology.fall.back.on.java.serialization to store it by pickle"):
        fields.writes()


def test_an_encoding_does_not_depend_on_the_key_for_plain_attributes():
    register_from_conf(ON)
    assert encode_field((1, {2}), fall_back=True) == encode_field((1, {2}))
    assert decode_field(encode_field((1, {2}), fall_back=True)) == (1, {2})


# --- emitted values and user state, through the harness as Spark runs them ----------------------------------------

class Emits(BaseRichBolt):
    def execute(self, input):
        self.collector.emit([Rankings([Rankable(input["word"], 1)])])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("rankings"))


def test_an_emitted_object_travels_with_the_key_and_is_refused_without_it():
    h = BoltHarness(Emits(), fields=("word",), conf=ON)
    h.feed(["a"])
    assert h.emitted == [("default", [Rankings([Rankable("a", 1)])])]
    refusing = BoltHarness(Emits(), fields=("word",))
    with pytest.raises(TypeError, match=r"emitted .* which cannot travel between tasks or be stored: .*or set "
                                        r"topology.fall.back.on.java.serialization"):
        refusing.feed(["a"])


class KeepsRankings(BaseStatefulBolt):
    def init_state(self, state):
        self.kv = state

    def execute(self, input):
        kept = self.kv.get("top", Rankings())
        kept.items.append(Rankable(input["word"], 1))
        self.kv.put("top", kept)


def test_a_state_entry_of_an_unregistered_class_is_stored_by_pickle_and_read_back_after_a_restart():
    h = BoltHarness(KeepsRankings(), fields=("word",), state="memory://", conf=ON)
    h.feed(["a"])
    h.commit()
    h.feed(["b"])
    h.commit()
    h.restart()
    assert h.bolt.kv.get("top") == Rankings([Rankable("a", 1), Rankable("b", 1)])


def test_an_object_of_an_importable_class_pickles_to_the_same_bytes_every_time_by_reference_to_its_class():
    register_from_conf(ON)
    body = msgpack.unpackb(pack_value(Rankable("a", 1)), ext_hook=lambda code, body: body)
    assert body.startswith(b"\x80\x05") and b"tests.bolts.test_pickle_fallback" in body  # protocol 5, by reference
    assert pack_value(Rankable("a", 1)) == pack_value(Rankable("a", 1))
    assert pickle.loads(body) == Rankable("a", 1)


def test_a_class_defined_where_no_other_process_can_import_it_pickles_by_value():
    namespace = {"__name__": "__main__"}
    exec("class Local:\n    def __init__(self, n):\n        self.n = n\n", namespace)  # as in a script's __main__
    register_from_conf(ON)
    back = unpack_value(pack_value(namespace["Local"](3)))
    assert back.n == 3
