"""KafkaSink against a real broker, without Spark: each batch once, replays skipped, half-written batches aborted."""

from __future__ import annotations

import json
import uuid

import pytest

from topologies.sinks import KafkaSink
from topologies.sinks.kafka_sink import Mark, record_lines
from topologies.sinks.records import Output
from windowing import Duration


def outputs(batch: int, n: int = 3, stream: str = "default") -> list[Output]:
    return [Output("sum", i % 2, stream, [f"k{i}", batch * 10 + i]) for i in range(n)]


def written(kafka, topic, read_committed=True) -> list[tuple[str, dict]]:
    return [(r.key.decode(), json.loads(r.value)) for r in kafka.consume(topic, read_committed=read_committed)]


def expected(name: str, label: str, outs: list[Output]) -> list[tuple[str, dict]]:
    return [(f"{name}/{label}/{i}", json.loads(line)) for i, line in enumerate(record_lines(outs))]


@pytest.fixture
def sink_name() -> str:
    return f"s-{uuid.uuid4().hex[:8]}"


def test_each_batch_is_written_once_and_a_replay_is_skipped(kafka, sink_name):
    topic = kafka.create_topic("out")
    with KafkaSink(topic, kafka.bootstrap, name=sink_name) as sink:
        sink(0, outputs(0))
        sink(1, outputs(1))
        sink(1, outputs(1))  # Spark runs batch 1 again
        assert sink.mark == Mark(batch=1, finals=0, digest=sink.mark.digest, writes=2)
    assert written(kafka, topic) == expected(sink_name, "0", outputs(0)) + expected(sink_name, "1", outputs(1))
    assert written(kafka, topic)[0][1] == {"component": "sum", "task": 0, "stream": "default", "values": ["k0", 0]}


def test_a_new_driver_reads_the_mark_and_skips_what_the_old_one_wrote(kafka, sink_name):
    topic = kafka.create_topic("out")
    with KafkaSink(topic, kafka.bootstrap, name=sink_name) as first:
        first(0, outputs(0))
        first(1, outputs(1))  # written, then the driver dies before Spark commits batch 1
    with KafkaSink(topic, kafka.bootstrap, name=sink_name) as second:
        second(1, outputs(1))  # the replay in the new driver
        assert second.mark.batch == 1 and second.mark.writes == 2
        second(2, outputs(2))
    assert [k for k, _ in written(kafka, topic)] == [f"{sink_name}/{b}/{i}" for b in range(3) for i in range(3)]


def test_the_flush_is_written_once_after_its_batch_and_a_new_flush_again(kafka, sink_name):
    topic = kafka.create_topic("out")
    final, later_final = outputs(7, 2, "late"), outputs(8, 1)
    with KafkaSink(topic, kafka.bootstrap, name=sink_name) as sink:
        sink(0, outputs(0))
        sink("final", final)
        sink("final", final)  # the same flush completed again (a killed flush finished by the next submit)
    with KafkaSink(topic, kafka.bootstrap, name=sink_name) as sink:
        sink("final", final)  # ... in a new process
        sink(0, outputs(0))  # batch 0 replayed after its flush: written already
        sink("final", later_final)  # a later flush, no batch with outputs in between
        sink(1, outputs(1))
        sink("final", final)
    assert written(kafka, topic) == (
        expected(sink_name, "0", outputs(0)) + expected(sink_name, "final-after-0", final)
        + expected(sink_name, "final-after-0-2", later_final) + expected(sink_name, "1", outputs(1))
        + expected(sink_name, "final-after-1", final)
    )


def test_a_batch_below_the_last_one_written_is_refused(kafka, sink_name):
    topic = kafka.create_topic("out")
    with KafkaSink(topic, kafka.bootstrap, name=sink_name) as sink:
        sink(0, outputs(0))
        sink(5, outputs(5))
        with pytest.raises(RuntimeError, match=r"batch 3 comes after batch 5 was written .* checkpoint was deleted"):
            sink(3, outputs(3))


class Broken(RuntimeError):
    pass


