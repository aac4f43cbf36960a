"""Spout rows Spark routes itself: each subscriber's task computed in the plan, from the scan into the shuffle.

With ``SparkFrames(routes_spouts_in_plan=True)`` (not the default: see
:class:`~topologies.engine.placements.frames.SparkFrames` for what it measured),
a spout's rows reach their tasks without a Python pass of their own when Spark
can compute every subscriber's task in the plan
(:meth:`SpoutPlan.rows_for`): each row becomes one row per ``(bolt, task)``
it goes to (``explode``), with the order the driver placement delivers it in
(``o2`` its Spark partition, ``o3`` its spout, ``o4`` its row number within
the partition), and joins its layer's shuffle as the chunks of upstream bolts
do. The task a grouping picks is the one the driver placement picks (the same
definitions, the same counters):

- shuffle (and ``none``, ``local_or_shuffle``): row ``r`` of partition ``p`` to
  ``pmod(counter + p + r, n)``, ``counter`` the one the batch started with;
- fields: ``pmod(hash(key columns), n)``, Spark's own hash
  (:func:`topologies.spark_hash.key_hash_column`), for key columns of the
  types it hashes as squall does;
- global: task 0; all: every task.

A spout is routed in the plan when every subscriber's grouping is one of
these, its key columns are hashable in the plan, and the spout emits on one
stream only (no side columns: a file spout of JSON or CSV, a Kafka spout, cut
their rows into streams in Python). The others' rows go through the Python
pass (:func:`~topologies.engine.placements.chunks.route_spout_partition`).
Spark's partitions and row numbers of a batch are the same when Spark runs
it again (the source reads the same offsets), so a replay routes the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from topologies.engine.batch_layout import PARTITION_COLUMN, SPOUT_COLUMN, BatchLayout
from topologies.engine.figures import TaskStatus
from topologies.engine.routing import SPOUT_TASK, CounterKey
from topologies.groupings import AllGrouping, FieldsGrouping, GlobalGrouping, Grouping, ShuffleGrouping
from topologies.spark_hash import hashes_in_plan, key_hash_column
from topologies.topology import Topology

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

ROW_COLUMN = "__squall_row"  # a row's number within its Spark partition


def with_row_numbers(df: DataFrame) -> DataFrame:
    """``df`` with :data:`ROW_COLUMN`: each row's number within its Spark partition (from 0, in read order)."""
    from pyspark.sql import functions as F

    partition = F.spark_partition_id().cast("bigint")
    return df.withColumn(ROW_COLUMN, F.monotonically_increasing_id() - F.shiftleft(partition, 33))


def _in_plan(grouping: Grouping, key_types: Sequence[Any]) -> bool:
    if isinstance(grouping, FieldsGrouping):
        return all(hashes_in_plan(t) for t in key_types)
    return type(grouping) in (AllGrouping, GlobalGrouping) or isinstance(grouping, ShuffleGrouping)


