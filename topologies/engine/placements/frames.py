"""Where distributed mode's frames are made: on Spark's executors as DataFrame operations, or in this process.

A batch is a sequence of *frames* of routed chunks (:mod:`topologies.engine.placements.chunks`):
the spouts' frame, then one frame per bolt. An engine makes them and hands the
driver only the rows addressed to it (terminal outputs and status rows).

:class:`SparkFrames` keeps every frame on the executors as a persisted
DataFrame of :data:`routed.SCHEMA`, Arrow from the source to the tasks and
back, with no ``sparkContext``, RDD or JVM gateway, so a classic and a Spark
Connect session run it alike. The spouts' frame is ``mapInArrow`` over the
batch's DataFrame (a Python pass cutting the rows into per-task chunks); when
asked (``SparkFrames(routes_spouts_in_plan=True)``), a spout whose rows Spark
can route itself (its grouping computed in the plan,
:mod:`topologies.engine.placements.spout_plan`) reaches its layer straight
from the scan instead.

A *layer* (bolts that do not read one another) is one job
(:meth:`SparkFrames.layer`): the chunks addressed to its bolts in the upstream
frames, the spout rows Spark routed to them, and one *tick* row per task (its
bolt and task, every other column null: every task runs, an idle one too, so
it moves its time), shuffled with ``repartition(total, slot)`` where each
``(bolt, task)``'s slot is a number Spark's hash partitioning sends to a
partition of its own (:func:`task_slots`), so each task is alone in one Spark
task; ``mapInArrow`` there (one Python pass) groups the partition's rows by
task, drops the ticks and runs the task. A topology of many bolts side by side
(one per key space, say) costs one job per batch rather than one per bolt;
the layer's frame holds every bolt's rows, and a reader filters them by
target. A chain of bolts is a layer per bolt.

Chained (:meth:`SparkFrames.chain`), a layer reads every row of the frame
before it and passes on those addressed to no task of its own, and the whole
batch is the one job that collects the last layer's frame
(:meth:`SparkFrames.collect`). Layer by layer (:meth:`SparkFrames.layer`),
each is a job: a layer's frame is computed by the action that
collects its driver rows, and the first layer that reads the spouts' frame
computes it in the same job and *forwards* the spouts' driver rows (their
outputs and status rows) into its own frame, so they come back with the
stage's rows instead of in a job of their own. A frame is persisted only when
another action reads it after that job (a second stage reading the spouts, a
downstream stage or a sink reading a bolt's frame); the persisted ones are
unpersisted when the batch ends. If Spark recomputes a lost partition, its
tasks find the batch committed and re-send what they committed, routed from
the counters the batch started with, so the rows are the same.

A stage's job runs without adaptive query execution in a classic session
(:func:`fixed_plan`): its one shuffle is already cut to one partition per task,
so AQE has nothing to adapt, and on the race's workload (``benchmarks/race.py``)
a batch took about half as long again with it.

:class:`~topologies.engine.placements.local_frames.LocalFrames` runs the same
functions in this process over Arrow tables, each task as if in a fresh worker
process when asked (tests of task moves, benchmarks without a cluster).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, lru_cache, partial
from typing import TYPE_CHECKING, Any, Protocol

import topologies.engine.placements.chunks as routed
from bolts.task_input import collector_paused
from topologies.engine.placements.worker_collector import after_partition
from topologies.failures import TaskFailure
from topologies.sinks.typed_outputs import StreamTypes, schema_ddl
from topologies.spark_hash import spark_hash

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import StructType

SpoutFn = Callable[[Iterator["pa.RecordBatch"]], Iterator["pa.RecordBatch"]]
TaskFn = Callable[[tuple[Any, ...], "pa.Table"], "pa.Table"]


@dataclass(frozen=True)
class LayerStage:
    """One bolt's stage in a layer: the frames it reads, its parallelism and its task function."""

    frames: Sequence[Any]
    bolt: str
    parallelism: int
    fn: TaskFn


