"""The topologies the placement suite runs in every placement, each over input files it writes itself.

Every case is a name, a function writing its input under a directory, and a
function building the topology over that directory (given the session that
will run it). Together they cover every shipped example and every kind of
bolt: plain bolts keeping running totals in instance fields, stateful windowed
bolts (persistent, paged and message-id windows), windowed aggregations with
retractions feeding another aggregation, a windowed join of two spouts, a
chain of three bolts through shuffle, fields, global and all groupings (``mixed``);
a ``FileSpout`` filtering its rows with ``where`` (``join``);
basic and rich bolts, direct emits, partial-key, custom, none and
local-or-shuffle groupings, objects between tasks (``storm_api``); a
``BaseStatefulBolt``, a bolt with tick tuples and Storm 2's lambda bolts, read
from a ``DataFrameSpout`` (``storm_kinds``).
"""

from __future__ import annotations

import gc
import os
import random
import signal
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bolts import (
    BaseBolt,
    BaseRichBolt,
    BaseStatefulBolt,
    BaseStatefulWindowedBolt,
    BaseWindowedBolt,
    Fields,
    TupleUtils,
    WindowedAggregateBolt,
    WindowedJoinBolt,
)
from tests.storm_api.topology import conf as storm_api_conf
from tests.storm_api.topology import rows as storm_api_rows
from tests.storm_api.topology import storm_api
from tests.topologies.cases import retracting_sums
from topologies import TopologyBuilder
from topologies.examples import event_time_late, sliding_window, word_count
from topologies.examples._run import write_json_files
from topologies.spouts import DataFrameSpout, FileSpout
from topologies.topology import Topology
from windowing import AccumulationMode, Count, Duration, FixedWindows, GlobalWindows, aggregators

FIELDS = ("key", "ts", "value", "msgid")
SCHEMA = "key STRING, ts BIGINT, value BIGINT, msgid BIGINT"
PROBE_DIR = "probe_dir"  # conf key: where Probe records the executor that ran each task
KILL_AT = "kill_at"  # conf key: [msgid, marker path]: Probe's process dies by SIGKILL at that tuple, once
KILL_EXECUTOR_AT = "kill_executor_at"  # conf key: [msgid, marker path]: the same for the executor JVM running Probe


def executor_jvm() -> int:
    """The pid of the Spark executor JVM this Python worker runs under (an ancestor process)."""
    pid = os.getppid()
    while pid > 1:
        if b"CoarseGrainedExecutorBackend" in Path(f"/proc/{pid}/cmdline").read_bytes():
            return pid
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    msg = "no executor JVM among this process's ancestors (not a local-cluster or cluster executor)"
    raise RuntimeError(msg)


@dataclass(frozen=True)
class Case:
    """A topology to run in every placement, over the files ``write`` puts in a directory.

    ``build(directory, spark)``: the topology, given the session that runs it.
    """

    name: str
    write: Callable[[Path], None]
    build: Callable[[Path, Any], Topology]
    conf: Callable[[], dict] = dict  # the topology's own conf (merged under the run's)


