"""One representation of a datetime in both placements: a spout's timestamps in UTC (``datetime.UTC``), a bolt's own
zones as they were made.

Driver mode hands values from task to task as Python objects; distributed mode
sends them through the msgpack codec (run here in this process, as
tests/topologies/spark/test_stage_routing.py runs it). A bolt sees, and the outputs
hold, the same ``repr`` of every datetime in both.
"""

from __future__ import annotations

import tempfile
import uuid
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import BaseBolt, Fields, WindowedAggregateBolt
from bolts.codecs.value_codec import pack_value, unpack_value
from tests.topologies.helpers import counting_clock
from topologies import TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.engine.batch_layout import BatchLayout
from topologies.engine.placements import chunks
from topologies.engine.placements.local_frames import LocalFrames
from topologies.spouts import FileSpout
from windowing import Duration, FixedWindows, aggregators

ZONES = (ZoneInfo("Europe/Paris"), timezone(timedelta(hours=5, minutes=30)), ZoneInfo("UTC"), UTC)


class Stamps(BaseBolt):
    """Emits the tuple's timestamp and the same instant in each of ZONES."""

    def execute(self, input):
        self.collector.emit([input["ts"], *(input["ts"].astimezone(zone) for zone in ZONES)])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("ts", *(f"z{i}" for i in range(len(ZONES)))))


class SeenTs(BaseBolt):
    """Emits the repr of the tuple's ``ts``."""

    def execute(self, input):
        self.collector.emit([repr(input["ts"])])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("ts"))


class Seen(BaseBolt):
    """Emits, for every value it receives, its repr: what the bolt saw."""

    def execute(self, input):
        self.collector.emit([[repr(v) for v in input.values]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("seen"))


def topology(data: Path):
    b = TopologyBuilder()
    b.set_spout("s", FileSpout(data, "json", ("key", "ts"), schema="key STRING, ts TIMESTAMP"))
    b.set_bolt("stamps", Stamps(), 2).shuffle_grouping("s")
    b.set_bolt("seen", Seen(), 2).shuffle_grouping("stamps")
    b.set_bolt("seen_spout", Seen(), 2).shuffle_grouping("s")
    b.set_bolt("by_ts", SeenTs(), 3).fields_grouping("s", Fields("ts")).fields_grouping("stamps", Fields("ts"))
    b.set_bolt("latest", WindowedAggregateBolt(aggregators.max("ts"), key_fields=("key",))
               .with_windows(FixedWindows(Duration.hours(1))).with_timestamp_field("ts"), 2) \
        .fields_grouping("s", Fields("key"))
    return b.create_topology()


def outputs(mode: str) -> dict[str, list[str]]:
    data = Path(tempfile.mkdtemp(prefix="squall-tz-"))
    top = topology(data)
    rows = [["a", datetime(2026, 3, 29, 0, 30 + i, tzinfo=UTC)] for i in range(3)]
    rows.append(["b", datetime(2026, 10, 25, 0, 45, tzinfo=UTC)])  # the night Paris goes back an hour
    table = BatchLayout(top).encode({"s": rows}, partition=0)
    where = data / mode
    if mode == "driver":
        loop = batch_loop(top, BatchClock(where, counting_clock()))
    else:
        loop = batch_loop(top, BatchClock(where, counting_clock()), mode="distributed",
                          backend=chunks.worker_backend("memory://"), name=f"tz-{uuid.uuid4().hex[:8]}",
                          state_url="memory://", frames=LocalFrames(fresh_tasks=True))
    loop.run(0, table)
    loop.flush()
    got: dict[str, list[str]] = {}
    for out in loop.log.all():
        got.setdefault(out.component, []).append(repr([out.task, *out.values] if out.component == "by_ts"
                                                      else out.values))
    return {component: sorted(values) for component, values in got.items()}


def test_a_datetime_has_one_representation_in_both_placements():
    driver, distributed = outputs("driver"), outputs("distributed")
    assert driver == distributed
    assert set(driver) == {"seen", "seen_spout", "latest", "by_ts"}
    tasks: dict[str, set] = {}
    for text in driver["by_ts"]:  # [task, [repr(ts), ...]]: a spout's row and a bolt's tuple, grouped by ts
        task, seen = eval(text)  # our own reprs of an int and a str
        tasks.setdefault(seen, set()).add(task)
    assert len(tasks) == 4 and all(len(t) == 1 for t in tasks.values())  # equal keys, one task
    spout_side = " ".join(driver["seen_spout"] + driver["latest"])
    assert "datetime.timezone.utc" in spout_side and "ZoneInfo(key='UTC')" not in spout_side
    assert "ZoneInfo(key='Europe/Paris')" in " ".join(driver["seen"])  # a bolt's own zone is kept


@settings(max_examples=200, deadline=None)
@given(value=st.datetimes(timezones=st.none() | st.timezones() | st.just(UTC)
                          | st.builds(timezone, st.integers(-14 * 60, 14 * 60).map(lambda m: timedelta(minutes=m)))))
def test_a_datetime_sent_between_tasks_comes_back_as_it_was(value):
    """The same zone, wall time, offset and instant (``fold`` counts only where it changes the offset)."""
    again = unpack_value(pack_value(value))
    assert type(again.tzinfo) is type(value.tzinfo) and again.tzinfo == value.tzinfo
    assert again.replace(tzinfo=None, fold=0) == value.replace(tzinfo=None, fold=0)
    assert again.utcoffset() == value.utcoffset()
    if value.tzinfo is not None:
        assert again == value
