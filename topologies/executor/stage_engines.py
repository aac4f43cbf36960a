"""Where distributed mode's stages run: on Spark's executors as DataFrame operations, or in this process.

A batch is a sequence of *frames* of routed chunks (:mod:`topologies.executor.routed`):
the spouts' frame, then one frame per bolt. An engine makes them and hands the
driver only the rows addressed to it (terminal outputs and status rows).

:class:`SparkStages` keeps every frame on the executors: the spouts' frame is
``mapInArrow`` over the batch's DataFrame (Arrow from the source to the
routing), a bolt's is the chunks addressed to it in its upstream frames,
shuffled with ``partitionBy`` so that task ``i`` is partition ``i`` (every
task runs, an idle one too, so it moves its time), each partition running its
task. The chunks are few rows of large payloads, so a bolt's stage works on an
RDD of rows rather than converting them to and from Arrow in the JVM. Each
frame is persisted; the first stage that reads the spouts' frame computes it,
and a bolt's frame is computed by the action that collects its driver rows, so
a stage runs once per batch and the next stage reads it from the executors'
block managers; all are unpersisted when the batch ends. If Spark recomputes a
lost partition, the tasks re-send what they committed, so the answer is the same.

:class:`LocalStages` runs the same functions in this process over Arrow
tables, each task as if in a fresh worker process when asked (tests of task
moves, benchmarks without a cluster).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

import topologies.executor.routed as routed
import topologies.executor.worker as worker
from topologies.executor.batch_layout import partition_runs

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark import RDD
    from pyspark.sql import DataFrame, SparkSession

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


def _run_partition(fn: TaskFn, index: int, rows: Iterator[tuple[int, tuple[Any, ...]]]) -> Iterator[tuple[Any, ...]]:
    """Partition ``index`` of a bolt's stage holds task ``index``'s chunks (possibly none): run it, yield its rows."""
    out = fn((index,), routed.rows_table(row for _, row in rows))
    yield from zip(*(out.column(c).to_pylist() for c in routed.COLUMNS), strict=True)


def _addressed_to(bolt: str, row: tuple[Any, ...]) -> bool:
    return bool(row[0] == bolt)


def _for_driver(row: tuple[Any, ...]) -> bool:
    return row[0] in (routed.OUT, routed.STATUS)


def _keyed(row: tuple[Any, ...]) -> tuple[int, tuple[Any, ...]]:
    return row[1], row


def _identity(task: int) -> int:
    return task


class SparkStages:
    """Frames as persisted RDDs of chunk rows computed on the executors (see the module docstring)."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark

    def spouts(self, source: DataFrame, fn: SpoutFn) -> RDD[tuple[Any, ...]]:
        """``mapInArrow(fn)`` over ``source`` (which has :data:`PARTITION_COLUMN`), as a persisted RDD of rows.

        Nothing runs yet: the first stage that reads the frame computes it (and
        caches it), so the spouts cost no job of their own.
        """
        return source.mapInArrow(fn, routed.SCHEMA).rdd.map(tuple).persist()

    def stage(self, frames: Sequence[RDD[tuple[Any, ...]]], bolt: str, parallelism: int,
              fn: TaskFn) -> tuple[RDD[tuple[Any, ...]], pa.Table]:
        """The bolt's chunks shuffled so task ``i`` is partition ``i``, each task run there; persisted."""
        context = self.spark.sparkContext
        parts = [frame.filter(partial(_addressed_to, bolt)) for frame in frames]
        inputs = context.union(parts) if parts else context.emptyRDD()
        # Task i in partition i (an empty one too, so every task runs and moves its time).
        placed = inputs.map(_keyed).partitionBy(parallelism, _identity)
        out = placed.mapPartitionsWithIndex(partial(_run_partition, fn)).persist()
        return out, self.driver_rows(out)

    def driver_rows(self, frame: RDD[tuple[Any, ...]]) -> pa.Table:
        """The frame's rows addressed to the driver (one job; none to compute when the frame is cached)."""
        return routed.rows_table(frame.filter(_for_driver).collect())

    def release(self, frames: Sequence[RDD[tuple[Any, ...]]]) -> None:
        """Unpersist the batch's frames."""
        for frame in frames:
            frame.unpersist()


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


def _driver_targets() -> Any:
    import pyarrow as pa

    return pa.array([routed.OUT, routed.STATUS])
