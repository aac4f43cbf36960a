"""Distributed mode's frames made in this process: the functions Spark's workers run, called here on Arrow tables.

:class:`LocalFrames` is a :class:`~topologies.engine.placements.frames.FrameEngine`
without Spark: tests of task moves (``fresh_tasks`` empties the warm cache
before each task, so each is rebuilt from its store as on another executor)
and benchmarks without a cluster.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import topologies.engine.placements.chunks as routed
from topologies.engine.batch_layout import partition_runs
from topologies.engine.placements.frames import LayerStage, SpoutFn, TaskFn

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

    from topologies.sinks.typed_outputs import StreamTypes


class LocalFrames:
    """Frames as Arrow tables made in this process; ``fresh_tasks`` empties the workers' cache before each task.

    It routes every spout's rows with the Python pass (:meth:`spouts`).
    """

    routes_spouts_in_plan = False

    def __init__(self, fresh_tasks: bool = False) -> None:
        self.fresh_tasks = fresh_tasks

    def spouts(self, source: pa.Table, fn: SpoutFn, keep: bool = True) -> pa.Table:
        """``fn`` over each Spark partition's rows of ``source`` (runs of :data:`PARTITION_COLUMN`)."""
        import pyarrow as pa

        pieces = [routed.empty()]
        for _, rows in partition_runs(source):
            pieces.extend(pa.Table.from_batches([b]) for b in fn(iter(rows.to_batches())))
        return pa.concat_tables(pieces)

    def _stage(self, frames: Sequence[pa.Table], bolt: str, parallelism: int, fn: TaskFn,
               forward: pa.Table | None = None) -> pa.Table:
        """``fn`` for each task, in task order, over its chunks (none when idle); ``forward``'s driver rows too."""
        import pyarrow as pa
        import pyarrow.compute as pc

        rows = pa.concat_tables([routed.empty(), *(f.filter(pc.equal(f.column("target"), bolt)) for f in frames)])
        out = [routed.empty() if forward is None else _driver_part(forward)]
        for task in range(parallelism):
            if self.fresh_tasks:
                routed.TASKS.tasks.clear()  # as a process that has never run the task: it comes from the store
            out.append(fn((pa.scalar(task),), rows.filter(pc.equal(rows.column("task"), task))))
        return pa.concat_tables(out)

    def layer(self, stages: Sequence[LayerStage], *, spout_rows: pa.Table | None = None,
              forward: pa.Table | None = None, keep: bool = True) -> tuple[pa.Table, pa.Table]:
        """Each stage in turn (the first forwarding ``forward``'s driver rows), as one frame.

        No spout rows come routed by a plan here (``spout_rows`` must be None):
        every spout's rows are in a frame. ``keep`` changes nothing (tables are kept anyway).
        """
        import pyarrow as pa

        if spout_rows is not None:
            msg = "LocalFrames.layer: spout rows routed by a plan need Spark; route them in a frame"
            raise ValueError(msg)
        frame = pa.concat_tables([self._stage(st.frames, st.bolt, st.parallelism, st.fn, forward if not i else None)
                                  for i, st in enumerate(stages)])
        return frame, self.driver_rows(frame)

    def driver_rows(self, frame: pa.Table) -> pa.Table:
        """The frame's rows addressed to the driver."""
        return _driver_part(frame)

    def release(self, frames: Sequence[pa.Table]) -> None:
        """Nothing to free."""

    def kept_rows(self, frame: pa.Table | None, bolt: str, stream: str, columns: StreamTypes,
                  spark: SparkSession) -> pa.Table:
        """The typed rows of the kept chunks, made here."""
        import pyarrow as pa

        if frame is None:
            return columns.table([])
        chunks = self.kept_chunks(frame, bolt, stream).select(["payload"])
        return pa.Table.from_batches(list(routed.kept_rows(columns, iter(chunks.to_batches()))), columns.schema())

    def kept_chunks(self, frame: pa.Table, bolt: str, stream: str) -> pa.Table:
        """The kept chunks of ``bolt``'s ``stream``."""
        import pyarrow.compute as pc

        mine = pc.and_(pc.and_(pc.equal(frame.column("target"), routed.KEPT), pc.equal(frame.column("stream"), stream)),
                       pc.equal(frame.column("source"), bolt))
        return frame.filter(mine).select(["task", "payload"])


def _driver_part(frame: pa.Table) -> pa.Table:
    import pyarrow as pa
    import pyarrow.compute as pc

    return frame.filter(pc.is_in(frame.column("target"), value_set=pa.array([routed.OUT, routed.STATUS])))
