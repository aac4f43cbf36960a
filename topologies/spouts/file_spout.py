"""Tuples from files that arrive in a directory: JSON lines, CSV or Parquet; malformed records go to an error stream."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bolts.tuples import DEFAULT_STREAM, Fields
from topologies.spouts.base import Spout
from topologies.spouts.malformed import (
    CORRUPT_COLUMN,
    ERROR_FIELDS,
    MODES,
    SIDE_COLUMNS,
    side_columns,
    split_malformed,
    with_corrupt_column,
    without_corrupt_column,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

FORMATS = ("json", "csv", "parquet")
TEXT_FORMATS = ("json", "csv")  # the formats that can hold malformed records
DEFAULT_ERROR_STREAM = "errors"


class FileSpout(Spout):
    """Reads the files in ``path`` as Spark's file stream source does, one row per tuple.

    ``format`` is ``"json"`` (JSON lines), ``"csv"`` (with a header row) or
    ``"parquet"``. ``schema`` (a DDL string such as ``"key STRING, ts BIGINT"`` or a
    ``StructType``) fixes the column types; without it the schema is inferred from
    the files present when the topology is submitted (so at least one must exist).
    ``max_files_per_trigger`` caps the files per batch (Spark's ``maxFilesPerTrigger``).
    Files are read once each, in the order Spark lists them; a replayed batch reads
    the same files.

    A JSON or CSV record that does not fit the schema (not JSON, a CSV row with
    too few or too many columns, a value that is not of its column's type) is
    malformed; ``mode`` says where it goes, as Spark's parse modes name it:
    ``"PERMISSIVE"`` (the default) emits it on ``error_stream`` (``"errors"``
    unless given) with the fields ``raw`` (the record's text), ``file`` (its
    file, as Spark names it) and ``reason``, where a bolt can subscribe to it
    and where, with no subscriber, it is one of the topology's outputs;
    ``"DROPMALFORMED"`` drops it, logging a warning that counts them;
    ``"FAILFAST"`` fails the batch with a :class:`MalformedRecordError` naming
    the file and the record. Parquet files hold typed columns, so ``mode`` and
    ``error_stream`` do not apply to them.

    ``where`` (a Spark SQL predicate such as ``"event_type = 2"``, over any
    column of the schema, declared field or not) keeps the rows for which it is
    true; a row where it is false or NULL is not read, as in SQL's ``WHERE``.
    Spark pushes it into the scan, so a Parquet file's row groups whose
    statistics rule it out are skipped, and no Python process decodes the rows
    it drops. Malformed JSON and CSV records are never filtered: their columns
    could not be read, so they go where ``mode`` says whatever the predicate.
    A predicate Spark cannot analyse (a column the files lack, a value that is
    not a boolean) raises ``ValueError`` when the topology is submitted.
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
        mode: str = "PERMISSIVE",
        error_stream: str | None = None,
        where: str | None = None,
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
        self.mode = _check_mode(format, mode)
        self.error_stream = _check_error_stream(format, self.mode, error_stream, stream)
        self.where = _check_where(where)

    def output_streams(self) -> dict[str, Fields]:
        """The spout's stream, plus its error stream (``raw``, ``file``, ``reason``) in ``PERMISSIVE`` mode."""
        streams = super().output_streams()
        if self.error_stream is not None:
            streams[self.error_stream] = Fields(ERROR_FIELDS)
        return streams

    def side_columns(self) -> tuple[str, ...]:
        """A JSON or CSV spout's malformed records: raw text, file, and per-column null flags."""
        return SIDE_COLUMNS if self.format in TEXT_FORMATS else ()

    def dataframe(self, spark: SparkSession) -> DataFrame:
        """A streaming read of the directory: the declared fields, then the side columns."""
        schema = self._schema(spark)
        reader = spark.readStream.format(self.format)
        if self.format == "csv":
            reader = reader.option("header", "true")
        if self.max_files_per_trigger is not None:
            reader = reader.option("maxFilesPerTrigger", self.max_files_per_trigger)
        if self.format not in TEXT_FORMATS:
            return self._select(self._filtered(reader.schema(schema).load(self.path)))
        # squall applies `mode` itself (split_malformed), so every mode sees the same malformed records.
        reader = (
            reader.schema(with_corrupt_column(schema))
            .option("mode", "PERMISSIVE")
            .option("columnNameOfCorruptRecord", CORRUPT_COLUMN)
        )
        return self._select(self._filtered(reader.load(self.path), keep_malformed=True), *side_columns(schema))

    def _filtered(self, df: DataFrame, keep_malformed: bool = False) -> DataFrame:
        """``df`` where ``where`` holds (and, with ``keep_malformed``, every malformed record); analysed here."""
        if self.where is None:
            return df
        from pyspark.sql import functions as F

        columns = [c for c in df.columns if c != CORRUPT_COLUMN]
        try:
            predicate = F.expr(self.where)
            filtered = df.where((F.col(CORRUPT_COLUMN).isNotNull() | predicate) if keep_malformed else predicate)
            filtered.schema  # noqa: B018 -- analyses the plan under Spark Connect too, so a bad predicate fails here
        except Exception as err:  # ParseException, AnalysisException: not a boolean over the files' columns
            msg = (
                f"FileSpout: `where` must be a boolean Spark SQL predicate over the files' columns "
                f"({', '.join(columns)}); got {self.where!r}, which Spark refuses: {err}"
            )
            raise ValueError(msg) from err
        return filtered

    def split(self, table: pa.Table, component: str) -> dict[str, pa.Table]:
        """The batch's good rows on the spout's stream; its malformed records handled by ``mode``."""
        if self.format not in TEXT_FORMATS:
            return super().split(table, component)
        return split_malformed(
            table, fields=list(self.fields), stream=self.stream, error_stream=self.error_stream, mode=self.mode,
            fmt=self.format, component=component,
        )

    def _schema(self, spark: SparkSession) -> StructType:
        from pyspark.sql.types import StructType

        if isinstance(self.schema, StructType):
            return self.schema
        if isinstance(self.schema, str):
            try:
                return StructType.fromDDL(self.schema)
            except Exception as err:  # ParseException and the like: the DDL does not parse
                msg = f"FileSpout: `schema` must be a DDL string such as 'key STRING, ts BIGINT'; got {self.schema!r}"
                raise ValueError(msg) from err
        try:
            batch = spark.read.format(self.format)
            if self.format == "csv":
                batch = batch.option("header", "true").option("inferSchema", "true")
            elif self.format == "json":
                batch = batch.option("columnNameOfCorruptRecord", CORRUPT_COLUMN)
            return without_corrupt_column(batch.load(self.path).schema)
        except Exception as err:  # AnalysisException: no files to infer from
            msg = (
                f"FileSpout: cannot infer the schema of {self.format} files in {self.path!r} ({err}); "
                "pass schema='field TYPE, ...' or add a file first"
            )
            raise ValueError(msg) from err


def _check_where(where: str | None) -> str | None:
    if where is None:
        return None
    if not isinstance(where, str):
        msg = f"FileSpout: `where` must be a Spark SQL predicate (a str) such as \"kind = 'bid'\"; got {where!r}"
        raise TypeError(msg)
    if not where.strip():
        msg = f"FileSpout: `where` must be a Spark SQL predicate such as \"kind = 'bid'\"; got {where!r} instead"
        raise ValueError(msg)
    return where


def _check_mode(format: str, mode: str) -> str:
    choices = ", ".join(map(repr, MODES))
    if not isinstance(mode, str):
        msg = f"FileSpout: `mode` must be a str, one of {choices}; got {mode!r} ({type(mode).__name__}) instead"
        raise TypeError(msg)
    if mode.upper() not in MODES:
        msg = f"FileSpout: `mode` must be one of {choices}; got {mode!r} instead"
        raise ValueError(msg)
    mode = mode.upper()
    if format not in TEXT_FORMATS and mode != "PERMISSIVE":
        msg = (
            f"FileSpout: `mode` applies to json and csv files only; got mode={mode!r} with format={format!r} "
            "(its columns are typed, so it has no malformed records)"
        )
        raise ValueError(msg)
    return mode


def _check_error_stream(format: str, mode: str, error_stream: str | None, stream: str) -> str | None:
    if error_stream is not None and (not isinstance(error_stream, str) or not error_stream):
        msg = f"FileSpout: `error_stream` must be a non-empty str; got {error_stream!r} instead"
        raise TypeError(msg)
    if format not in TEXT_FORMATS or mode != "PERMISSIVE":
        if error_stream is not None:
            why = f"format={format!r} has no malformed records" if format not in TEXT_FORMATS else f"mode={mode!r}"
            msg = (
                f"FileSpout: `error_stream` applies to mode='PERMISSIVE' on json and csv files; got "
                f"error_stream={error_stream!r} but {why}"
            )
            raise ValueError(msg)
        return None
    error_stream = error_stream or DEFAULT_ERROR_STREAM
    if error_stream == stream:
        msg = (
            f"FileSpout: `error_stream` must differ from `stream`; both are {stream!r} "
            f"(pass error_stream='...' or stream='...' to tell them apart)"
        )
        raise ValueError(msg)
    return error_stream
