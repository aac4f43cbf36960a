"""Tuples from files that arrive in a directory: JSON lines, CSV or Parquet."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bolts.tuples import DEFAULT_STREAM, Fields
from topologies.spouts.base import Spout

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

FORMATS = ("json", "csv", "parquet")


class FileSpout(Spout):
    """Reads the files in ``path`` as Spark's file stream source does, one row per tuple.

    ``format`` is ``"json"`` (JSON lines), ``"csv"`` (with a header row) or
    ``"parquet"``. ``schema`` (a DDL string such as ``"key STRING, ts BIGINT"`` or a
    ``StructType``) fixes the column types; without it the schema is inferred from
    the files present when the topology is submitted (so at least one must exist).
    ``max_files_per_trigger`` caps the files per batch (Spark's ``maxFilesPerTrigger``).
    Files are read once each, in the order Spark lists them; a replayed batch reads
    the same files.
    """

    def __init__(
        self,
        path: str | Path,
        format: str = "json",
        fields: Fields | Sequence[str] = ("value",),
        *,
        schema: str | StructType | None = None,
        max_files_per_trigger: int | None = None,
        stream: str = DEFAULT_STREAM,
    ) -> None:
        super().__init__(fields, stream)
        if not isinstance(path, str | Path) or not str(path):
            msg = f"FileSpout: `path` must be a directory path; got {path!r} instead"
            raise TypeError(msg)
        if format not in FORMATS:
            msg = f"FileSpout: `format` must be one of {', '.join(FORMATS)}; got {format!r} instead"
            raise ValueError(msg)
        if max_files_per_trigger is not None and (
            isinstance(max_files_per_trigger, bool) or not isinstance(max_files_per_trigger, int)
            or max_files_per_trigger < 1
        ):
            msg = f"FileSpout: `max_files_per_trigger` must be a positive int; got {max_files_per_trigger!r} instead"
            raise ValueError(msg)
        self.path = str(path)
        self.format = format
        self.schema = schema
        self.max_files_per_trigger = max_files_per_trigger

    def dataframe(self, spark: SparkSession) -> DataFrame:
        """A streaming read of the directory with the declared fields."""
        reader = spark.readStream.format(self.format).schema(self._schema(spark))
        if self.format == "csv":
            reader = reader.option("header", "true")
        if self.max_files_per_trigger is not None:
            reader = reader.option("maxFilesPerTrigger", self.max_files_per_trigger)
        return self._select(reader.load(self.path))

    def _schema(self, spark: SparkSession) -> str | StructType:
        if self.schema is not None:
            return self.schema
        try:
            batch = spark.read.format(self.format)
            if self.format == "csv":
                batch = batch.option("header", "true").option("inferSchema", "true")
            return batch.load(self.path).schema
        except Exception as err:  # AnalysisException: no files to infer from
            msg = (
                f"FileSpout: cannot infer the schema of {self.format} files in {self.path!r} ({err}); "
                "pass schema='field TYPE, ...' or add a file first"
            )
            raise ValueError(msg) from err
