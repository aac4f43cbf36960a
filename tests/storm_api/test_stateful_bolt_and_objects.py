"""``BaseStatefulBolt``'s state across commits and restarts, and objects (dataclasses, registered classes)
travelling between tasks, into a bolt's stored attributes, and refused when neither."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

import msgpack
import pytest

from bolts import TaskOptions, make_task
from bolts.codecs.value_codec import OBJECT_EXT, pack_value, register_class, unpack_value
from squall import BaseRichBolt, BaseStatefulBolt, Config, Fields, TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.engine.placements import chunks
from topologies.engine.placements.local_frames import LocalFrames
from topologies.spouts import RateSpout
from topologies.testing import BoltHarness


class StatefulSum(BaseStatefulBolt):
    """storm-starter's StatefulSumBolt: a running sum in the KeyValueState, emitted with every tuple."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.commits = []

    def init_state(self, state):
        self.kv = state
        self.sum = state.get("sum", 0)

    def execute(self, input):
        self.sum += input.get_long_by_field("value")
        self.kv.put("sum", self.sum)
        self.collector.emit(input, [self.sum])
        self.collector.ack(input)

    def pre_commit(self, txid):
        self.commits.append(txid)

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value"))


def test_the_state_survives_a_restart_from_the_last_commit():
    h = BoltHarness(StatefulSum(), state="memory://")
    h.feed([1])
    h.feed([2])
    h.commit()
    assert h.bolt.commits == [1]
    h.feed([10])  # not committed: lost by the crash, as Spark then runs the batch again
    h.restart()
    h.feed([3])
    assert [v for _, (v,) in h.emitted] == [1, 3, 6]


def test_a_stateful_bolt_without_a_store_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"StatefulSum \(bolt 'sum'\) is a stateful bolt and needs a state backend"):
        make_task(StatefulSum(), TaskOptions("sum"))


def topology(bolt):
    b = TopologyBuilder()
    b.set_spout("rate", RateSpout(rows_per_second=1))
    b.set_bolt("sum", bolt, 2).shuffle_grouping("rate")
    return b.create_topology()


def test_the_sum_per_task_survives_a_new_process(tmp_path):
    name = f"ss-{uuid.uuid4().hex[:6]}"
    url = f"memory://{name}"
    store = chunks.worker_backend(url)
    times = iter(range(10_000, 10**9, 1_000))
    clock = BatchClock(tmp_path / "clock", lambda: next(times))

    def make():
        return batch_loop(topology(StatefulSum()), clock, backend=store, name=name)

    first = make()
    first.run(0, {"rate": [[0, 1], [0, 2], [0, 3]]})
    second = make()  # a new process: tasks built from the store, init_state given what batch 0 left
    second.run(1, {"rate": [[0, 10], [0, 20]]})
    outputs = [(o.task, o.values[0]) for o in first.log.all() + second.log.all()]
    # The shuffle goes on where batch 0 left it: 10 to task 1 (2 + 10), 20 to task 0 (1 + 3 + 20).
    assert outputs == [(0, 1), (0, 4), (1, 2), (0, 24), (1, 12)]


# Objects ----------------------------------------------------------------------------------------------------------


@dataclass
class Rank:
    word: str
    count: int
    seen: tuple = ()
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Pair:
    left: Rank
    right: Rank | None


class Opaque:
    __slots__ = ("n",)

    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return isinstance(other, Opaque) and other.n == self.n


class Plain:
    def __init__(self, n):
        self.n = n


def test_dataclasses_travel_field_by_field_nested_and_frozen():
    value = Pair(Rank("a", 2, ("x",), {"k": [1]}), None)
    back = unpack_value(pack_value([value]))[0]
    assert back == Pair(Rank("a", 2, ["x"], {"k": [1]}), None)  # a tuple travels as a list, as in any value
    assert type(back) is Pair and type(back.left) is Rank


def test_a_registered_class_travels_through_its_functions_or_its_dict():
    register_class(Opaque, lambda o: o.n, Opaque)
    assert unpack_value(pack_value(Opaque(5))) == Opaque(5)
    register_class(Plain)
    back = unpack_value(pack_value(Plain(7)))
    assert type(back) is Plain and back.n == 7


def test_bad_registrations_name_the_class():
    with pytest.raises(TypeError, match=r"register_serialization: `cls` must be a class; got 3"):
        Config().register_serialization(3)
    with pytest.raises(TypeError, match=r"give both functions \(to_data, from_data\) for Opaque, or neither"):
        Config().register_serialization(Opaque, lambda o: o.n)
    with pytest.raises(TypeError, match=r"Opaque has no __dict__ \(slots\?\); give to_data and from_data"):
        Config().register_serialization(Opaque)