class KeyTotals(BaseWindowedBolt):
    """docs/bolts.md's pattern: running totals in instance fields, moved by each window's new and expired tuples."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.totals = Counter()
        self.times = defaultdict(list)
        self.keys = set()
        self.windows = 0
        self.last = None

    def execute(self, window):
        for t in window.get_new():
            self.totals[t["key"]] += t["value"]
            self.times[t["key"]].append(t["ts"])
            self.keys.add(t["key"])
        for t in window.get_expired():
            self.totals[t["key"]] -= t["value"]
        self.windows += 1
        self.last = (window.start_timestamp, window.end_timestamp)
        self.collector.emit([self.windows, sorted(self.totals.items()), sorted(self.keys), list(self.last),
                             sum(len(v) for v in self.times.values())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("windows", "totals", "keys", "last", "seen"))


class Probe(BaseBolt):
    """A plain bolt: forwards each tuple with a count kept in an instance field; records the executor it runs in.

    With ``conf[PROBE_DIR]`` each tuple appends a line to ``<component>-<task>``
    in that directory: the pid of the executor JVM running the task (not the
    Python worker's: one executor can run several workers), then how many
    objects the worker holds frozen out of the garbage collector's reach
    (``gc.get_freeze_count()``, :mod:`topologies.engine.placements.worker_collector`).

    With ``conf[KILL_AT] = [msgid, marker]`` the process running it kills
    itself (SIGKILL) at the tuple with that ``msgid``, the first time only
    (it creates ``marker`` first): a Python worker dying inside ``execute``.
    ``conf[KILL_EXECUTOR_AT]`` kills the executor JVM instead (the process
    above the worker): the executor dies mid-stage with its cached frames.
    """

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.where = Path(conf[PROBE_DIR]) / f"{context.component_id}-{context.task_index}" if PROBE_DIR in conf \
            else None
        self.kill_at = conf.get(KILL_AT)
        self.kill_executor_at = conf.get(KILL_EXECUTOR_AT)
        self.count = 0

    def execute(self, input):
        for at, victim in ((self.kill_at, os.getpid), (self.kill_executor_at, executor_jvm)):
            if at is not None and input["msgid"] == at[0]:
                try:
                    Path(at[1]).touch(exist_ok=False)
                except FileExistsError:
                    continue
                os.kill(victim(), signal.SIGKILL)
        self.count += 1
        if self.where is not None:
            with self.where.open("a", encoding="utf-8") as f:
                f.write(f"{executor_jvm()} {gc.get_freeze_count()}\n")
        self.collector.emit([input["key"], input["ts"], input["value"], self.count])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "ts", "value", "count"))


class Tally(BaseBolt):
    """A plain bolt at the end of a chain: per-source-task tallies in a dict."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.tally: dict[str, int] = {}

    def execute(self, input):
        source = f"{input.source_component}/{input.source_task}"
        self.tally[source] = self.tally.get(source, 0) + 1
        self.collector.emit([source, self.tally[source], input["windows"]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("source", "n", "windows"))


class RunningTotal(BaseStatefulWindowedBolt):
    """Each window's values and a running total in user state, plus a window count in an instance field."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.fired = 0

    def execute(self, window):
        self.fired += 1
        total = self.state.get("total", 0) + sum(t["value"] for t in window.get_new())
        self.state.put("total", total)
        self.collector.emit([[t["value"] for t in window.get()], total, self.fired])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("values", "total", "fired"))


class PagedSum(BaseStatefulWindowedBolt):
    """A paged persistent window (older tuples in the store): walks it with iter(); counts windows in a field."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.fired = 0

    def execute(self, window):
        self.fired += 1
        values = [t["value"] for t in window.iter()]
        self.collector.emit([values, sum(values), self.fired])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("values", "total", "fired"))


class ScaledColumns(BaseBolt):
    """A columnar bolt: each run's rows with values times ten, and those under 10 as they are on ``small``."""

    def execute_table(self, input):
        import pyarrow.compute as pc

        rows = input.to_arrow().select(["key", "ts", "value"])
        self.collector.emit_table(rows.set_column(2, "value", pc.multiply(rows["value"], 10)))
        self.collector.emit_table(rows.filter(pc.less(rows["value"], 10)), "small")

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "ts", "value"))
        declarer.declare_stream("small", Fields("key", "ts", "value"))


def keyed_rows(files: int = 5, per_file: int = 12, seed: int = 7) -> list[list[dict]]:
    """Per file, rows of four keys in event-time order with some disorder; one far too old row per later file."""
    rng = random.Random(seed)
    out, msgid = [], 0
    for f in range(files):
        rows = []
        for i in range(per_file):
            rows.append({"key": f"k{rng.randrange(4)}", "ts": f * 3_000 + i * 250 + rng.randrange(400),
                         "value": rng.randrange(100), "msgid": msgid})
            msgid += 1
        if f:
            rows.insert(5, {"key": "k1", "ts": f * 3_000 - 2_900, "value": -f, "msgid": msgid})
            msgid += 1
        out.append(rows)
    return out


