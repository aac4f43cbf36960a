"""KafkaSpout without Spark or a broker: what it refuses when made, its fields and streams, and batch splitting."""

from __future__ import annotations

import pyarrow as pa
import pytest

from topologies.spouts import KafkaSpout, MalformedRecordError, connector_jars, kafka_connector
from topologies.spouts.kafka_records import JSON_SIDE_COLUMNS, POSITION_COLUMNS, split_records
from topologies.spouts.kafka_spout import _load, _value_fields

SCHEMA = "key STRING, ts BIGINT, value BIGINT"


def spout(**kwargs):
    arguments = {"topics": "events", "bootstrap_servers": "127.0.0.1:9092", "schema": SCHEMA, **kwargs}
    return KafkaSpout(arguments.pop("topics"), arguments.pop("bootstrap_servers"), **arguments)


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"topics": ""}, ValueError, "`topics` must name at least one"),
    ({"topics": ["a", 1]}, TypeError, "`topics` must be a str or a list of str"),
    ({"bootstrap_servers": "h:1,"}, ValueError, "`bootstrap_servers` must name at least one"),
    ({"value_format": "avro"}, ValueError, "`value_format` must be one of 'json', 'string', 'bytes'; got 'avro'"),
    ({"schema": None}, ValueError, "value_format='json' needs `schema`"),
    ({"value_format": "string"}, ValueError, "`schema` applies to value_format='json'"),
    ({"fields": ("key", "size")}, ValueError, "`fields` names 'size', which a record does not have; the fields are: "
                                              "key, ts, value, topic, partition, offset, timestamp, kafka_key"),
    ({"key_format": "int"}, ValueError, "`key_format` must be one of 'string', 'bytes'"),
    ({"starting_offsets": "newest"}, ValueError, "`starting_offsets` must be 'earliest', 'latest' or"),
    ({"max_offsets_per_trigger": 0}, ValueError, "`max_offsets_per_trigger` must be a positive int"),
    ({"options": {"subscribe": "other"}}, ValueError, "set 'subscribe' with the `topics` parameter"),
    ({"options": {"startingOffsets": "latest"}}, ValueError, "with the `starting_offsets` parameter"),
    ({"options": {"minPartitions": [2]}}, TypeError, "`options` must map str to str, int, float or bool"),
    ({"mode": "lenient"}, ValueError, "`mode` must be one of 'PERMISSIVE', 'DROPMALFORMED', 'FAILFAST'"),
    ({"schema": None, "value_format": "bytes", "mode": "FAILFAST"}, ValueError,
     "`mode` applies to value_format='json' only"),
    ({"error_stream": "default"}, ValueError, "`error_stream` must differ from `stream`"),
    ({"mode": "DROPMALFORMED", "error_stream": "bad"}, ValueError, "applies to mode='PERMISSIVE'"),
])
def test_bad_parameters_are_refused_when_the_spout_is_made(kwargs, error, message):
    with pytest.raises(error) as raised:
        spout(**kwargs)
    assert message in str(raised.value)
    assert str(raised.value).startswith("KafkaSpout: ")


def test_a_refused_secret_option_is_named_and_its_value_never_shown():
    secret = b'ScramLoginModule required username="app" password="hunter2";'
    with pytest.raises(TypeError) as raised:
        spout(options={"kafka.sasl.jaas.config": secret})
    assert "'kafka.sasl.jaas.config': *****(redacted)" in str(raised.value)
    assert "hunter2" not in str(raised.value)


def test_fields_default_to_the_schema_and_the_metadata_can_be_declared():
    assert list(spout().fields) == ["key", "ts", "value"]
    s = spout(fields=("ts", "kafka_key", "partition", "offset", "timestamp", "topic"))
    assert list(s.fields) == ["ts", "kafka_key", "partition", "offset", "timestamp", "topic"]
    text = KafkaSpout(["a", "b"], ["h1:9092", "h2:9092"], value_format="string", fields=("key", "value"))
    assert text.topics == ["a", "b"] and text.bootstrap_servers == "h1:9092,h2:9092"
    assert list(KafkaSpout("a", "h:1", value_format="bytes").fields) == ["value"]
    assert KafkaSpout("a", "h:1", value_format="bytes").key_format == "bytes"
    assert text.supports_available_now


def test_a_json_spout_declares_its_error_stream_and_text_has_none():
    def streams(s):
        return {name: tuple(fields) for name, fields in s.output_streams().items()}

    assert streams(spout()) == {"default": ("key", "ts", "value"),
                                "errors": ("raw", "topic", "partition", "offset", "reason")}
    assert streams(spout(mode="failfast")) == {"default": ("key", "ts", "value")}
    assert spout(mode="failfast").mode == "FAILFAST"
    text = KafkaSpout("a", "h:1", value_format="string")
    assert streams(text) == {"default": ("value",)} and text.mode is None
    assert spout().side_columns() == JSON_SIDE_COLUMNS and text.side_columns() == POSITION_COLUMNS


def test_the_options_go_to_the_source_as_text_and_offsets_as_json():
    s = spout(options={"minPartitions": 4, "failOnDataLoss": False, "kafka.isolation.level": "read_uncommitted"},
              starting_offsets={"events": {0: 5, 1: -2}})
    assert s.options == {"minPartitions": "4", "failOnDataLoss": "false", "kafka.isolation.level": "read_uncommitted"}
    assert s.starting_offsets == '{"events": {"0": 5, "1": -2}}'


