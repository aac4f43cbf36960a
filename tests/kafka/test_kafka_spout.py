"""KafkaSpout on local Spark against a real broker: decoding, metadata, partition order, malformed values."""

from __future__ import annotations

import json
import logging

import pytest

from tests.kafka.helpers import echo_topology, event, run_bounded
from topologies.spouts import KafkaSpout, MalformedRecordError

SCHEMA = "key STRING, ts BIGINT, value BIGINT"
KAFKA_TS = 1_700_000_000_123  # the records' Kafka timestamp (CreateTime), epoch ms


def values_of(handle, component, stream="default"):
    return [list(o.values) for o in handle.outputs() if o.component == component and o.stream == stream]


def test_json_string_and_bytes_values_with_key_partition_offset_and_timestamp(kafka, kafka_spark, tmp_path):
    topic = kafka.create_topic("decode")
    kafka.produce(topic, [event("k1", 1_000, 1), ("k2", json.dumps({"key": "b", "ts": 2_000, "value": 2})),
                          (None, json.dumps({"ts": 3_000}))], timestamp=KAFKA_TS)
    json_fields = ("key", "ts", "value", "kafka_key", "topic", "partition", "offset", "timestamp")
    spouts = {
        "json": KafkaSpout(topic, kafka.bootstrap, schema=SCHEMA, fields=json_fields),
        "text": KafkaSpout([topic], kafka.bootstrap, value_format="string",
                           fields=("key", "value", "offset", "timestamp")),
        "raw": KafkaSpout(topic, [kafka.bootstrap], value_format="bytes", fields=("key", "value")),
    }
    fields = {"json": json_fields, "text": ("key", "value", "offset", "timestamp"), "raw": ("key", "value")}
    handle = run_bounded(kafka_spark, tmp_path, echo_topology(spouts, fields, global_grouping=True))
    assert handle.await_termination(180)
    assert values_of(handle, "echo-json") == [
        ["k1", 1_000, 1, "k1", topic, 0, 0, KAFKA_TS],  # the JSON field `key` wins; Kafka's key is kafka_key
        ["b", 2_000, 2, "k2", topic, 0, 1, KAFKA_TS],
        [None, 3_000, None, None, topic, 0, 2, KAFKA_TS],  # absent JSON fields are null, not malformed
    ]
    assert values_of(handle, "echo-text") == [
        ["k1", '{"key": "k1", "ts": 1000, "value": 1}', 0, KAFKA_TS],
        ["k2", '{"key": "b", "ts": 2000, "value": 2}', 1, KAFKA_TS],
        [None, '{"ts": 3000}', 2, KAFKA_TS],
    ]
    assert values_of(handle, "echo-raw") == [
        [b"k1", b'{"key": "k1", "ts": 1000, "value": 1}'],
        [b"k2", b'{"key": "b", "ts": 2000, "value": 2}'],
        [None, b'{"ts": 3000}'],
    ]
    assert not any(o.stream == "errors" for o in handle.outputs())


@pytest.mark.parametrize("mode", ["driver", pytest.param("distributed", marks=pytest.mark.needs("redis_url"))])
def test_each_partition_reaches_the_bolt_in_offset_order_across_batches(kafka, kafka_spark, tmp_path, mode, request):
    """In distributed mode each Spark partition's records are cut and routed on the executor that read them."""
    topic = kafka.create_topic("order", partitions=3)
    per_partition = 40
    # Interleaved writes to three partitions; each value carries its partition and its sequence number there.
    kafka.produce(topic, [(f"p{p}", json.dumps({"p": p, "seq": i}), p)
                          for i in range(per_partition) for p in range(3)])
    # minPartitions=6 cuts each Kafka partition into two Spark partitions; batches of at most 25 records.
    spout = KafkaSpout(topic, kafka.bootstrap, schema="p INT, seq BIGINT", fields=("p", "seq", "partition", "offset"),
                       max_offsets_per_trigger=25, options={"minPartitions": 6})
    topology = echo_topology({"events": spout}, {"events": ("p", "seq", "partition", "offset")}, global_grouping=True)
    state = {"mode": "distributed", "state": request.getfixturevalue("redis_url")} if mode == "distributed" else {}
    handle = run_bounded(kafka_spark, tmp_path, topology, **state)
    assert handle.await_termination(180)
    assert handle.progress.batches >= 4
    seen = values_of(handle, "echo-events")
    assert len(seen) == 3 * per_partition
    for p in range(3):
        mine = [row for row in seen if row[2] == p]
        assert [row[1] for row in mine] == list(range(per_partition)), f"partition {p} out of order"
        assert [row[3] for row in mine] == list(range(per_partition))
        assert all(row[0] == p for row in mine)