class FrameEngine(Protocol):
    """Makes a batch's frames and returns each frame's rows for the driver.

    ``routes_spouts_in_plan``: whether a layer may take spout rows routed by a
    plan (``spout_rows``), rather than only frames of chunks.
    """

    routes_spouts_in_plan: bool

    def spouts(self, source: Any, fn: SpoutFn, keep: bool = True) -> Any:
        """The spouts' frame of ``source`` (the batch) by ``fn`` (computed when first used; kept for more readers)."""
        ...

    def driver_rows(self, frame: Any) -> pa.Table:
        """The rows of ``frame`` addressed to the driver (terminal outputs and status rows)."""
        ...

    def layer(self, stages: Sequence[LayerStage], *, spout_rows: Any = None, forward: Any = None,
              keep: bool = True) -> tuple[Any, pa.Table]:
        """The bolts' stages (none reading another's frame) as one frame, and its driver rows.

        Each task runs once on the chunks addressed to it in its stage's
        ``frames`` and the rows of ``spout_rows`` (spout rows Spark routed,
        :mod:`~topologies.engine.placements.spout_plan`) addressed to it; the
        frame holds every stage's rows (a reader filters by target). The driver
        rows of ``forward`` (one of the frames) come back with the layer's own;
        ``keep``: whether the frame is read again after this call.
        """
        ...

    def release(self, frames: Sequence[Any]) -> None:
        """The batch is over: free its frames."""
        ...

    def kept_rows(self, frame: Any, bolt: str, stream: str, columns: StreamTypes, spark: SparkSession) -> Any:
        """The typed rows of ``bolt``'s ``stream``'s :data:`routed.KEPT` chunks in ``frame`` (None: no frame)."""
        ...

    def kept_chunks(self, frame: Any, bolt: str, stream: str) -> pa.Table:
        """The ``task`` and ``payload`` of ``bolt``'s ``stream``'s :data:`routed.KEPT` chunks, in this process."""
        ...


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
        slots.setdefault(spark_hash([candidate]) % parallelism, candidate)
        candidate += 1
    return tuple(slots[i] for i in range(parallelism))


ADAPTIVE = "spark.sql.adaptive.enabled"


@contextmanager
def fixed_plan(session: SparkSession) -> Iterator[None]:
    """Run the block with adaptive query execution off in ``session``, then set it back as it was.

    Only in a classic session, where a ``foreachBatch`` DataFrame's session is
    the query's own clone of the user's; under Spark Connect that session is
    the user's, so it is left alone.
    """
    if type(session).__module__.startswith("pyspark.sql.connect"):
        yield
        return
    before = session.conf.get(ADAPTIVE, None)
    session.conf.set(ADAPTIVE, "false")
    try:
        yield
    finally:
        if before is None:
            session.conf.unset(ADAPTIVE)
        else:
            session.conf.set(ADAPTIVE, before)