@pytest.mark.parametrize(("ddl", "names"), [
    ("key STRING, ts BIGINT", ("key", "ts")),
    ("a ARRAY<STRUCT<x: INT, y: STRING>>, `my field` DECIMAL(10, 2), m MAP<STRING, INT>", ("a", "my field", "m")),
    ("a: INT, b: STRING", ("a", "b")),
    ("not a schema at all ,", None),
])
def test_the_schema_field_names_are_read_from_the_ddl(ddl, names):
    assert _value_fields("json", ddl) == names


def batch(rows):
    columns = ["key", "ts", "value", *JSON_SIDE_COLUMNS]
    return pa.table({c: pa.array([r.get(c) for r in rows], type=_type(c)) for c in columns})


def _type(column):
    types = {"ts": pa.int64(), "value": pa.int64(), "__squall_kafka_partition": pa.int32(),
             "__squall_kafka_offset": pa.int64(),
             "__squall_columns": pa.list_(pa.struct([("name", pa.string()), ("type", pa.string()),
                                                     ("null", pa.bool_())]))}
    return types.get(column, pa.string())


def row(partition, offset, key="k", bad=None, raw=None, columns=None):
    return {"key": key, "ts": offset, "value": 1, "__squall_kafka_topic": "t", "__squall_kafka_partition": partition,
            "__squall_kafka_offset": offset, "__squall_kafka_bad": bad, "__squall_kafka_raw": raw,
            "__squall_columns": columns}


def test_a_batch_is_put_in_partition_and_offset_order_and_its_malformed_records_split_off():
    flags = [{"name": "key", "type": "STRING", "null": True}, {"name": "ts", "type": "BIGINT", "null": True},
             {"name": "value", "type": "BIGINT", "null": True}]
    rows = [row(1, 7), row(0, 3), row(1, 5, bad="json", raw="{nope", columns=flags), row(0, 2),
            row(0, 4, bad="tombstone")]
    split = split_records(batch(rows), fields=["key", "ts"], stream="default", error_stream="errors",
                          mode="PERMISSIVE", component="events")
    assert split["default"].to_pylist() == [{"key": "k", "ts": t} for t in (2, 3, 7)]
    assert split["errors"].to_pylist() == [
        {"raw": None, "topic": "t", "partition": 0, "offset": 4,
         "reason": "the record has no value (a tombstone), not a JSON object"},
        {"raw": "{nope", "topic": "t", "partition": 1, "offset": 5,
         "reason": "malformed JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
    ]
    with pytest.raises(MalformedRecordError, match=r"'events': malformed JSON value in topic 't' partition 0 "
                                                   r"offset 4: no value \(the record has no value"):
        split_records(batch(rows), fields=["key"], stream="default", error_stream=None, mode="FAILFAST",
                      component="events")


def test_a_session_without_the_connector_is_told_how_to_add_it():
    class Reader:
        def load(self):
            raise RuntimeError("[DATA_SOURCE_NOT_FOUND] Failed to find the data source: kafka.")

    with pytest.raises(RuntimeError, match=r"no Kafka source .* \.config\('spark\.jars', ','\.join\(connector_jars"):
        _load(Reader())


def test_connector_jars_lists_the_jars_or_says_how_to_fetch_them(tmp_path, monkeypatch):
    version = "4.1.3"  # the installed pyspark's, as far as connector_jars knows
    monkeypatch.setattr(kafka_connector, "pyspark_version", lambda: version)
    with pytest.raises(FileNotFoundError, match=r"run 'bash scripts/install_services\.sh'"):
        connector_jars(tmp_path)
    for name in (f"spark-sql-kafka-0-10_2.13-{version}.jar", "kafka-clients-3.9.2.jar", "notes.txt"):
        (tmp_path / name).write_text("")
    assert connector_jars(tmp_path) == [str(tmp_path / "kafka-clients-3.9.2.jar"),
                                        str(tmp_path / f"spark-sql-kafka-0-10_2.13-{version}.jar")]
    jars = tmp_path / version / "jars"  # the default: <home>/<installed version>/jars
    jars.mkdir(parents=True)
    (jars / f"spark-sql-kafka-0-10_2.13-{version}.jar").write_text("")
    monkeypatch.setenv("SQUALL_SPARK_KAFKA_HOME", str(tmp_path))
    assert connector_jars() == [str(jars / f"spark-sql-kafka-0-10_2.13-{version}.jar")]


def test_connector_jars_refuse_another_versions_connector(tmp_path, monkeypatch):
    monkeypatch.setattr(kafka_connector, "pyspark_version", lambda: "4.2.0")
    (tmp_path / "spark-sql-kafka-0-10_2.13-4.0.4.jar").write_text("")
    expected = r"no spark-sql-kafka-0-10 jar for pyspark 4\.2\.0 in .* \(it holds the connector for Spark 4\.0\.4\); "
    with pytest.raises(FileNotFoundError, match=expected + r".*'scripts/kafka\.sh fetch-connector'"):
        connector_jars(tmp_path)
    monkeypatch.setenv("SQUALL_SPARK_KAFKA_HOME", str(tmp_path))  # holds 4.0.4/jars only
    (tmp_path / "4.0.4" / "jars").mkdir(parents=True)
    (tmp_path / "4.0.4" / "jars" / "spark-sql-kafka-0-10_2.13-4.0.4.jar").write_text("")
    with pytest.raises(FileNotFoundError, match=r"4\.2\.0/jars; .*spark-sql-kafka-0-10_2\.13:4\.2\.0"):
        connector_jars()