def test_a_class_neither_registered_nor_a_dataclass_is_refused_at_the_emit_naming_the_bolt():
    class Unknown:
        pass

    class Emits(BaseRichBolt):
        def execute(self, input):
            self.collector.emit([Unknown()])

        def declare_output_fields(self, declarer):
            declarer.declare(Fields("obj"))

    h = BoltHarness(Emits())
    with pytest.raises(TypeError, match=r"bolt 'bolt' task 0 emitted .*Unknown.* on stream 'default', which cannot "
                                        r"travel between tasks or be stored"):
        h.feed([1])


def test_an_object_of_a_class_the_reader_cannot_rebuild_is_refused_naming_it():
    data = msgpack.packb(msgpack.ExtType(OBJECT_EXT, pack_value(["not.imported.module:Thing", {"a": 1}])))
    with pytest.raises(TypeError, match=r"cannot rebuild an object of class 'not.imported.module:Thing': it is "
                                        r"neither registered in this process"):
        unpack_value(data)


class Ranker(BaseRichBolt):
    """Keeps its rankings, a dataclass, in an instance field: stored with every commit, back after a restart."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.ranks = Rank("top", 0)

    def execute(self, input):
        self.ranks = Rank("top", self.ranks.count + input["value"], (*self.ranks.seen, input["value"]))
        self.collector.emit([self.ranks.count, list(self.ranks.seen)])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("count", "seen"))


def test_a_dataclass_in_a_bolt_attribute_comes_back_after_the_task_moves(tmp_path):
    name = f"rk-{uuid.uuid4().hex[:6]}"
    url = f"memory://{name}"
    times = iter(range(10_000, 10**9, 1_000))
    executor = batch_loop(topology(Ranker()), BatchClock(tmp_path, lambda: next(times)), mode="distributed",
                          backend=chunks.worker_backend(url), name=name, state_url=url,
                          frames=LocalFrames(fresh_tasks=True))
    executor.run(0, {"rate": [[0, 1], [0, 2]]})
    executor.run(1, {"rate": [[0, 3], [0, 4]]})
    assert [(o.task, o.values) for o in executor.log.all()] == [
        (0, [1, [1]]), (1, [2, [2]]), (0, [4, [1, 3]]), (1, [6, [2, 4]])]


class Hooks(StatefulSum):
    """Keeps the commits its hooks saw in an attribute: stored with the very commit the hook ran for."""

    def pre_prepare(self, txid):
        self.prepared = [*getattr(self, "prepared", []), txid]


def test_what_the_pre_commit_hooks_change_is_part_of_that_commit():
    h = BoltHarness(Hooks(), state="memory://")
    h.feed([1])
    h.commit()
    h.feed([2])
    h.commit()
    h.restart()
    assert h.bolt.commits == [1, 2] and h.bolt.prepared == [1, 2]


class KeepsRanks(StatefulSum):
    def execute(self, input):
        self.kv.put("last", Rank("w", input["value"], (1, 2)))
        self.collector.emit([self.kv.get("last").count])


def test_a_stateful_bolts_state_takes_dataclasses_and_gives_them_back_after_a_restart():
    h = BoltHarness(KeepsRanks(), state="memory://")
    h.feed([5])
    h.commit()
    h.restart()
    assert h.bolt.kv.get("last") == Rank("w", 5, [1, 2])


class EmitsInHooks(StatefulSum):
    def pre_commit(self, txid):
        self.collector.emit([-txid])


def test_what_a_pre_commit_hook_emits_goes_out_with_its_batch(tmp_path):
    name = f"hk-{uuid.uuid4().hex[:6]}"
    url = f"memory://{name}"
    times = iter(range(10_000, 10**9, 1_000))
    clock = BatchClock(tmp_path / "clock", lambda: next(times))
    b = TopologyBuilder()
    b.set_spout("rate", RateSpout(rows_per_second=1))
    b.set_bolt("sum", EmitsInHooks()).shuffle_grouping("rate")
    topology = b.create_topology()
    executor = batch_loop(topology, clock, backend=chunks.worker_backend(url), name=name)
    executor.run(0, {"rate": [[0, 1], [0, 2]]})
    executor.run(1, {"rate": [[0, 3]]})
    assert [o.values[0] for o in executor.log.all()] == [1, 3, 0, 6, -1]
