"""Random bolt configurations: what create_topology() accepts runs; what it refuses says which bolt.

A configuration error must never reach a batch: every topology that
``create_topology()`` accepts runs three batches and the shutdown flush through
the batch loop in driver mode without Spark on well-formed input,
and every refusal is a ``ValueError`` or ``TypeError`` naming the bolt.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bolts import BaseBolt, BaseStatefulWindowedBolt, Fields, WindowedAggregateBolt
from tests.bolts_for_tests import WindowIds
from tests.topologies.helpers import loop_of
from topologies import TopologyBuilder
from topologies.spouts import FileSpout
from windowing import Count, Duration, FixedWindows, SlidingWindows, aggregators

SUBJECT = "subject"
FIELDS = ("key", "ts", "value", "id")
START = 100_000


class StatefulValues(BaseStatefulWindowedBolt):
    """Emits the window's values and a running count kept in user state."""

    def execute(self, window):
        seen = self.state.get("seen", 0) + len(window.get())
        self.state.put("seen", seen)
        self.collector.emit([[t["value"] for t in window.get()], seen])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("values", "seen"))


class Echo(BaseBolt):
    """Re-emits key, ts and value: a second input stream that has no ``id``."""

    def execute(self, input):
        self.collector.emit([input["key"], input["ts"], input["value"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "ts", "value"))


def read_ts(tup: Any) -> int:
    return tup["ts"]


size = st.tuples(st.sampled_from(["count", "time"]), st.integers(1, 6))
configs = st.fixed_dictionaries({
    "kind": st.sampled_from(["windowed", "stateful", "aggregate"]),
    "length": size,
    "slide": st.none() | size | st.just("tumbling"),
    "timestamp": st.sampled_from([None, "ts", "value", "missing", "extractor"]),
    "lag": st.none() | st.integers(0, 600),
    "late_stream": st.booleans(),
    "watermark_interval": st.none() | st.integers(1, 1_500),
    "persistence": st.booleans(),
    "message_id": st.sampled_from([None, "id", "missing"]),
    "max_events": st.none() | st.integers(1, 12),
    "key_fields": st.sampled_from([None, ("key",), ("key", "id"), ("missing",)]),
    "aggregated": st.sampled_from(["value", "id", "missing"]),
    "assigner": st.sampled_from([None, "fixed", "sliding"]),
    "grouping": st.sampled_from(["shuffle", "global", "all", "fields:key", "fields:id", "fields:missing"]),
    "parallelism": st.integers(1, 2),
    "also_echo": st.booleans(),
    "error_stream": st.sampled_from([None, "rejected", "late", "default"]),  # the last two can clash
})


def amount(kind_and_n: tuple[str, int]) -> Count | Duration:
    kind, n = kind_and_n
    return Count(n) if kind == "count" else Duration(250 * n)


def event_time(bolt: Any, cfg: dict[str, Any]) -> Any:
    if cfg["timestamp"] == "extractor":
        bolt = bolt.with_timestamp_extractor(read_ts)
    elif cfg["timestamp"] is not None:
        bolt = bolt.with_timestamp_field(cfg["timestamp"])
    if cfg["lag"] is not None:
        bolt = bolt.with_lag(Duration(cfg["lag"]))
    if cfg["watermark_interval"] is not None:
        bolt = bolt.with_watermark_interval(Duration(cfg["watermark_interval"]))
    if cfg["late_stream"]:
        bolt = bolt.with_late_tuple_stream("late")
    return bolt


def make_bolt(cfg: dict[str, Any]) -> BaseBolt:
    bolt = _windowed(cfg)
    return bolt if cfg["error_stream"] is None else bolt.with_error_stream(cfg["error_stream"])


def _windowed(cfg: dict[str, Any]) -> BaseBolt:
    if cfg["kind"] == "aggregate":
        bolt = WindowedAggregateBolt(aggregators.sum(cfg["aggregated"]), key_fields=cfg["key_fields"])
        if cfg["assigner"] == "fixed":
            bolt = bolt.with_windows(FixedWindows(Duration(1_000)))
        elif cfg["assigner"] == "sliding":
            bolt = bolt.with_windows(SlidingWindows(Duration(1_000), Duration(500)))
        return event_time(bolt, cfg)
    windowed = StatefulValues() if cfg["kind"] == "stateful" else WindowIds("value")
    if cfg["slide"] == "tumbling":
        windowed = windowed.with_tumbling_window(amount(cfg["length"]))
    elif cfg["slide"] is None:
        windowed = windowed.with_window(amount(cfg["length"]))
    else:
        windowed = windowed.with_window(amount(cfg["length"]), amount(cfg["slide"]))
    if isinstance(windowed, BaseStatefulWindowedBolt):
        if cfg["persistence"]:
            windowed = windowed.with_persistence()
        if cfg["message_id"] is not None:
            windowed = windowed.with_message_id_field(cfg["message_id"])
        if cfg["max_events"] is not None:
            windowed = windowed.with_max_events_in_memory(cfg["max_events"])
    return event_time(windowed, cfg)


def build(cfg: dict[str, Any]) -> TopologyBuilder:
    b = TopologyBuilder()
    b.set_spout("events", FileSpout("/unused", "json", FIELDS, schema="key STRING, ts BIGINT, value BIGINT, id BIGINT"))
    b.set_bolt("echo", Echo()).shuffle_grouping("events")
    declarer = b.set_bolt(SUBJECT, make_bolt(cfg), cfg["parallelism"])
    grouping = cfg["grouping"]
    if grouping.startswith("fields:"):
        declarer.fields_grouping("events", Fields(grouping.removeprefix("fields:")))
    else:
        getattr(declarer, f"{grouping}_grouping")("events")
    if cfg["also_echo"]:
        declarer.shuffle_grouping("echo")
    return b


def batches() -> list[list[list[Any]]]:
    """Three batches of well-formed rows (ids grow with arrival); each later batch holds one late row."""
    out, next_id = [], 0
    for b in range(3):
        rows = []
        for i in range(5):
            ts = b * 1_000 + i * 200 if not (b and i == 2) else b * 1_000 - 900
            rows.append([f"k{(b + i) % 2}", ts, 10 * b + i, next_id])
            next_id += 1
        out.append(rows)
    return out


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs)
def test_what_create_topology_accepts_runs_and_what_it_refuses_names_the_bolt(cfg):
    b = build(cfg)
    try:
        topology = b.create_topology()
    except (ValueError, TypeError) as err:
        event("refused")
        assert repr(SUBJECT) in str(err), err
        return
    event("accepted")
    loop = loop_of(topology, range(START, START + 10_000, 1_000))
    for batch_id, rows in enumerate(batches()):
        loop.run(batch_id, {"events": rows})
    loop.flush()
