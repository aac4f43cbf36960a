"""Where distributed mode's stages run: on Spark's executors as DataFrame operations, or in this process.

A batch is a sequence of *frames* of routed chunks (:mod:`topologies.executor.routed`):
the spouts' frame, then one frame per bolt. An engine makes them and hands the
driver only the rows addressed to it (terminal outputs and status rows).

:class:`SparkStages` keeps every frame on the executors as a persisted
DataFrame of :data:`routed.SCHEMA`, Arrow from the source to the tasks and
back, with no ``sparkContext``, RDD or JVM gateway, so a classic and a Spark
Connect session run it alike. The spouts' frame is ``mapInArrow`` over the
batch's DataFrame. A bolt's frame is the chunks addressed to it in its
upstream frames plus one *tick* row per task (its task number, every other
column null: every task runs, an idle one too, so it moves its time), shuffled
with ``repartition(parallelism, slot)`` where task ``i``'s slot is a number
Spark's hash partitioning sends to partition ``i`` (:func:`task_slots`), so
each task is alone in one Spark task; ``mapInArrow`` there groups the
partition's rows by task, drops the ticks and runs the task. The first stage
that reads the spouts' frame computes it, and a bolt's frame is computed by
the action that collects its driver rows, so a stage runs once per batch and
the next stage reads it from the executors' cache; all are unpersisted when
the batch ends. If Spark recomputes a lost partition, its tasks find the batch
committed and re-send what they committed, routed from the counters the batch
started with, so the rows are the same.

:class:`LocalStages` runs the same functions in this process over Arrow
tables, each task as if in a fresh worker process when asked (tests of task
moves, benchmarks without a cluster).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache, partial, reduce
from typing import TYPE_CHECKING, Any, Protocol

import topologies.executor.routed as routed
import topologies.executor.worker as worker
from topologies.executor.batch_layout import partition_runs
from topologies.sinks.typed_outputs import StreamTypes, schema_ddl

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame, SparkSession

SpoutFn = Callable[[Iterator["pa.RecordBatch"]], Iterator["pa.RecordBatch"]]
TaskFn = Callable[[tuple[Any, ...], "pa.Table"], "pa.Table"]


class StageEngine(Protocol):
    """Makes a batch's frames and returns each frame's rows for the driver."""

    def spouts(self, source: Any, fn: SpoutFn) -> Any:
        """The spouts' frame of ``source`` (the batch) by ``fn`` (computed when first used)."""
        ...

    def driver_rows(self, frame: Any) -> pa.Table:
        """The rows of ``frame`` addressed to the driver (terminal outputs and status rows)."""
        ...

    def stage(self, frames: Sequence[Any], bolt: str, parallelism: int, fn: TaskFn) -> tuple[Any, pa.Table]:
        """A bolt's frame: ``fn`` per task over the chunks addressed to it in ``frames``; and its driver rows."""
        ...

    def release(self, frames: Sequence[Any]) -> None:
        """The batch is over: free its frames."""
        ...

    def kept_rows(self, frame: Any, stream: str, columns: StreamTypes, spark: SparkSession) -> Any:
        """The typed rows of ``stream``'s :data:`routed.KEPT` chunks in a bolt's ``frame`` (None: the bolt had none)."""
        ...

    def kept_chunks(self, frame: Any, stream: str) -> pa.Table:
        """The ``task`` and ``payload`` of ``stream``'s :data:`routed.KEPT` chunks in ``frame``, in this process."""
        ...


_SEED = 42  # Spark's Murmur3Hash seed, the one its hash partitioning uses


def _mix_k1(k1: int) -> int:
    k1 = (k1 * 0xCC9E2D51) & 0xFFFFFFFF
    k1 = ((k1 << 15) | (k1 >> 17)) & 0xFFFFFFFF
    return (k1 * 0x1B873593) & 0xFFFFFFFF


def _mix_h1(h1: int, k1: int) -> int:
    h1 ^= k1
    h1 = ((h1 << 13) | (h1 >> 19)) & 0xFFFFFFFF
    return (h1 * 5 + 0xE6546B64) & 0xFFFFFFFF


