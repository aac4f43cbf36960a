"""Kafka in, Kafka out: an event-time topology with late tuples and Redis state, a crash, a replay and new events.

Input: one partition of JSON events (key, ts, value), read 10 records a batch.
Phase A is 30 events 1 s apart (ts 1.5 s .. 30.5 s) plus one late event; the
sink fails right after writing batch 1 (before Spark commits it), and a new
driver (new runner, new sink, the same checkpoint and Redis) replays batch 1
and finishes A with the shutdown flush. Phase B appends 20 more events (31.5 s
.. 50.5 s, so the window (30 s, 40 s] the flush fired gets new data) and one
more late event, and a third driver runs it. The output topic must hold every
batch's outputs exactly once, in order, the same as the runners' output files,
and its windows must be the sums worked out by hand.

::

    window-sum: per-key tumbling 10 s windows on ts, lag 2 s, late tuples on "late"
    events --fields(key)--> window-sum (2 tasks) --late--> late-log
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from pathlib import Path

import pytest

from tests.kafka.helpers import KeyedSum, LateLog, event
from tests.topologies.helpers import counting_clock
from topologies import Fields, SparkRunner, TopologyBuilder
from topologies.sinks import KafkaSink
from topologies.spouts import KafkaSpout
from windowing import Duration

KEYS = ("a", "b", "c")
LATE_A = ("a", 2_200, 1_000)  # in batch 2: the task of "a" is at watermark 17.5 s by then
LATE_B = ("b", 5_000, 2_000)  # in B's first batch: the task of "b" resumes at watermark 27.5 s


def phase_a() -> list[tuple[str, int, int]]:
    rows = [(KEYS[i % 3], 1_500 + i * 1_000, i + 1) for i in range(30)]
    return [*rows[:25], LATE_A, *rows[25:]]


def phase_b() -> list[tuple[str, int, int]]:
    rows = [(KEYS[j % 3], 31_500 + j * 1_000, 100 + j) for j in range(20)]
    return [*rows[:3], LATE_B, *rows[3:]]


def topology(topic: str, bootstrap: str):
    bolt = (KeyedSum().with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts")
            .with_lag(Duration.seconds(2)).with_late_tuple_stream("late"))
    builder = TopologyBuilder()
    builder.set_spout("events", KafkaSpout(topic, bootstrap, schema="key STRING, ts BIGINT, value BIGINT",
                                           fields=("key", "ts", "value"), max_offsets_per_trigger=10))
    builder.set_bolt("window-sum", bolt, parallelism=2).fields_grouping("events", Fields("key"))
    builder.set_bolt("late-log", LateLog()).shuffle_grouping("window-sum", "late")
    return builder.create_topology()


class Crash(RuntimeError):
    pass


class CrashAfterWriting:
    """An on_output that passes a batch to the sink, then fails it once: the driver dies before Spark's commit."""

    def __init__(self, sink: KafkaSink, batch: int) -> None:
        self.sink, self.batch, self.crashed = sink, batch, False

    def __call__(self, key, outputs):
        self.sink(key, outputs)
        if key == self.batch and not self.crashed:
            self.crashed = True
            raise Crash(f"the driver dies after writing batch {key}")


def runner_files(directory: Path) -> list[tuple[str, dict]]:
    """What the runner's output files hold, labelled as the sink labels records (batch id, or final after one)."""
    result, last = [], "none"
    for path in [*sorted(directory.glob("batch-*.jsonl")), directory / "final.jsonl"]:
        label = str(int(path.stem.removeprefix("batch-"))) if path.stem != "final" else f"final-after-{last}"
        lines = path.read_text(encoding="utf-8").splitlines()
        # A file's record also has `fields` (the values by field name); a Kafka record has the rest of it.
        result += [(label, {k: v for k, v in json.loads(line).items() if k != "fields"}) for line in lines]
        if path.stem != "final" and lines:
            last = label
    return result


def expected_windows(rows: list[tuple[str, int, int]]) -> dict[tuple[str, int], int]:
    """Sum of value per (key, window end) over the events that are not late; windows are (end - 10 s, end]."""
    sums: dict[tuple[str, int], int] = defaultdict(int)
    for key, ts, value in rows:
        if (key, ts, value) not in (LATE_A, LATE_B):
            sums[key, -(-ts // 10_000) * 10_000] += value
    return dict(sums)


def test_windows_go_to_an_output_topic_exactly_once_through_a_crash_a_replay_and_new_events(
        kafka, kafka_spark, redis_url, tmp_path):
    source, sink_topic = kafka.create_topic("events"), kafka.create_topic("windows")
    name, sink_name = f"kafka-e2e-{uuid.uuid4().hex[:8]}", f"e2e-{uuid.uuid4().hex[:8]}"
    topo = topology(source, kafka.bootstrap)
    kafka.produce(source, [event(*row) for row in phase_a()])

    clock = counting_clock()  # one clock for the three drivers: processing time never goes back between them

    def runner(out: str, on_output) -> SparkRunner:
        return SparkRunner(kafka_spark, state=redis_url, checkpoint_location=tmp_path / "ck",
                           output_dir=tmp_path / out, clock=clock, on_output=on_output)

    crashing = CrashAfterWriting(KafkaSink(sink_topic, kafka.bootstrap, name=sink_name), batch=1)
    with pytest.raises(Crash):
        runner("out-a", crashing).submit(name, topo, available_now=True).await_termination(180)
    crashing.sink.close()
    assert [r.key.decode().split("/")[1] for r in kafka.consume(sink_topic)] == ["1"] * 3  # batch 1's windows

    with KafkaSink(sink_topic, kafka.bootstrap, name=sink_name) as sink:
        handle = runner("out-a", sink).submit(name, topo, available_now=True)
        assert handle.await_termination(180)
        assert sorted(handle.loop.totals.counted) == [1, 2, 3]  # batch 1 ran again; the sink skipped it
    kafka.produce(source, [event(*row) for row in phase_b()])
    with KafkaSink(sink_topic, kafka.bootstrap, name=sink_name) as sink:
        handle = runner("out-b", sink).submit(name, topo, available_now=True)
        assert handle.await_termination(180)

    records = [(r.key.decode(), json.loads(r.value)) for r in kafka.consume(sink_topic)]
    keys = [k for k, _ in records]
    assert len(keys) == len(set(keys)), "a record was written twice"
    logged = runner_files(tmp_path / "out-a" / name) + runner_files(tmp_path / "out-b" / name)
    assert [(k.split("/")[1], v) for k, v in records] == logged
    # Batch 0 fires no window (watermark 8.5 s), nor do the one-record batches 3 and 6: no records for them.
    assert [k.split("/")[1] for k in keys if k.split("/")[2] == "0"] == [
        "1", "2", "final-after-2", "4", "5", "final-after-5"]

    last: dict[tuple[str, int], list] = {}
    for _, value in records:
        if value["component"] == "window-sum":
            key, start, end, total, _count = value["values"]
            assert end - start == 10_000
            last[key, end] = total
    assert last == expected_windows(phase_a() + phase_b())
    late = [tuple(v["values"]) for _, v in records if v["component"] == "late-log"]
    assert late == [LATE_A, LATE_B]