def spout(data: Path, stream: str = "default", where: str | None = None) -> FileSpout:
    return FileSpout(data, "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1, stream=stream, where=where)


def mixed(data: Path) -> Topology:
    """A chain of three bolts through all four groupings, stateful bolts, and aggregations feeding each other."""
    b = TopologyBuilder()
    b.set_spout("events", spout(data))
    # The chain: shuffle -> fields -> global, and all.
    # Four tasks on two executors of one core: each batch places them anew, so a run where no task moves between
    # executors (which test_tasks_ran_in_both_executor_processes refuses) is unlikely; with two, 1 of 9 runs had one.
    b.set_bolt("probe", Probe(), 4).shuffle_grouping("events")
    b.set_bolt("totals", KeyTotals().with_window(Duration.seconds(3), Duration.seconds(1)).with_timestamp_field("ts")
               .with_lag(Duration.milliseconds(500)).with_watermark_interval(Duration.milliseconds(300)), 2) \
        .fields_grouping("probe", Fields("key"))
    b.set_bolt("tally", Tally()).global_grouping("totals")
    b.set_bolt("tally_all", Tally(), 2).all_grouping("totals")
    b.set_bolt("tally_shuffled", Tally(), 2).shuffle_grouping("totals")  # the flush's windows are shuffled too
    # Stateful bolts: persistent, paged (older tuples in the store) and message-id windows.
    b.set_bolt("stateful", RunningTotal().with_tumbling_window(Count(4)).with_persistence(), 2) \
        .fields_grouping("events", Fields("key"))
    b.set_bolt("paged", PagedSum().with_window(Count(9), Count(3)).with_persistence()
               .with_max_events_in_memory(2), 2).shuffle_grouping("events")
    b.set_bolt("msgid", RunningTotal().with_window(Count(5), Count(2)).with_message_id_field("msgid"), 2) \
        .fields_grouping("events", Fields("key"))
    # Aggregations: panes with retractions into an aggregation of their sums.
    b.set_bolt("agg", retracting_sums(), 2).fields_grouping("events", Fields("key"))
    b.set_bolt("agg_total", WindowedAggregateBolt(aggregators.sum("value")).with_timestamp_field("timestamp")
               .with_accumulation_mode(AccumulationMode.ACCUMULATING).with_allowed_lateness(Duration.seconds(1))) \
        .global_grouping("agg")
    # Ingress time (no timestamp field) on columns; global windows, so the answer does not depend on when it ran.
    b.set_bolt("agg_ingress", WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
               .with_windows(GlobalWindows()), 2).fields_grouping("events", Fields("key"))
    # A columnar bolt's tables: into a columnar aggregation by key, and as outputs of a stream nobody reads.
    b.set_bolt("scaled", ScaledColumns(), 2).shuffle_grouping("events")
    b.set_bolt("scaled_sums", WindowedAggregateBolt(aggregators.sum("value"), key_fields=("key",))
               .with_windows(GlobalWindows()), 2).fields_grouping("scaled", Fields("key"))
    return b.create_topology()


def join(data: Path) -> Topology:
    """WindowedJoinBolts over two spouts, keyed by ``key``: 2 s windows, and 700 ms windows of matches only.

    The right spout keeps its rows through ``where`` (27 of 35): Spark's scan filters them in every placement.
    """
    b = TopologyBuilder()
    b.set_spout("left", spout(data / "left", "left"))
    b.set_spout("right", spout(data / "right", "right", where="value % 3 <> 0"))
    bolt = (WindowedJoinBolt("left", "right", key_fields=("key",)).with_windows(FixedWindows(Duration.seconds(2)))
            .with_timestamp_field("ts").with_watermark_interval(Duration.milliseconds(300)))
    b.set_bolt("join", bolt, 2).fields_grouping("left", Fields("key"), "left") \
        .fields_grouping("right", Fields("key"), "right")
    matched = (WindowedJoinBolt("left", "right", key_fields=("key",), matched_only=True)
               .with_windows(FixedWindows(Duration.milliseconds(700))).with_timestamp_field("ts"))
    b.set_bolt("matched", matched, 2).fields_grouping("left", Fields("key"), "left") \
        .fields_grouping("right", Fields("key"), "right")
    return b.create_topology()


def write_join(directory: Path) -> None:
    write_json_files(directory / "left", keyed_rows(4, 8, seed=1))
    write_json_files(directory / "right", keyed_rows(4, 8, seed=2))


class KeyedSum(BaseStatefulBolt):
    """A running sum per key in the bolt's ``KeyValueState``, emitted with each tuple; the batch id at each commit."""

    def init_state(self, state):
        self.state = state

    def execute(self, input):
        total = self.state.get(input["key"], 0) + input["value"]
        self.state.put(input["key"], total)
        self.collector.emit([input["key"], total])

    def pre_commit(self, txid):
        self.collector.emit(["commit", txid])  # goes out with its batch

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "total"))


