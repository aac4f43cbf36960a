"""Tuples from Kafka topics through Spark's Kafka source: JSON, string or bytes values, with Kafka's metadata."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bolts.tuples import DEFAULT_STREAM, Fields
from topologies.spouts.base import Spout
from topologies.spouts.kafka_connector import missing_connector_message
from topologies.spouts.kafka_records import (
    ERROR_FIELDS,
    JSON_SIDE_COLUMNS,
    POSITION_COLUMNS,
    json_side_columns,
    parse_json,
    position_columns,
    split_records,
)
from topologies.spouts.malformed import MODES

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import StructType

VALUE_FORMATS = ("json", "string", "bytes")
KEY_FORMATS = ("string", "bytes")
#: Kafka's metadata of a record, available as fields (and always as ``kafka_<name>``).
METADATA = ("key", "topic", "partition", "offset", "timestamp")
DEFAULT_ERROR_STREAM = "errors"
# Option names whose values are never shown: Spark's default spark.redaction.regex, plus JAAS configs and keys.
_SECRET = re.compile(r"(?i)secret|password|token|access[.]?key|jaas|ssl[.]key")
# Source options the spout's own parameters set; passing them in `options` is refused, naming the parameter.
_OWN_OPTIONS = {
    "subscribe": "topics", "subscribepattern": "topics", "assign": "topics",
    "kafka.bootstrap.servers": "bootstrap_servers", "startingoffsets": "starting_offsets",
    "maxoffsetspertrigger": "max_offsets_per_trigger",
}


class KafkaSpout(Spout):
    """Reads ``topics`` with Spark's Kafka source, one record per tuple, each partition in offset order.

    ``value_format``: ``"json"`` (the value is one JSON object, read with
    ``schema``, a DDL string such as ``"key STRING, ts BIGINT"`` or a
    ``StructType``, required), ``"string"`` (UTF-8 text) or ``"bytes"``; the
    value's fields (``value`` for text and bytes) and Kafka's metadata are the
    fields a spout can declare: ``key`` (text, or bytes with ``key_format="bytes"``,
    the default for bytes values), ``topic``, ``partition``, ``offset`` and
    ``timestamp`` (Kafka's timestamp in epoch milliseconds, an int, ready for
    ``with_timestamp_field("timestamp")``). A JSON field of the same name wins;
    the metadata stays available as ``kafka_key``, ``kafka_topic``, ... ``fields``
    defaults to the schema's fields (``("value",)`` for text and bytes).

    ``starting_offsets``: ``"earliest"`` (the default), ``"latest"`` or
    ``{topic: {partition: offset}}``, for a query's first batch; after that the
    checkpoint says where to go on. ``max_offsets_per_trigger`` caps the
    records per batch. ``options`` go to the source as they are (``kafka.*``
    consumer settings, ``minPartitions``, ``failOnDataLoss``, ...), security
    among them: ``kafka.security.protocol``, ``kafka.sasl.mechanism``,
    ``kafka.sasl.jaas.config``, ``kafka.ssl.truststore.*`` (docs/kafka.md,
    "A secured Kafka"). Squall never shows the value of an option whose name
    says it is secret (a password, a JAAS config, a key); Spark redacts them
    from its plans and logs. The spout
    reads with ``kafka.isolation.level=read_committed`` unless ``options``
    says otherwise, so aborted transactions are never read.

    In every batch each partition's records come in offset order (the batch is
    sorted by topic, partition and offset on the driver), and a replayed batch
    reads the same offsets. A JSON value that is not one JSON object of the
    schema (or no value at all: a tombstone) is malformed; ``mode`` says where
    it goes, as for ``FileSpout``: ``"PERMISSIVE"`` (the default) emits it on
    ``error_stream`` (``"errors"`` unless given) with the fields ``raw``,
    ``topic``, ``partition``, ``offset`` and ``reason``; ``"DROPMALFORMED"``
    drops it with a warning; ``"FAILFAST"`` fails the batch with a
    :class:`MalformedRecordError`.
    """

    def __init__(
        self,
        topics: str | Sequence[str],
        bootstrap_servers: str | Sequence[str],
        *,
        value_format: str = "json",
        schema: str | StructType | None = None,
        fields: Fields | Sequence[str] | None = None,
        key_format: str | None = None,
        starting_offsets: str | Mapping[str, Mapping[int | str, int]] = "earliest",
        max_offsets_per_trigger: int | None = None,
        options: Mapping[str, str | int | float | bool] | None = None,
        stream: str = DEFAULT_STREAM,
        mode: str = "PERMISSIVE",
        error_stream: str | None = None,
    ) -> None:
        self.topics = _names("topics", topics)
        self.bootstrap_servers = ",".join(_names("bootstrap_servers", bootstrap_servers))
        self.value_format = _choice("value_format", value_format, VALUE_FORMATS)
        self.schema = _check_schema(self.value_format, schema)
        self.key_format = _choice("key_format", key_format or ("bytes" if value_format == "bytes" else "string"),
                                  KEY_FORMATS)
        self.value_fields = _value_fields(self.value_format, self.schema)
        if fields is None and self.value_fields is None:
            msg = f"KafkaSpout: pass `fields`; the field names of schema {schema!r} could not be read from it"
            raise ValueError(msg)
        super().__init__(fields if fields is not None else self.value_fields, stream)  # type: ignore[arg-type]
        _check_fields(self.fields, self.value_fields)
        self.starting_offsets = _starting_offsets(starting_offsets)
        self.max_offsets_per_trigger = _check_max_offsets(max_offsets_per_trigger)
        self.options = _options(options)
        self.mode = _check_mode(self.value_format, mode)
        self.error_stream = _check_error_stream(self.mode, error_stream, stream)

    def output_streams(self) -> dict[str, Fields]:
        """The spout's stream, plus its error stream (``raw, topic, partition, offset, reason``) for JSON values."""
        streams = super().output_streams()
        if self.error_stream is not None:
            streams[self.error_stream] = Fields(ERROR_FIELDS)
        return streams

    def side_columns(self) -> tuple[str, ...]:
        """Every record's topic, partition and offset; for JSON values, what makes a record malformed."""
        return JSON_SIDE_COLUMNS if self.value_format == "json" else POSITION_COLUMNS

    def dataframe(self, spark: SparkSession) -> DataFrame:
        """A streaming read of the topics: the declared fields, then the side columns."""
        from pyspark.sql import functions as F

        reader = (
            spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", self.bootstrap_servers)
            .option("subscribe", ",".join(self.topics))
            .option("startingOffsets", self.starting_offsets)
            .option("kafka.isolation.level", "read_committed")
        )
        if self.max_offsets_per_trigger is not None:
            reader = reader.option("maxOffsetsPerTrigger", self.max_offsets_per_trigger)
        for name, value in self.options.items():
            reader = reader.option(name, value)
        raw = _load(reader)
        key = F.col("key").cast("string") if self.key_format == "string" else F.col("key")
        metadata = {"key": key, "topic": F.col("topic"), "partition": F.col("partition"),
                    "offset": F.col("offset"), "timestamp": F.unix_millis(F.col("timestamp"))}
        if self.value_format != "json":
            value = F.col("value").cast("string") if self.value_format == "string" else F.col("value")
            columns = self._columns({"value": value}, metadata)
            return raw.select(*columns, *position_columns())
        schema = self._struct(spark)
        staged = raw.select("*", parse_json(F.col("value"), schema).alias("__squall_parsed"))
        parsed = F.col("__squall_parsed")
        columns = self._columns({f.name: parsed.getField(f.name) for f in schema.fields}, metadata)
        return staged.select(*columns, *json_side_columns(F.col("value"), parsed, schema))

    def split(self, table: pa.Table, component: str) -> dict[str, pa.Table]:
        """The batch in partition order; malformed JSON values handled by ``mode``."""
        return split_records(table, fields=list(self.fields), stream=self.stream, error_stream=self.error_stream,
                             mode=self.mode, component=component)

    def _columns(self, values: Mapping[str, Column], metadata: Mapping[str, Column]) -> list[Column]:
        available = {**{f"kafka_{m}": c for m, c in metadata.items()}, **metadata, **values}
        missing = [f for f in self.fields if f not in available]
        if missing:
            msg = (f"KafkaSpout: `fields` names {', '.join(map(repr, missing))}, which a record does not have; "
                   f"the fields are: {', '.join(available)}")
            raise ValueError(msg)
        return [available[f].alias(f) for f in self.fields]

    def _struct(self, spark: SparkSession) -> StructType:
        from pyspark.sql.types import StructType

        if isinstance(self.schema, StructType):
            return self.schema
        try:
            return StructType.fromDDL(self.schema)
        except Exception as err:  # ParseException and the like: the DDL does not parse
            msg = f"KafkaSpout: `schema` must be a DDL string such as 'key STRING, ts BIGINT'; got {self.schema!r}"
            raise ValueError(msg) from err


