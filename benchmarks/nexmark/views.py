"""What every query reads: the event files as Spark streams, nexmark's three views, and the run's settings.

Nexmark defines its queries over three views of one event table
(``ddl_views.sql``: ``person``, ``auction``, ``bid``, each the rows of one
``event_type`` with its struct's fields and the event time). Both engines read
them from the same files with the same code: Spark's queries start from
:func:`view`, and squall's topologies read the same streaming DataFrames
through a custom spout, :class:`~benchmarks.nexmark.query.NexmarkView` (so the
filter on ``event_type`` and the projection happen in Spark's scan for both).
Event times are ``date_time`` (a ``TIMESTAMP``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.nexmark.generator import AUCTION, BID, PERSON

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SCHEMA = (
    "event_type INT, "
    "person STRUCT<id: BIGINT, name: STRING, email_address: STRING, credit_card: STRING, city: STRING, "
    "state: STRING, date_time: TIMESTAMP, extra: STRING>, "
    "auction STRUCT<id: BIGINT, item_name: STRING, description: STRING, initial_bid: BIGINT, reserve: BIGINT, "
    "date_time: TIMESTAMP, expires: TIMESTAMP, seller: BIGINT, category: BIGINT, extra: STRING>, "
    "bid STRUCT<auction: BIGINT, bidder: BIGINT, price: BIGINT, channel: STRING, url: STRING, "
    "date_time: TIMESTAMP, extra: STRING>, "
    "date_time TIMESTAMP"
)
KINDS = {"person": PERSON, "auction": AUCTION, "bid": BID}
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Workload:
    """One run's input and settings, shared by Spark's queries and squall's topologies.

    ``data``: the directory of event files; ``files_per_batch``: Spark's
    ``maxFilesPerTrigger``; ``lag_ms``: the watermark's delay
    (``withWatermark``, squall's ``with_lag``); ``tasks``: the parallelism of
    squall's keyed bolts.
    """

    data: Path
    files_per_batch: int = 2
    lag_ms: int = 4_000
    tasks: int = 2

    @property
    def lag(self) -> str:
        """The lag as Spark spells a delay."""
        return f"{self.lag_ms} milliseconds"


def events(spark: SparkSession, workload: Workload) -> DataFrame:
    """The event files as a stream, ``files_per_batch`` files per micro-batch."""
    return (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", workload.files_per_batch)
            .parquet(str(workload.data)))


def view(df: DataFrame, kind: str, fields: Sequence[str]) -> DataFrame:
    """Nexmark's view ``kind`` (``person``, ``auction`` or ``bid``) of ``df``: its rows, with ``fields``.

    A field is one of the kind's struct fields or ``date_time``; ``"x AS y"``
    renames one.
    """
    from pyspark.sql import functions as F

    columns = []
    for field in fields:
        name, _, alias = field.partition(" AS ")
        column = F.col("date_time") if name == "date_time" else F.col(f"{kind}.{name}")
        columns.append(column.alias(alias or name))
    return df.where(F.col("event_type") == KINDS[kind]).select(*columns)


def batch_events(spark: SparkSession, workload: Workload) -> DataFrame:
    """Every event of the files at once (for the queries Spark cannot run as a stream)."""
    return spark.read.schema(SCHEMA).parquet(str(workload.data))


def millis(value: Any) -> int:
    """Epoch milliseconds of a ``datetime`` (aware, as squall gives it) or of an int already in ms."""
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return (aware - EPOCH) // timedelta(milliseconds=1)
    return int(value)