class Ticking(BaseRichBolt):
    """Counts its tuples between tick tuples (one a second of processing time); at each tick, the count."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.seen = 0

    def execute(self, input):
        if TupleUtils.is_tick(input):
            self.collector.emit([self.seen])
            self.seen = 0
        else:
            self.seen += 1

    def get_component_configuration(self):
        return {"topology.tick.tuple.freq.secs": 1}

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("seen"))


def storm_kinds(data: Path, spark) -> Topology:
    """A DataFrameSpout (a stream the caller built over the files) into a stateful, a ticking and lambda bolts."""
    frames = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(data))
    b = TopologyBuilder()
    b.set_spout("frames", DataFrameSpout(frames, FIELDS))
    b.set_bolt("sums", KeyedSum(), 2).fields_grouping("frames", Fields("key"))
    b.set_bolt("ticks", Ticking(), 2).shuffle_grouping("frames")
    b.set_bolt("doubled", lambda t, collector: collector.emit([t["key"], 2 * t["value"]]), 2, "key", "doubled") \
        .shuffle_grouping("frames")
    b.set_bolt("halves", lambda t, collector: collector.emit([t["doubled"] // 2]), 1, "value") \
        .global_grouping("doubled")
    return b.create_topology()


def example(module) -> Case:
    """A shipped example over the data its own generator writes (seeded)."""
    return Case(module.__name__.rsplit(".", 1)[-1], lambda d: module.generate(d, random.Random(42)),
                lambda d, _: module.build_topology(str(d)))


CASES = [
    example(sliding_window),
    example(word_count),
    example(event_time_late),
    Case("mixed", lambda d: write_json_files(d, keyed_rows()), lambda d, _: mixed(d)),
    Case("join", write_join, lambda d, _: join(d)),
    Case("storm_api", lambda d: write_json_files(d, storm_api_rows()), lambda d, _: storm_api(d), storm_api_conf),
    Case("storm_kinds", lambda d: write_json_files(d, keyed_rows(4, 6, seed=9)), storm_kinds),
]


def write_all(root: Path) -> Path:
    """Every case's input under ``root/data/<case>``; returns ``root``."""
    for case in CASES:
        case.write(root / "data" / case.name)
    return root


def driver_outputs(spark, root: Path) -> dict[str, list]:
    """Each case run in driver mode in ``spark`` (a classic session) over ``root/data``: its outputs as JSON records."""
    from tests.topologies.distributed_case import as_json
    from tests.topologies.helpers import counting_clock
    from topologies import SparkRunner

    out = {}
    for case in CASES:
        runner = SparkRunner(spark, checkpoint_location=root / "ck-driver", clock=counting_clock(), conf=case.conf())
        handle = runner.submit(f"driver-{case.name.replace('_', '-')}", case.build(root / "data" / case.name, spark),
                               available_now=True)
        assert handle.await_termination(300)
        out[case.name] = as_json(handle.outputs())
    return out