def _load(reader: Any) -> DataFrame:
    try:
        return reader.load()
    except Exception as err:  # AnalysisException [DATA_SOURCE_NOT_FOUND] when the connector is not on the classpath
        if "DATA_SOURCE_NOT_FOUND" in str(err) or "Failed to find data source" in str(err):
            raise RuntimeError(missing_connector_message("KafkaSpout")) from err
        raise


def _names(parameter: str, value: str | Sequence[str]) -> list[str]:
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, Sequence) or not all(isinstance(i, str) for i in items):
        msg = f"KafkaSpout: `{parameter}` must be a str or a list of str; got {value!r} instead"
        raise TypeError(msg)
    names = [i.strip() for i in items]
    if not names or not all(names):
        msg = f"KafkaSpout: `{parameter}` must name at least one, with no empty name; got {value!r} instead"
        raise ValueError(msg)
    return names


def _choice(parameter: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        msg = f"KafkaSpout: `{parameter}` must be one of {', '.join(map(repr, choices))}; got {value!r} instead"
        raise ValueError(msg)
    return value


def _check_schema(value_format: str, schema: str | StructType | None) -> str | StructType | None:
    if value_format != "json":
        if schema is not None:
            msg = f"KafkaSpout: `schema` applies to value_format='json'; got a schema with {value_format=}"
            raise ValueError(msg)
        return None
    if schema is None:
        msg = ("KafkaSpout: value_format='json' needs `schema`, a DDL string such as 'key STRING, ts BIGINT' "
               "(a topic has no files to infer one from)")
        raise ValueError(msg)
    if not isinstance(schema, str) and not hasattr(schema, "fieldNames"):
        msg = f"KafkaSpout: `schema` must be a DDL string or a StructType; got {schema!r} instead"
        raise TypeError(msg)
    return schema


def _check_fields(fields: Fields, value_fields: tuple[str, ...] | None) -> None:
    """``ValueError`` listing a record's fields when ``fields`` names another (unchecked if the DDL was not read)."""
    if value_fields is None:
        return
    available = [*value_fields, *(m for m in METADATA if m not in value_fields),
                 *(f"kafka_{m}" for m in METADATA if f"kafka_{m}" not in value_fields)]
    unknown = [f for f in fields if f not in available]
    if unknown:
        msg = (f"KafkaSpout: `fields` names {', '.join(map(repr, unknown))}, which a record does not have; "
               f"the fields are: {', '.join(available)}")
        raise ValueError(msg)


def _check_max_offsets(value: int | None) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        msg = f"KafkaSpout: `max_offsets_per_trigger` must be a positive int; got {value!r} instead"
        raise ValueError(msg)
    return value


def _value_fields(value_format: str, schema: str | StructType | None) -> tuple[str, ...] | None:
    """The value's top-level field names (``("value",)`` for text and bytes); None when a DDL is beyond this reader."""
    if value_format != "json":
        return ("value",)
    if not isinstance(schema, str):
        return tuple(schema.fieldNames())  # type: ignore[union-attr]
    names: list[str] = []
    depth = start = 0
    for i, ch in enumerate(f"{schema},"):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == "," and depth == 0:
            match = re.match(r"\s*(`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)\s*:?\s+\S", schema[start:i])
            if match is None:
                return None  # let Spark's parser say what is wrong, at submit
            names.append(match.group(1).strip("`"))
            start = i + 1
    return tuple(names)


def _starting_offsets(value: str | Mapping[str, Mapping[int | str, int]]) -> str:
    if value in ("earliest", "latest"):
        return str(value)
    if isinstance(value, Mapping) and all(isinstance(v, Mapping) for v in value.values()):
        return json.dumps({t: {str(p): o for p, o in parts.items()} for t, parts in value.items()})
    msg = ("KafkaSpout: `starting_offsets` must be 'earliest', 'latest' or {topic: {partition: offset}}; "
           f"got {value!r} instead")
    raise ValueError(msg)


def _options(options: Mapping[str, Any] | None) -> dict[str, str]:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        msg = f"KafkaSpout: `options` must be a mapping of source options; got a {type(options).__name__} instead"
        raise TypeError(msg)
    result = {}
    for name, value in options.items():
        if not isinstance(name, str) or not isinstance(value, str | int | float | bool):
            shown = "*****(redacted)" if isinstance(name, str) and _SECRET.search(name) else repr(value)
            msg = f"KafkaSpout: `options` must map str to str, int, float or bool; got {name!r}: {shown}"
            raise TypeError(msg)
        if name.lower() in _OWN_OPTIONS:
            msg = f"KafkaSpout: set {name!r} with the `{_OWN_OPTIONS[name.lower()]}` parameter, not in `options`"
            raise ValueError(msg)
        result[name] = str(value).lower() if isinstance(value, bool) else str(value)
    return result


def _check_mode(value_format: str, mode: str) -> str | None:
    choices = ", ".join(map(repr, MODES))
    if not isinstance(mode, str) or mode.upper() not in MODES:
        msg = f"KafkaSpout: `mode` must be one of {choices}; got {mode!r} instead"
        raise ValueError(msg)
    if value_format != "json":
        if mode.upper() != "PERMISSIVE":
            msg = (f"KafkaSpout: `mode` applies to value_format='json' only; got mode={mode!r} with "
                   f"value_format={value_format!r} (every {value_format} value is read as it is)")
            raise ValueError(msg)
        return None
    return mode.upper()


def _check_error_stream(mode: str | None, error_stream: str | None, stream: str) -> str | None:
    if error_stream is not None and (not isinstance(error_stream, str) or not error_stream):
        msg = f"KafkaSpout: `error_stream` must be a non-empty str; got {error_stream!r} instead"
        raise TypeError(msg)
    if mode != "PERMISSIVE":
        if error_stream is not None:
            why = "string and bytes values are never malformed" if mode is None else f"mode={mode!r}"
            msg = f"KafkaSpout: `error_stream` applies to mode='PERMISSIVE' with JSON values; {why}"
            raise ValueError(msg)
        return None
    error_stream = error_stream or DEFAULT_ERROR_STREAM
    if error_stream == stream:
        msg = (f"KafkaSpout: `error_stream` must differ from `stream`; both are {stream!r} "
               "(pass error_stream='...' or stream='...' to tell them apart)")
        raise ValueError(msg)
    return error_stream
