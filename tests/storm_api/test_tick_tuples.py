"""Tick tuples: a plain bolt asking for them gets one from ``__system`` on ``__tick`` every n seconds of
processing time, idle or not, and a replay or a restart gets the same ticks."""

from __future__ import annotations

import uuid

import pytest

from bolts import BaseRichBolt, BaseWindowedBolt, Fields
from bolts.storm.tick import TupleUtils
from topologies import TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.engine.placements.local_frames import LocalFrames
from topologies.spouts import RateSpout
from topologies.testing import BoltHarness
from windowing import Count


class Ticking(BaseRichBolt):
    """Counts tuples between ticks; at each tick emits the count and the tick's rate."""

    def __init__(self, freq=2):
        self.freq = freq

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.seen = 0

    def execute(self, input):
        if TupleUtils.is_tick(input):
            self.collector.emit([self.seen, input.get_value_by_field("rate_secs"), input.get_source_task()])
            self.seen = 0
        else:
            self.seen += 1

    def get_component_configuration(self):
        return {"topology.tick.tuple.freq.secs": self.freq}

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("seen", "rate", "source_task"))


def test_the_harness_fires_each_tick_at_its_instant():
    h = BoltHarness(Ticking(2))
    h.feed([1])
    h.advance(1_999)
    assert h.emitted == []
    h.advance(1)
    h.feed([2])
    h.feed([3])
    h.advance(4_000)  # two intervals: a tick at 4 s and one at 6 s
    assert h.emitted == [("default", [1, 2, -1]), ("default", [2, 2, -1]), ("default", [0, 2, -1])]
    assert h.emitted_at == [2_000, 4_000, 6_000]


def test_a_fractional_frequency_and_a_topology_wide_one():
    h = BoltHarness(Ticking(0.5))
    h.advance(1_000)
    assert [e[1][1] for e in h.emitted] == [0.5, 0.5]

    class Plain(Ticking):
        def get_component_configuration(self):
            return {}

    h = BoltHarness(Plain(), conf={"topology.tick.tuple.freq.secs": 1})
    h.advance(3_000)
    assert len(h.emitted) == 3


@pytest.mark.parametrize(("bad", "error"), [(0, ValueError), (-1, ValueError), (float("nan"), ValueError),
                                            (float("inf"), ValueError), ("5", TypeError), (True, TypeError),
                                            ([1], TypeError)])
def test_a_tick_frequency_that_is_not_a_positive_number_is_refused_naming_the_bolt(bad, error):
    b = TopologyBuilder()
    b.set_spout("rate", RateSpout(rows_per_second=1))
    b.set_bolt("ticker", Ticking(bad)).shuffle_grouping("rate")
    with pytest.raises(error, match=r"topology.tick.tuple.freq.secs: bolt 'ticker' asks for tick tuples every "):
        b.create_topology()
    with pytest.raises(error, match=r"bolt 'bolt' asks for tick tuples every"):
        BoltHarness(Ticking(bad))


def test_a_bad_topology_wide_frequency_is_named_as_the_topologys():
    class Plain(Ticking):
        def get_component_configuration(self):
            return None

    with pytest.raises(ValueError, match=r"the topology's conf \(for bolt 'bolt'\) asks for tick tuples every -2"):
        BoltHarness(Plain(), conf={"topology.tick.tuple.freq.secs": -2})


def test_a_windowed_bolt_asking_for_ticks_is_refused():
    class Windowed(BaseWindowedBolt):
        def get_component_configuration(self):
            return {"topology.tick.tuple.freq.secs": 1}

    b = TopologyBuilder()
    b.set_spout("rate", RateSpout(rows_per_second=1))
    b.set_bolt("w", Windowed().with_tumbling_window(Count(2))).shuffle_grouping("rate")
    with pytest.raises(ValueError, match=r"bolt 'w' is a windowed bolt \(Windowed\).*tick tuples go to plain bolts"):
        b.create_topology()


def topology():
    b = TopologyBuilder()
    b.set_spout("rate", RateSpout(rows_per_second=1))
    b.set_bolt("ticker", Ticking(2), 2).shuffle_grouping("rate")
    return b.create_topology()


def run(placement, tmp_path, batches, restart_after=None):
    """Batches 1 s apart (the clock), some of them empty (idle input); with ``restart_after`` the process's
    executor is replaced by a new one over the same store and clock after that batch, as after a crash."""
    from topologies.engine.placements import chunks

    times = iter(range(10_000, 10**9, 1_000))
    clock = BatchClock(tmp_path / "clock", lambda: next(times))
    name = f"tick-{uuid.uuid4().hex[:6]}"
    url = f"memory://{name}"  # the workers' store: shared in this process
    store = chunks.worker_backend(url)

    def make():
        if placement == "driver":
            return batch_loop(topology(), clock, backend=store, name=name)
        return batch_loop(topology(), clock, mode="distributed", backend=store, name=name, state_url=url,
                          frames=LocalFrames(fresh_tasks=True))

    executor, outputs = make(), []
    for batch_id, rows in enumerate(batches):
        executor.run(batch_id, {"rate": rows})
        if batch_id == restart_after:
            outputs += executor.log.all()
            executor = make()
    return [(o.task, o.values) for o in outputs + executor.log.all()]


BATCHES = [[[0, 1], [0, 2], [0, 3]], [], [[0, 4]], [], [], [], [[0, 5]], []]


def test_ticks_fire_every_interval_with_idle_input(tmp_path):
    ticks = run("driver", tmp_path, BATCHES)
    # Batches at 10 s, 11 s, ... 17 s; each task's ticks are due at 12, 14, 16 s, and a batch's tick comes before
    # its tuples; the shuffle deals 1, 3, 5 to task 0 and 2, 4 to task 1 (5 comes at 16 s, after the tick).
    assert [t for t in ticks if t[0] == 0] == [(0, [2, 2, -1]), (0, [0, 2, -1]), (0, [0, 2, -1])]
    assert [t for t in ticks if t[0] == 1] == [(1, [1, 2, -1]), (1, [1, 2, -1]), (1, [0, 2, -1])]


@pytest.mark.parametrize("placement", ["driver", "distributed"])
def test_a_restart_gets_the_ticks_of_a_run_without_one(placement, tmp_path):
    assert run(placement, tmp_path / "r", BATCHES, restart_after=2) == run(placement, tmp_path / "w", BATCHES)
