"""Kafka records on the driver: put in partition order, and malformed JSON values routed, dropped or raised.

A Kafka spout's DataFrame carries side columns after its fields: every
record's topic, partition and offset (always), and, for JSON values, why a
record is malformed (``"tombstone"`` for a record with no value, ``"json"``
for a value Spark's ``from_json`` could not read into the schema), its raw
text and, per column of the schema, its name, type and whether it came out
null; all null on a good record. :func:`split_records` sorts a batch by
(topic, partition, offset), so a partition's records reach the bolts in
offset order however Spark cut and collected the batch (the same order on a
replay), then takes the malformed records out by the spout's ``mode``, as
``FileSpout`` does: on the error stream as ``(raw, topic, partition, offset,
reason)``, dropped with a warning, or raised as :class:`MalformedRecordError`.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from topologies.spouts.malformed import MalformedRecordError, reason

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column
    from pyspark.sql.types import StructType

log = logging.getLogger("squall.spouts")

#: The fields of a Kafka spout's error stream.
ERROR_FIELDS = ("raw", "topic", "partition", "offset", "reason")
TOPIC_COLUMN = "__squall_kafka_topic"
PARTITION_COLUMN = "__squall_kafka_partition"
OFFSET_COLUMN = "__squall_kafka_offset"
POSITION_COLUMNS = (TOPIC_COLUMN, PARTITION_COLUMN, OFFSET_COLUMN)
BAD_COLUMN = "__squall_kafka_bad"
RAW_COLUMN = "__squall_kafka_raw"
COLUMNS_COLUMN = "__squall_columns"
JSON_SIDE_COLUMNS = (*POSITION_COLUMNS, BAD_COLUMN, RAW_COLUMN, COLUMNS_COLUMN)
CORRUPT_FIELD = "__squall_corrupt_record"
_SHOWN = 300  # characters of a raw value quoted in an exception message


def position_columns() -> list[Column]:
    """Topic, partition and offset of every record, in the order of :data:`POSITION_COLUMNS`."""
    from pyspark.sql import functions as F

    return [F.col("topic").alias(TOPIC_COLUMN), F.col("partition").alias(PARTITION_COLUMN),
            F.col("offset").alias(OFFSET_COLUMN)]


def parse_json(value: Column, schema: StructType) -> Column:
    """``value`` (Kafka's binary value) read as one JSON object of ``schema``, plus the corrupt-record field."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    with_corrupt = StructType([*schema.fields, StructField(CORRUPT_FIELD, StringType(), True)])
    options = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": CORRUPT_FIELD}
    return F.from_json(value.cast("string"), with_corrupt, options)


def json_side_columns(value: Column, parsed: Column, schema: StructType) -> list[Column]:
    """The side columns of a JSON spout (see the module docstring), in the order of :data:`JSON_SIDE_COLUMNS`."""
    from pyspark.sql import functions as F

    corrupt = parsed.getField(CORRUPT_FIELD)
    unread = corrupt.isNotNull() | parsed.isNull()  # parsed is null for an empty or blank value
    bad = F.when(value.isNull(), F.lit("tombstone")).when(unread, F.lit("json"))
    flags = [
        F.struct(
            F.lit(f.name).alias("name"),
            F.lit(f.dataType.simpleString().upper()).alias("type"),
            parsed.getField(f.name).isNull().alias("null"),
        )
        for f in schema.fields
    ]
    return [
        *position_columns(),
        bad.alias(BAD_COLUMN),
        F.when(value.isNotNull() & unread, F.coalesce(corrupt, value.cast("string"))).alias(RAW_COLUMN),
        F.when(value.isNotNull() & unread, F.array(*flags)).alias(COLUMNS_COLUMN),
    ]


def in_partition_order(table: pa.Table) -> pa.Table:
    """``table`` sorted by (topic, partition, offset): each partition's records in offset order."""
    return table.sort_by([(c, "ascending") for c in POSITION_COLUMNS])


def split_records(
    table: pa.Table, *, fields: list[str], stream: str, error_stream: str | None, mode: str | None, component: str,
) -> dict[str, pa.Table]:
    """A Kafka spout's batch (fields plus side columns) as ``{stream: rows}``, in partition order.

    ``mode`` is None for string and bytes values (no record is malformed);
    otherwise ``PERMISSIVE`` puts the malformed records on ``error_stream``,
    ``DROPMALFORMED`` drops them with a warning, ``FAILFAST`` raises
    :class:`MalformedRecordError` for the first one.
    """
    import pyarrow.compute as pc

    table = in_partition_order(table)
    if mode is None or table.column(BAD_COLUMN).null_count == table.num_rows:
        return {stream: table.select(fields)}
    bad = pc.is_valid(table.column(BAD_COLUMN))
    good = table.filter(pc.invert(bad)).select(fields)
    rows = table.filter(bad).select([*POSITION_COLUMNS, BAD_COLUMN, RAW_COLUMN, COLUMNS_COLUMN]).to_pylist()
    records = [(r[RAW_COLUMN], r[TOPIC_COLUMN], r[PARTITION_COLUMN], r[OFFSET_COLUMN], _reason(r)) for r in rows]
    if mode == "PERMISSIVE" and error_stream is not None:
        return {stream: good, error_stream: _error_table(records)}
    raw, topic, partition, offset, why = records[0]
    shown = "no value" if raw is None else repr(_clip(raw))
    if mode == "FAILFAST":
        more = f"; {len(records)} malformed records in this batch" if len(records) > 1 else ""
        msg = (
            f"KafkaSpout {component!r}: malformed JSON value in topic {topic!r} partition {partition} offset "
            f"{offset}: {shown} ({why}){more}. mode='FAILFAST' stops the query at the first one; with "
            "mode='PERMISSIVE' (the default) they go to the spout's error stream instead"
        )
        raise MalformedRecordError(msg)
    log.warning(
        "KafkaSpout %r: dropped %d malformed record(s) of this batch (mode=%r); the first, topic %r partition %d "
        "offset %d: %s (%s)", component, len(records), mode, topic, partition, offset, shown, why,
    )
    return {stream: good}


def _reason(row: dict[str, Any]) -> str:
    if row[BAD_COLUMN] == "tombstone":
        return "the record has no value (a tombstone), not a JSON object"
    raw = row[RAW_COLUMN]
    try:
        record = json.loads(raw)
    except ValueError:
        record = {}
    if not isinstance(record, dict):
        return f"malformed JSON: a value must hold one JSON object; got {_clip(raw, 60)}"
    return reason("json", raw, row[COLUMNS_COLUMN])


def _error_table(records: list[tuple[Any, ...]]) -> pa.Table:
    import pyarrow as pa

    types = (pa.string(), pa.string(), pa.int32(), pa.int64(), pa.string())
    columns = [pa.array([r[i] for r in records], t) for i, t in enumerate(types)]
    return pa.table(columns, names=list(ERROR_FIELDS))


def _clip(text: str, limit: int = _SHOWN) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