def test_a_write_that_fails_half_way_is_aborted_and_written_whole_by_the_next_call(kafka, sink_name, monkeypatch):
    topic = kafka.create_topic("out")
    sink = KafkaSink(topic, kafka.bootstrap, name=sink_name, timeout=Duration.seconds(30))
    sink(0, outputs(0))
    original, produced = KafkaSink._produce, []

    def produce_two_then_break(self, key, value):
        if len(produced) == 2:
            raise Broken("the driver died mid-batch")
        produced.append(key)
        original(self, key, value)
        self._producer.flush(10)  # on the broker, in the open transaction, before the failure

    monkeypatch.setattr(KafkaSink, "_produce", produce_two_then_break)
    with pytest.raises(Broken):
        sink(1, outputs(1, n=4))
    monkeypatch.setattr(KafkaSink, "_produce", original)
    assert written(kafka, topic) == expected(sink_name, "0", outputs(0))
    sink(1, outputs(1, n=4))  # Spark runs the failed batch again
    sink.close()
    assert written(kafka, topic) == expected(sink_name, "0", outputs(0)) + expected(sink_name, "1", outputs(1, n=4))
    uncommitted = [k for k, _ in written(kafka, topic, read_committed=False)]
    assert uncommitted.count(f"{sink_name}/1/0") == 2, "the aborted records stay in the log, invisible when committed"


def test_a_newer_sink_of_the_same_name_fences_the_older_one(kafka, sink_name):
    topic = kafka.create_topic("out")
    old = KafkaSink(topic, kafka.bootstrap, name=sink_name, timeout=Duration.seconds(20))
    old(0, outputs(0))
    with KafkaSink(topic, kafka.bootstrap, name=sink_name) as new:
        new(1, outputs(1))
        with pytest.raises(Exception, match=r"(?i)fenced"):
            old(2, outputs(2))
    old.close()
    assert [k.split("/")[1] for k, _ in written(kafka, topic)] == ["0"] * 3 + ["1"] * 3


def test_streams_keep_only_the_outputs_named(kafka, sink_name):
    topic = kafka.create_topic("out")
    mixed = [*outputs(0), Output("late-log", 0, "default", ["a", 1, 2]), *outputs(0, stream="late")]
    with KafkaSink(topic, kafka.bootstrap, name=sink_name, streams=["sum:default"]) as sink:
        sink(0, mixed)
        sink(1, [Output("late-log", 0, "default", ["b", 1, 2])])  # nothing selected: no transaction
        assert sink.mark.batch == 0
    assert written(kafka, topic) == expected(sink_name, "0", outputs(0))


def test_a_missing_topic_is_created_with_the_partitions_asked(kafka, sink_name):
    topic = f"new-{uuid.uuid4().hex[:8]}"
    with KafkaSink(topic, kafka.bootstrap, name=sink_name, partitions=2) as sink:
        sink(0, outputs(0, n=6))
    assert kafka.admin.list_topics(topic, timeout=10).topics[topic].partitions.keys() == {0, 1}
    assert sorted(k for k, _ in written(kafka, topic)) == [f"{sink_name}/0/{i}" for i in range(6)]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"name": "a b"}, "`name` must be letters, digits"),
    ({"topic": ""}, "`topic` must be letters, digits"),
    ({"streams": "sum:default"}, "`streams` must be a list of 'component:stream' names"),
    ({"streams": ["sum"]}, "`streams` must be a list of 'component:stream' names"),
    ({"partitions": 0}, "`partitions` must be a positive int"),
    ({"timeout": 5}, "`timeout` must be a positive Duration"),
    ({"retry": 120}, "`retry` must be a Duration of zero or more"),
    ({"bootstrap_servers": ""}, "`bootstrap_servers` must be 'host:port"),
])
def test_bad_parameters_are_refused_when_the_sink_is_made(kwargs, message):
    arguments = {"topic": "out", "bootstrap_servers": "127.0.0.1:9092", "name": "sums", **kwargs}
    with pytest.raises(ValueError, match=message):
        KafkaSink(arguments.pop("topic"), arguments.pop("bootstrap_servers"), **arguments)


def test_as_a_runners_sink_it_writes_the_batchs_records_of_its_streams_once(kafka, sink_name):
    from topologies.engine.delivery import HeldOutputs, SinkDelivery

    topic = kafka.create_topic("out")
    mixed = outputs(0) + outputs(0, stream="late")
    delivery = SinkDelivery([], None)  # type: ignore[arg-type] # records need no column types
    with KafkaSink(topic, kafka.bootstrap, name=sink_name, streams=["sum:default"]) as sink:
        sink.write(HeldOutputs(0, mixed, delivery))
        sink.write(HeldOutputs(0, mixed, delivery))  # Spark runs batch 0 again
    assert written(kafka, topic) == expected(sink_name, "0", outputs(0))
