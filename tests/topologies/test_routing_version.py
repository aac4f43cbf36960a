"""State routed by an earlier squall is refused, never read as if its keys were where this squall sends them.

``tests/fixtures/routing_v1`` is a store the squall before routing version 2
wrote (a journaled ``memory://`` store, as under Spark Connect): two batches of a
windowed sum over a fields grouping by ``key`` on 2 tasks, whose keys went to
``crc32(repr(key)) % 2``. This squall sends a key to ``pmod(Spark's hash(key), 2)``,
so resuming would give each task windows holding keys that are no longer its.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from bolts import BaseWindowedBolt, Fields
from tests.topologies.helpers import loop_of
from topologies import TopologyBuilder
from topologies.engine.remote.journaled_memory import JournaledMemoryBackend
from topologies.engine.task_store import ROUTING_VERSION, RouterCounters
from topologies.groupings import fields_task
from topologies.spouts import FileSpout
from topologies.storage import LocalDir
from windowing import Duration

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "routing_v1"


class Sum(BaseWindowedBolt):
    def execute(self, window):
        self.collector.emit([sum(t["value"] for t in window.get())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("sum"))


def topology():
    b = TopologyBuilder()
    b.set_spout("events", FileSpout("/unused", "json", ("key", "ts", "value"),
                                    schema="key STRING, ts BIGINT, value BIGINT"))
    b.set_bolt("sum", Sum().with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts"), 2) \
        .fields_grouping("events", Fields("key"))
    return b.create_topology()


@pytest.fixture
def old_store(tmp_path):
    shutil.copytree(FIXTURE / "state", tmp_path / "state")
    return JournaledMemoryBackend(LocalDir(tmp_path / "state"))


def test_the_fixture_was_routed_otherwise_than_this_squall_routes():
    """Some key of the fixture's batches goes to another task now: the refusal is needed, not cautious."""
    import zlib

    keys = [f"k{i}" for i in range(10)]
    before = [zlib.crc32(repr((k,)).encode("utf-8")) % 2 for k in keys]
    assert before != [fields_task([k], 2) for k in keys]


def test_a_store_routed_by_an_earlier_squall_is_refused_with_what_to_do(old_store, tmp_path):
    loop = loop_of(topology(), itertools.count(3_000, 1_000), tmp_path / "clock", backend=old_store, name="v1")
    with pytest.raises(RuntimeError, match=r"topology 'v1' committed batch 1 with routing version 1, and this squall "
                                           r"routes with version 2 .* submit under a new name, or delete its "
                                           r"checkpoint directory and its state namespaces"):
        loop.run(2, {"events": [["k1", 11_000, 1]]})
    with pytest.raises(RuntimeError, match="routing version 1"):
        loop.flush()  # nor is it closed as if its windows were this squall's
    assert old_store.namespace("v1/sum/0").committed_batch_id() == 1  # nothing was written


def test_a_store_this_squall_wrote_records_its_routing_and_resumes(tmp_path):
    from state_backends import open_backend

    backend = open_backend("memory://")
    first = loop_of(topology(), itertools.count(1_000, 1_000), tmp_path / "c1", backend=backend, name="v2")
    first.run(0, {"events": [["k1", 1, 1]]})
    assert backend.namespace("v2/__router").get(b"routing") == str(ROUTING_VERSION).encode()
    again = loop_of(topology(), itertools.count(2_000, 1_000), tmp_path / "c1", backend=backend, name="v2")
    again.run(1, {"events": [["k1", 2, 2]]})
    RouterCounters(backend, "v2").check_routing()