def spark_hash_long(value: int) -> int:
    """Spark's ``hash()`` of a ``bigint`` (Murmur3 x86 32-bit, seed 42), as a signed 32-bit int."""
    h1 = _mix_h1(_mix_h1(_SEED, _mix_k1(value & 0xFFFFFFFF)), _mix_k1((value >> 32) & 0xFFFFFFFF))
    h1 ^= 8
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & 0xFFFFFFFF
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & 0xFFFFFFFF
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 & 0x80000000 else h1


@lru_cache(maxsize=64)
def task_slots(parallelism: int) -> tuple[int, ...]:
    """Per task ``i``, the least ``bigint`` that ``repartition(parallelism, col)`` puts in partition ``i``.

    Spark's hash partitioning sends a row to ``pmod(hash(col), n)``; shuffling
    on the task number itself could put two tasks in one partition and leave
    another empty, running them one after the other.
    """
    slots: dict[int, int] = {}
    candidate = 0
    while len(slots) < parallelism:
        slots.setdefault(spark_hash_long(candidate) % parallelism, candidate)
        candidate += 1
    return tuple(slots[i] for i in range(parallelism))


def _run_tasks(fn: TaskFn, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """A bolt's stage in one Spark partition: ``fn`` per task, in task order, over its chunks (ticks dropped).

    A tick row has only its task (``o1`` is null); with no upstream frame the
    rows are ticks alone, without the other columns.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    parts = [b for b in batches if b.num_rows]
    if not parts:
        return
    rows = pa.Table.from_batches(parts)
    chunks = rows.filter(pc.is_valid(rows.column("o1"))).select(routed.COLUMNS) if "o1" in rows.column_names else None
    for task in sorted(pc.unique(rows.column("task")).to_pylist()):
        mine = routed.empty() if chunks is None else chunks.filter(pc.equal(chunks.column("task"), task))
        yield from fn((task,), mine).to_batches()


def _slot(parallelism: int) -> Column:
    """Each row's task slot (:func:`task_slots`), the column a stage is shuffled on."""
    from pyspark.sql import functions as F

    slots = ", ".join(f"{s}L" for s in task_slots(parallelism))
    return F.expr(f"element_at(array({slots}), CAST(task AS INT) + 1)")


class SparkStages:
    """Frames as persisted DataFrames computed on the executors (see the module docstring).

    ``spark`` (classic or Connect) makes the tick rows when a stage has no
    upstream frame (the shutdown flush); otherwise the frames' own session does.
    """

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark

    def spouts(self, source: DataFrame, fn: SpoutFn) -> DataFrame:
        """``mapInArrow(fn)`` over ``source`` (which has :data:`PARTITION_COLUMN`), persisted.

        Nothing runs yet: the first stage that reads the frame computes it (and
        caches it), so the spouts cost no job of their own.
        """
        return source.mapInArrow(fn, routed.SCHEMA).persist()

    def stage(self, frames: Sequence[DataFrame], bolt: str, parallelism: int, fn: TaskFn) -> tuple[DataFrame, pa.Table]:
        """The bolt's chunks and ticks shuffled so task ``i`` is alone in partition ``i``, run there; persisted."""
        from pyspark.sql import functions as F

        ticks = (frames[0].sparkSession if frames else self.spark).range(0, parallelism, 1, 1)
        inputs = ticks.withColumnRenamed("id", "task")  # one row per task, made by one Spark task
        if frames:
            chunks = reduce(lambda a, b: a.unionByName(b), (f.filter(F.col("target") == bolt) for f in frames))
            inputs = chunks.unionByName(inputs, allowMissingColumns=True)
        placed = inputs.repartition(parallelism, _slot(parallelism))
        out = placed.mapInArrow(partial(_run_tasks, fn), routed.SCHEMA).persist()
        return out, self.driver_rows(out)

    def driver_rows(self, frame: DataFrame) -> pa.Table:
        """The frame's rows addressed to the driver (one job; none to compute when the frame is cached)."""
        from pyspark.sql import functions as F

        rows = frame.filter(F.col("target").isin(routed.OUT, routed.STATUS)).toArrow()
        return rows.cast(routed.empty().schema)

    def release(self, frames: Sequence[DataFrame]) -> None:
        """Unpersist the batch's frames."""
        for frame in frames:
            frame.unpersist()

    def kept_rows(self, frame: DataFrame | None, stream: str, columns: StreamTypes, spark: SparkSession) -> DataFrame:
        """``mapInArrow`` over the kept chunks, on the executors: typed rows that never come to this process."""
        from pyspark.sql import functions as F

        ddl = schema_ddl((f.name, f.type) for f in columns.schema())
        if frame is None:
            return spark.createDataFrame([], ddl)
        chunks = frame.filter((F.col("target") == routed.KEPT) & (F.col("stream") == stream)).select("payload")
        return chunks.mapInArrow(partial(routed.kept_rows, columns), ddl)

    def kept_chunks(self, frame: DataFrame, stream: str) -> pa.Table:
        """The kept chunks of ``stream``, collected."""
        from pyspark.sql import functions as F

        return frame.filter((F.col("target") == routed.KEPT) & (F.col("stream") == stream)).select(
            "task", "payload").toArrow()


class LocalStages:
    """Frames as Arrow tables made in this process; ``fresh_tasks`` empties the workers' cache before each task."""

    def __init__(self, fresh_tasks: bool = False) -> None:
        self.fresh_tasks = fresh_tasks

    def spouts(self, source: pa.Table, fn: SpoutFn) -> pa.Table:
        """``fn`` over each Spark partition's rows of ``source`` (runs of :data:`PARTITION_COLUMN`)."""
        import pyarrow as pa

        pieces = [routed.empty()]
        for _, rows in partition_runs(source):
            pieces.extend(pa.Table.from_batches([b]) for b in fn(iter(rows.to_batches())))
        return pa.concat_tables(pieces)

    def stage(self, frames: Sequence[pa.Table], bolt: str, parallelism: int, fn: TaskFn) -> tuple[pa.Table, pa.Table]:
        """``fn`` for each task, in task order, over its chunks (none for an idle task)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        rows = pa.concat_tables([routed.empty(), *(f.filter(pc.equal(f.column("target"), bolt)) for f in frames)])
        out = [routed.empty()]
        for task in range(parallelism):
            if self.fresh_tasks:
                worker._TASKS.clear()  # as a process that has never run the task: it comes from the store
            out.append(fn((pa.scalar(task),), rows.filter(pc.equal(rows.column("task"), task))))
        frame = pa.concat_tables(out)
        return frame, self.driver_rows(frame)

    def driver_rows(self, frame: pa.Table) -> pa.Table:
        """The frame's rows addressed to the driver."""
        import pyarrow.compute as pc

        return frame.filter(pc.is_in(frame.column("target"), value_set=_driver_targets()))

    def release(self, frames: Sequence[pa.Table]) -> None:
        """Nothing to free."""

    def kept_rows(self, frame: pa.Table | None, stream: str, columns: StreamTypes, spark: SparkSession) -> pa.Table:
        """The typed rows of the kept chunks, made here."""
        import pyarrow as pa

        if frame is None:
            return columns.table([])
        chunks = self.kept_chunks(frame, stream).select(["payload"])
        return pa.Table.from_batches(list(routed.kept_rows(columns, iter(chunks.to_batches()))), columns.schema())

    def kept_chunks(self, frame: pa.Table, stream: str) -> pa.Table:
        """The kept chunks of ``stream``."""
        import pyarrow.compute as pc

        mine = pc.and_(pc.equal(frame.column("target"), routed.KEPT), pc.equal(frame.column("stream"), stream))
        return frame.filter(mine).select(["task", "payload"])


def _driver_targets() -> Any:
    import pyarrow as pa

    return pa.array([routed.OUT, routed.STATUS])