def bad_records() -> list[tuple[str | None, str | None]]:
    return [
        event("a", 1_000, 1),
        ("b", '{"key": "b", "ts": '),  # not JSON
        ("c", '{"key": "c", "ts": "soon", "value": 3}'),  # not a BIGINT
        ("d", "[1, 2]"),  # JSON, not an object
        ("e", None),  # a tombstone
        ("e2", ""),  # an empty value
        event("f", 6_000, 6),
    ]


def test_malformed_json_values_go_to_the_error_stream_with_their_position_and_reason(kafka, kafka_spark, tmp_path):
    topic = kafka.create_topic("bad")
    kafka.produce(topic, bad_records())
    spout = KafkaSpout(topic, kafka.bootstrap, schema=SCHEMA, fields=("key", "ts", "value"))
    handle = run_bounded(kafka_spark, tmp_path, echo_topology({"events": spout}, {"events": ("key", "ts", "value")}))
    assert handle.await_termination(180)
    assert values_of(handle, "echo-events") == [["a", 1_000, 1], ["f", 6_000, 6]]
    errors = [list(o.values) for o in handle.outputs() if o.component == "events" and o.stream == "errors"]
    assert errors == [
        ['{"key": "b", "ts": ', topic, 0, 1, "malformed JSON: Expecting value: line 1 column 20 (char 19)"],
        ['{"key": "c", "ts": "soon", "value": 3}', topic, 0, 2, "value 'soon' of field 'ts' is not a BIGINT"],
        ["[1, 2]", topic, 0, 3, "malformed JSON: a value must hold one JSON object; got [1, 2]"],
        [None, topic, 0, 4, "the record has no value (a tombstone), not a JSON object"],
        ["", topic, 0, 5, "malformed JSON: Expecting value: line 1 column 1 (char 0)"],
    ]


def test_failfast_fails_the_query_naming_topic_partition_offset_and_value(kafka, kafka_spark, tmp_path):
    topic = kafka.create_topic("failfast")
    kafka.produce(topic, bad_records())
    spout = KafkaSpout(topic, kafka.bootstrap, schema=SCHEMA, mode="failfast")
    handle = run_bounded(kafka_spark, tmp_path, echo_topology({"events": spout}, {"events": ("key", "ts", "value")}))
    with pytest.raises(MalformedRecordError) as raised:
        handle.await_termination(180)
    message = str(raised.value)
    assert f"topic {topic!r} partition 0 offset 1" in message
    assert "'{\"key\": \"b\", \"ts\": '" in message
    assert "5 malformed records in this batch" in message


def test_dropmalformed_drops_them_with_a_warning_and_reads_no_aborted_transaction(kafka, kafka_spark, tmp_path,
                                                                                   caplog):
    from confluent_kafka import Producer

    topic = kafka.create_topic("drop")
    kafka.produce(topic, bad_records())
    aborted = Producer({"bootstrap.servers": kafka.bootstrap, "transactional.id": f"abort-{topic}"})
    aborted.init_transactions(30)
    aborted.begin_transaction()
    aborted.produce(topic, key=b"z", value=event("z", 9_000, 9)[1].encode())
    aborted.flush(30)
    aborted.abort_transaction(30)
    kafka.produce(topic, [event("g", 7_000, 7)])
    spout = KafkaSpout(topic, kafka.bootstrap, schema=SCHEMA, mode="DROPMALFORMED")
    assert "errors" not in spout.output_streams()
    with caplog.at_level(logging.WARNING, logger="squall.spouts"):
        handle = run_bounded(kafka_spark, tmp_path,
                             echo_topology({"events": spout}, {"events": ("key", "ts", "value")}))
        assert handle.await_termination(180)
    assert values_of(handle, "echo-events") == [["a", 1_000, 1], ["f", 6_000, 6], ["g", 7_000, 7]]
    warnings = [r.getMessage() for r in caplog.records if r.name == "squall.spouts"]
    assert len(warnings) == 1 and "dropped 5 malformed record(s)" in warnings[0], warnings
