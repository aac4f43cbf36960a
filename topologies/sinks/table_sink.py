"""``TableSink``: one terminal stream to a table through Spark's ``DataFrameWriter``, each batch exactly once.

Each batch's rows of the stream become a DataFrame of its typed columns
(:mod:`topologies.sinks.typed_outputs`) plus ``batch_id bigint``, the batch id
(-1 for the shutdown flush), written with Spark's writer: any format Spark
has (``parquet``, ``orc``, ``json``, ``csv``, ``jdbc``, ...), at a ``path`` or
into a catalog ``table``, with ``options`` and ``partition_by``.

Exactly once, per target:

- Delta Lake (``format="delta"``, with Delta's jars and session settings):
  each batch replaces the rows of its ``batch_id`` in one Delta commit
  (``mode("overwrite")`` with ``replaceWhere``), so a replay replaces, and a
  flush with no rows empties the flush's partition;
- a path or a catalog table of a file format: the data is partitioned by
  ``batch_id`` first, and each batch is written with a *dynamic partition
  overwrite* (``partitionOverwriteMode=dynamic``): a replayed batch id replaces
  its partition, whole, instead of adding to it. A write a killed driver left
  half done is in Spark's staging directory (hidden from readers) or replaced
  by the replay. The flush's partition (``batch_id=-1``) is dropped before each
  flush writes, so it always holds the last flush's rows;
- any other format (``jdbc``, ...): appended, at least once; the
  ``batch_id`` column tells a reader which rows a replay wrote again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from topologies.sinks.base import FLUSH_PARTITION, OutputBatch, stream_name
from topologies.sinks.records import FINAL
from topologies.sinks.typed_outputs import parse_schema

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

BATCH_COLUMN = "batch_id"
OVERWRITE_MODE = "spark.sql.sources.partitionOverwriteMode"
DELTA = "delta"
FILE_FORMATS = frozenset({"parquet", "orc", "json", "csv", "text", "avro"})
_TABLE_NAME = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*|`[^`]+`)(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|`[^`]+`)){0,2}$")


class TableSink:
    """Writes ``stream``'s outputs to ``path`` or ``table`` with Spark's writer, a batch at a time, each once.

    ``stream``: ``"component"`` or ``"component:stream"``. Exactly one of
    ``path`` (a directory URL Spark writes to) and ``table`` (a catalog table,
    created on the first write when it does not exist, partitioned as below).
    ``format``: Spark's data source name (``parquet`` by default).
    ``schema``: the columns' types, a DDL string (``"source string, value double"``),
    a ``StructType`` or a ``pyarrow.Schema`` naming every field of the stream;
    without it types come from the stream's ``Fields`` types and the values
    (see :mod:`topologies.sinks.typed_outputs`). ``partition_by``: further
    partition columns, after ``batch_id``. ``options``: the writer's options.
    ``name`` identifies the sink in messages (default: the stream name).

    Bad settings fail here, naming the parameter and the value; a stream the
    topology does not have, or a schema whose fields are not the stream's,
    fails when the runner takes the sink.
    """

    keeps_on_executors = True

    def __init__(
        self,
        stream: str,
        *,
        path: str | None = None,
        table: str | None = None,
        format: str = "parquet",
        schema: Any = None,
        partition_by: Sequence[str] = (),
        options: Mapping[str, Any] | None = None,
        name: str | None = None,
    ) -> None:
        self.stream = stream_name(stream, "TableSink: `stream`")
        if (path is None) == (table is None):
            msg = f"TableSink: give exactly one of `path` and `table`; got path={path!r}, table={table!r}"
            raise ValueError(msg)
        for parameter, value in (("path", path), ("table", table)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                msg = f"TableSink: `{parameter}` must be a non-empty str; got {value!r} instead"
                raise TypeError(msg)
        if table is not None and isinstance(table, str) and not _TABLE_NAME.match(table.strip()):
            msg = f"TableSink: `table` must be a table name like 'db.windows' (parts quoted with `); got {table!r}"
            raise ValueError(msg)
        if not isinstance(format, str) or not format.strip():
            msg = f"TableSink: `format` must be a Spark data source name like 'parquet'; got {format!r} instead"
            raise ValueError(msg)
        if isinstance(partition_by, str) or not all(isinstance(c, str) and c for c in partition_by):
            msg = f"TableSink: `partition_by` must be a list of column names; got {partition_by!r} instead"
            raise TypeError(msg)
        if BATCH_COLUMN in partition_by:
            msg = f"TableSink: `partition_by` need not name {BATCH_COLUMN!r}: every table is partitioned by it first"
            raise ValueError(msg)
        if options is not None and not isinstance(options, Mapping):
            msg = f"TableSink: `options` must be a mapping of writer options; got {options!r} instead"
            raise TypeError(msg)
        self.name = name if name is not None else self.stream
        if not isinstance(self.name, str) or not self.name:
            msg = f"TableSink: `name` must be a non-empty str; got {name!r} instead"
            raise ValueError(msg)
        self.schemas: dict[str, Any] = {}
        if schema is not None:
            fields = parse_schema(schema, "TableSink: `schema`")
            if BATCH_COLUMN in {f for f, _ in fields}:
                msg = f"TableSink: `schema` must not name {BATCH_COLUMN!r}; the sink adds that column"
                raise ValueError(msg)
            self.schemas[self.stream] = schema
        self.path = path
        self.table = table
        self.format = format.strip().lower()
        self.partition_by = list(partition_by)
        self.options = {str(k): str(v) for k, v in (options or {}).items()}
        self.streams = frozenset({self.stream})
        if self.partition_by and not self.exactly_once:
            msg = f"TableSink: `partition_by` needs a file format or delta; {self.format!r} is written as it is"
            raise ValueError(msg)
        self._checked_table = False

    @property
    def exactly_once(self) -> bool:
        """Whether a replayed batch replaces its rows (Delta, a file format) rather than appending them again."""
        return self.format in FILE_FORMATS or self.format == DELTA

    def check_columns(self, fields: Sequence[str]) -> None:
        """Refuse ``partition_by`` columns the stream does not have (the runner calls it with the stream's fields)."""
        missing = [c for c in self.partition_by if c not in fields]
        if missing:
            msg = f"TableSink {self.name!r}: `partition_by` names {missing}, not fields of {self.stream} {list(fields)}"
            raise ValueError(msg)

    def write(self, batch: OutputBatch) -> None:
        """Write the batch's rows of :attr:`stream` (see the module docstring for what a replay does)."""
        from pyspark.sql import functions as F

        if not batch.has_rows(self.stream):  # a replay of the batch has none either: only a flush has to clear
            if batch.key == FINAL and self.exactly_once:
                self._clear_flush(batch)
            return
        df = batch.dataframe(self.stream)
        df = df.select(F.lit(batch.batch_id).cast("bigint").alias(BATCH_COLUMN), *df.columns)
        if self.format == DELTA:
            writer = (df.write.format(DELTA).options(**self.options).partitionBy(BATCH_COLUMN, *self.partition_by)
                      .mode("overwrite").option("replaceWhere", f"{BATCH_COLUMN} = {batch.batch_id}"))
            if self.table is not None:
                writer.saveAsTable(self.table)
            else:
                writer.save(self.path)
            return
        if self.table is not None:
            self._insert(batch, df)
            return
        if batch.key == FINAL and self.exactly_once:
            self._drop_flush_partition()
        writer = df.write.format(self.format).options(**self.options)
        if not self.exactly_once:
            writer.mode("append").save(self.path)
            return
        (writer.partitionBy(BATCH_COLUMN, *self.partition_by).mode("overwrite")
         .option("partitionOverwriteMode", "dynamic").save(self.path))

    def _drop_flush_partition(self) -> None:
        """Delete the path's flush partition (through pyarrow's filesystems, as squall's own files)."""
        from topologies.storage import join, open_dir

        open_dir(join(str(self.path), f"{BATCH_COLUMN}={FLUSH_PARTITION}")).delete_tree()

    def _clear_flush(self, batch: OutputBatch) -> None:
        """A flush without rows: empty the last flush's partition, where there is one."""
        spark = batch.spark
        where = f"{BATCH_COLUMN} = {FLUSH_PARTITION}"
        if self.table is not None:
            if not spark.catalog.tableExists(self.table):
                return
            if self.format == DELTA:
                spark.sql(f"DELETE FROM {self.table} WHERE {where}")
            else:
                spark.sql(f"ALTER TABLE {self.table} DROP IF EXISTS PARTITION ({BATCH_COLUMN}={FLUSH_PARTITION})")
            return
        if self.format != DELTA:
            self._drop_flush_partition()
            return
        from topologies.storage import open_dir

        if open_dir(str(self.path)).child("_delta_log").is_dir():
            spark.sql(f"DELETE FROM delta.`{self.path}` WHERE {where}")

    def _insert(self, batch: OutputBatch, df: DataFrame) -> None:
        spark = batch.spark
        if spark.catalog.tableExists(self.table):
            self._check_table(batch)
        else:
            columns = ", ".join(f"`{f.name}` {f.dataType.simpleString()}" for f in df.schema.fields)
            options = ", ".join(f"'{k}' '{v}'" for k, v in self.options.items())
            partitions = ", ".join(f"`{c}`" for c in (BATCH_COLUMN, *self.partition_by))
            spark.sql(f"CREATE TABLE IF NOT EXISTS {self.table} ({columns}) USING {self.format}"
                      + (f" PARTITIONED BY ({partitions})" if self.exactly_once else "")
                      + (f" OPTIONS ({options})" if options else ""))
        ordered = df.select(*spark.table(self.table).columns)
        if not self.exactly_once:
            ordered.write.insertInto(self.table)
            return
        if batch.key == FINAL:
            spark.sql(f"ALTER TABLE {self.table} DROP IF EXISTS PARTITION ({BATCH_COLUMN}={FLUSH_PARTITION})")
        # insertInto takes the overwrite mode from the session (a writer option is not read): dynamic, for this write
        before = spark.conf.get(OVERWRITE_MODE, None)
        spark.conf.set(OVERWRITE_MODE, "dynamic")
        try:
            ordered.write.insertInto(self.table, overwrite=True)
        finally:
            if before is None:
                spark.conf.unset(OVERWRITE_MODE)
            else:
                spark.conf.set(OVERWRITE_MODE, before)

    def _check_table(self, batch: OutputBatch) -> None:
        """Refuse an existing table whose partitions are not ``batch_id`` first: an overwrite would wipe it."""
        if self._checked_table or not self.exactly_once:
            return
        partitions = [c.name for c in batch.spark.catalog.listColumns(self.table) if c.isPartition]
        wanted = [BATCH_COLUMN, *self.partition_by]
        if partitions[: len(wanted)] != wanted:
            msg = (f"TableSink {self.name!r}: the table {self.table!r} is partitioned by {partitions}; a sink "
                   f"replaces one batch's rows by overwriting its partition, so it needs {wanted} first")
            raise ValueError(msg)
        self._checked_table = True

    def __repr__(self) -> str:
        target = f"path={self.path!r}" if self.path is not None else f"table={self.table!r}"
        return f"TableSink({self.stream!r}, {target}, format={self.format!r})"