@dataclass(frozen=True)
class SpoutPlan:
    """Which spouts Spark routes in the plan, for one topology over one batch schema (see the module docstring)."""

    topology: Topology
    layout: BatchLayout
    types: Mapping[str, Any]  # each layout column's Spark type
    in_plan: frozenset[str]

    @classmethod
    def of(cls, topology: Topology, layout: BatchLayout, schema: StructType) -> SpoutPlan:
        """The plan of ``topology`` for batches of ``schema`` (the unioned spouts' columns)."""
        types = {f.name: f.dataType for f in schema.fields}
        in_plan = set()
        for i, sid in enumerate(layout.spouts):
            spout = topology.spouts[sid].spout
            subscribers = topology.subscribers.get((sid, spout.stream), ())
            if spout.side_columns() or not subscribers:
                continue  # several streams, or outputs: the Python pass
            fields = list(spout.fields)
            if all(_in_plan(g, [types[layout.column(i, fields.index(f))] for f in g.required_fields()])
                   for _, g in subscribers):
                in_plan.add(sid)
        return cls(topology, layout, types, frozenset(in_plan))

    def subscriptions(self, bolts: Sequence[str]) -> list[tuple[str, str, Grouping]]:
        """The ``(spout, bolt, grouping)`` subscriptions of ``bolts`` to spouts routed in the plan, in order."""
        found = []
        for sid in self.layout.spouts:
            if sid in self.in_plan:
                stream = self.topology.spouts[sid].spout.stream
                found += [(sid, b, g) for b, g in self.topology.subscribers.get((sid, stream), ()) if b in bolts]
        return found

    def rows_for(self, source: DataFrame, bolts: Sequence[str], starts: Mapping[CounterKey, int]) -> DataFrame | None:
        """The batch's rows of in-plan spouts that ``bolts`` read, one per ``(bolt, task)``; None when none read any.

        ``source`` has the layout's columns, :data:`PARTITION_COLUMN` and
        :data:`ROW_COLUMN`. Each row keeps the layout's columns and gets a
        frame's routing columns (``target``, ``task``, ``source``, ``stream``,
        ``o1``..``o4``; no ``payload``).
        """
        from pyspark.sql import functions as F

        subscriptions = self.subscriptions(bolts)
        if not subscriptions:
            return None
        spout = F.col(SPOUT_COLUMN)
        targets: Any = F.lit(None).cast("array<struct<b:string,t:bigint>>")  # explode() gives no row for it
        for i, sid in enumerate(self.layout.spouts):
            mine = [self._targets(i, sid, b, g, starts) for s, b, g in subscriptions if s == sid]
            if mine:
                targets = F.when(spout == i, F.concat(*mine) if len(mine) > 1 else mine[0]).otherwise(targets)
        spouts = F.array(*(F.lit(sid) for sid in self.layout.spouts))
        streams = F.array(*(F.lit(self.topology.spouts[sid].spout.stream) for sid in self.layout.spouts))
        data = [c for sid in self.layout.spouts for c in self._columns(sid)]
        at = spout.cast("int") + 1
        exploded = source.select(*data, spout, PARTITION_COLUMN, ROW_COLUMN, F.explode(targets).alias("__t"))
        return exploded.select(
            *data, F.col("__t.b").alias("target"), F.col("__t.t").alias("task"),
            F.element_at(spouts, at).alias("source"), F.lit(SPOUT_TASK).cast("bigint").alias("source_task"),
            F.element_at(streams, at).alias("stream"), F.lit(0).cast("bigint").alias("o1"),
            F.col(PARTITION_COLUMN).cast("bigint").alias("o2"), spout.cast("bigint").alias("o3"),
            F.col(ROW_COLUMN).alias("o4"),
        )

    def _columns(self, sid: str) -> list[str]:
        return [self.layout.column(self.layout.spouts.index(sid), j) for j in range(len(self.layout.fields[sid]))]

    def _targets(self, i: int, sid: str, bolt: str, grouping: Grouping, starts: Mapping[CounterKey, int]) -> Column:
        """The ``array<struct<b, t>>`` of the tasks of ``bolt`` a row of spout ``i`` goes to."""
        from pyspark.sql import functions as F

        n = self.topology.bolts[bolt].parallelism
        stream = self.topology.spouts[sid].spout.stream

        def one(task: Column) -> Column:
            return F.array(F.struct(F.lit(bolt).alias("b"), task.cast("bigint").alias("t")))

        if isinstance(grouping, AllGrouping):
            return F.transform(F.sequence(F.lit(0), F.lit(n - 1)),
                               lambda t: F.struct(F.lit(bolt).alias("b"), t.cast("bigint").alias("t")))
        if isinstance(grouping, GlobalGrouping):
            return one(F.lit(0))
        if isinstance(grouping, FieldsGrouping):
            fields = list(self.topology.spouts[sid].spout.fields)
            columns = [self.layout.column(i, fields.index(f)) for f in grouping.required_fields()]
            return one(F.pmod(key_hash_column([(c, self.types[c]) for c in columns]), F.lit(n)))
        first = starts.get((sid, SPOUT_TASK, stream, bolt), 0)  # a shuffle: the batch's counter, plus p, plus r
        turn = F.lit(first) + F.col(PARTITION_COLUMN).cast("bigint") + F.col(ROW_COLUMN)
        return one(F.pmod(turn, F.lit(n)))

    def counts(self, bolts: Sequence[str], statuses: Mapping[str, list[TaskStatus]],
               counted: set[tuple[str, str]]) -> list[tuple[str, str, int]]:
        """The rows of each in-plan spout stream ``bolts`` read and ``counted`` lacks, from its first reader's tasks.

        A task reports the spout rows it received; a spout's rows are the sum
        over one subscriber's tasks (an ``all`` subscriber's divided by its
        tasks, each of which had every row). ``counted`` is updated.
        """
        out = []
        for sid, bolt, grouping in self.subscriptions(bolts):
            stream = self.topology.spouts[sid].spout.stream
            if (sid, stream) in counted:
                continue
            got = sum(n for s in statuses.get(bolt, []) for c, st, n in s.received if (c, st) == (sid, stream))
            if isinstance(grouping, AllGrouping):
                got //= self.topology.bolts[bolt].parallelism
            counted.add((sid, stream))
            out.append((sid, stream, got))
        return out