def collected_after(fn: SpoutFn, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``fn`` over one Spark partition's batches in a worker, Python's cyclic garbage collector paused meanwhile.

    As the batch loop pauses it over a batch in driver mode. Then the worker's
    warm objects are frozen out of the full collection PySpark runs after every
    task (:mod:`~topologies.engine.placements.worker_collector`).
    """
    with collector_paused():
        yield from fn(batches)
        after_partition(routed.TASKS)  # before the collector runs again, or it walks the partition's new objects


def _run_task(fn: TaskFn, bolt: str, task: int, chunks: pa.Table) -> Iterator[pa.RecordBatch]:
    """Task ``task`` of ``bolt`` on its chunks; a bolt's exception fails the Spark task as a :class:`TaskFailure`."""
    try:
        out = fn((task,), chunks)
    except Exception as exc:  # carried to the driver in Spark's error text, rebuilt there (failures.failure_in)
        raise TaskFailure.of(exc, bolt, task) from exc
    yield from out.to_batches()


def _run_layer_tasks(fns: Mapping[str, TaskFn], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """A layer's tasks in one Spark partition: each ``(bolt, task)`` whose tick is here runs on its rows.

    A tick row has no ``target`` and names its bolt in ``source``; a chunk's or
    a routed spout row's ``target`` is its bolt. Rows for the driver
    (forwarded) pass through first.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    parts = [b for b in batches if b.num_rows]
    if not parts:
        return
    rows = pa.Table.from_batches(parts)
    target = rows.column("target")
    mine = pc.is_in(target, value_set=pa.array(list(fns), pa.string()))
    yield from rows.filter(pc.and_(pc.is_valid(target), pc.invert(mine))).select(routed.COLUMNS).to_batches()
    chunks = rows.filter(mine)
    ticks = rows.filter(pc.is_null(target))
    for bolt, task in sorted(set(zip(ticks.column("source").to_pylist(), ticks.column("task").to_pylist(),
                                     strict=True))):
        at = pc.and_(pc.equal(chunks.column("target"), bolt), pc.equal(chunks.column("task"), task))
        yield from _run_task(fns[bolt], bolt, task, chunks.filter(at))


class SparkFrames:
    """Frames as persisted DataFrames computed on the executors (see the module docstring).

    ``spark`` (classic or Connect) makes the tick rows when a layer reads no
    frame (the shutdown flush); otherwise the frames' own session does.

    ``routes_spouts_in_plan``: whether the spouts Spark can route go from the
    scan into their layer's shuffle as rows (:mod:`~topologies.engine.placements.spout_plan`)
    rather than through the Python pass that cuts them into per-task chunks.
    Off by default: on the race (``benchmarks/race.py``, 200,000-event
    batches) a run took 10.9 s routed in the plan against 9.3 s through the
    Python pass, since each exploded row carries its routing columns to the
    Python worker (about 100 bytes a row, 20 MiB a batch, where the chunks
    carry the spout's columns once). Both give the same outputs (tested).
    """

    def __init__(self, spark: SparkSession, *, routes_spouts_in_plan: bool = False) -> None:
        self.spark = spark
        self.routes_spouts_in_plan = routes_spouts_in_plan
        self._ticks: dict[tuple[tuple[str, int], ...], tuple[SparkSession, DataFrame]] = {}  # per layer

    def ticks(self, session: SparkSession, stages: Sequence[LayerStage]) -> DataFrame:
        """One row per ``(bolt, task)`` of the layer (``source`` and ``task``), made by one Spark task.

        Made once per session and layer: the same plan serves every batch (it
        reads nothing), which saves its calls to Spark in each. A classic
        ``foreachBatch`` hands each batch a new Python wrapper of the query's
        one JVM session, so sessions are compared by that JVM session.
        """
        from pyspark.sql import functions as F

        key = tuple((st.bolt, st.parallelism) for st in stages)
        made = self._ticks.get(key)
        if made is None or not _same_session(made[0], session):
            names = [st.bolt for st in stages for _ in range(st.parallelism)]
            tasks = [t for st in stages for t in range(st.parallelism)]
            row = F.col("id").cast("int") + 1
            given = {"source": F.element_at(F.array(*(F.lit(n) for n in names)), row),
                     "task": F.element_at(F.array(*(F.lit(t) for t in tasks)), row).cast("bigint")}
            types = {f.name: f.dataType for f in frame_schema().fields}
            frame = session.range(0, len(names), 1, 1).select(*(  # every column of a frame, the others null
                given.get(c, F.lit(None).cast(types[c])).alias(c) for c in routed.COLUMNS))
            made = self._ticks[key] = (session, frame)
        return made[1]

    def spouts(self, source: DataFrame, fn: SpoutFn, keep: bool = True) -> DataFrame:
        """``mapInArrow(fn)`` over ``source`` (which has :data:`PARTITION_COLUMN`), persisted if ``keep``.

        Nothing runs yet: the first stage that reads the frame computes it (and
        caches it when ``keep``), so the spouts cost no job of their own.
        """
        frame = source.mapInArrow(partial(collected_after, fn), frame_schema())
        return frame.persist() if keep else frame

    def layer(self, stages: Sequence[LayerStage], *, spout_rows: DataFrame | None = None,
              forward: DataFrame | None = None, keep: bool = True) -> tuple[DataFrame, pa.Table]:
        """The layer's stages in one job: every ``(bolt, task)`` alone in one partition of one shuffle.

        Task ``t`` of the ``i``-th stage takes slot number ``offset_i + t``
        (:func:`task_slots` over all the layer's tasks); its ticks name the bolt
        in ``source``.
        """
        from pyspark.sql import functions as F

        frames = {id(f): f for st in stages for f in st.frames}
        given = next(iter(frames.values()), spout_rows)
        session = given.sparkSession if given is not None else self.spark
        target = F.col("target")
        inputs = self.ticks(session, stages)
        if spout_rows is not None:
            inputs = spout_rows.unionByName(inputs, allowMissingColumns=True)
        for frame in frames.values():
            readers = [st.bolt for st in stages if any(f is frame for f in st.frames)]
            wanted = target.isin(*readers)
            if frame is forward:
                wanted = wanted | target.isin(routed.OUT, routed.STATUS)
            inputs = frame.filter(wanted).unionByName(inputs, allowMissingColumns=True)
        return self.collect(self._placed(inputs, stages), session, keep=keep)

    def chain(self, stages: Sequence[LayerStage], upstream: DataFrame | None) -> DataFrame:
        """The layer's stages over every row of ``upstream`` (the frame before it, or None), as a frame not yet run.

        The layer reads the whole of ``upstream``: the chunks and marks
        addressed to its tasks, which run on them; every other row (for a
        later layer, or for the driver) passes through into the frame this
        returns, so a chain of layers runs in the one job that collects the
        last (:meth:`collect`).
        """
        session = upstream.sparkSession if upstream is not None else self.spark
        inputs = self.ticks(session, stages)
        if upstream is not None:
            inputs = upstream.unionByName(inputs)
        return self._placed(inputs, stages)

    def collect(self, frame: DataFrame, session: SparkSession, keep: bool) -> tuple[DataFrame, pa.Table]:
        """Run ``frame``'s job: the frame (persisted if ``keep``: read again after this) and its driver rows."""
        with fixed_plan(session):  # persist() plans the frame at once, the collect when it runs
            if keep:
                frame = frame.persist()
            # A frame nobody reads again holds driver rows only: nothing to filter out.
            return frame, self.driver_rows(frame, mixed=keep)

    def _placed(self, inputs: DataFrame, stages: Sequence[LayerStage]) -> DataFrame:
        """``inputs`` shuffled so each ``(bolt, task)`` is alone in a partition, where ``mapInArrow`` runs the task."""
        from pyspark.sql import functions as F

        offsets, total = {}, 0
        for st in stages:
            offsets[st.bolt] = total
            total += st.parallelism
        target = F.col("target")
        bolt = F.coalesce(target, F.col("source"))
        first = F.create_map(*(F.lit(x) for b, o in offsets.items() for x in (b, o)))
        width = F.create_map(*(F.lit(x) for st in stages for x in (st.bolt, st.parallelism)))
        # Rows for the driver (forwarded) belong to no stage: any slot takes them.
        index = F.when(bolt.isin(*offsets), F.element_at(first, bolt)
                       + F.pmod(F.col("task"), F.element_at(width, bolt))).otherwise(F.lit(0))
        slots = F.array(*(F.lit(s).cast("bigint") for s in task_slots(total)))  # longs: task_slots hashes longs
        placed = inputs.repartition(total, F.element_at(slots, index.cast("int") + 1))
        run = partial(_run_layer_tasks, {st.bolt: st.fn for st in stages})
        return placed.mapInArrow(partial(collected_after, run), frame_schema())

    def driver_rows(self, frame: DataFrame, mixed: bool = True) -> pa.Table:
        """The frame's rows addressed to the driver (one job; none to compute when the frame is cached).

        ``mixed``: whether ``frame`` may hold rows for others (else every row
        is the driver's, and none is filtered out).
        """
        from pyspark.sql import functions as F

        if mixed:
            frame = frame.filter(F.col("target").isin(routed.OUT, routed.STATUS))
        return frame.toArrow().cast(routed.empty().schema)

    def release(self, frames: Sequence[DataFrame]) -> None:
        """Unpersist the batch's frames."""
        for frame in frames:
            frame.unpersist()

    def kept_rows(self, frame: DataFrame | None, bolt: str, stream: str, columns: StreamTypes,
                  spark: SparkSession) -> DataFrame:
        """``mapInArrow`` over the kept chunks, on the executors: typed rows that never come to this process."""
        ddl = schema_ddl((f.name, f.type) for f in columns.schema())
        if frame is None:
            return spark.createDataFrame([], ddl)
        chunks = frame.filter(_kept(bolt, stream)).select("payload")
        return chunks.mapInArrow(partial(collected_after, partial(routed.kept_rows, columns)), ddl)

    def kept_chunks(self, frame: DataFrame, bolt: str, stream: str) -> pa.Table:
        """The kept chunks of ``bolt``'s ``stream``, collected."""
        return frame.filter(_kept(bolt, stream)).select("task", "payload").toArrow()


@cache
def frame_schema() -> StructType:
    """:data:`routed.SCHEMA` as a ``StructType``: a DDL string would be parsed by the JVM at every ``mapInArrow``."""
    from pyspark.sql.types import BinaryType, LongType, StringType, StructField, StructType

    kinds = {"string": StringType(), "bigint": LongType(), "binary": BinaryType()}
    return StructType([StructField(name, kinds[kind]) for name, kind in
                       (column.split(" ") for column in routed.SCHEMA.split(", "))])


def _same_session(a: SparkSession, b: SparkSession) -> bool:
    """Whether ``a`` and ``b`` are one session: the same object, or classic wrappers of one JVM session."""
    if a is b:
        return True
    java_a, java_b = getattr(a, "_jsparkSession", None), getattr(b, "_jsparkSession", None)  # None under Connect
    return java_a is not None and java_b is not None and bool(java_a.equals(java_b))


def _kept(bolt: str, stream: str) -> Column:
    """The rows of ``bolt``'s :data:`routed.KEPT` chunks of ``stream``."""
    from pyspark.sql import functions as F

    return (F.col("target") == routed.KEPT) & (F.col("stream") == stream) & (F.col("source") == bolt)
