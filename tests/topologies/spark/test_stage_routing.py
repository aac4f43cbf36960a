"""Distributed mode's stages in this process: a batch in any number of Spark partitions gives driver mode's outputs.

:class:`LocalFrames` runs the functions Spark's executors run
(:func:`routed.route_spout_partition` per partition, :func:`routed.run_task_group`
per task, each task rebuilt from the store as if in a new process), on a batch
cut into random partitions; driver mode routes the same partitions
(:meth:`BatchLoop.run` of the partitioned table). The topology is the cluster suite's
``mixed``: all four groupings, shuffles from spouts and bolts, stateful,
paged and message-id windows, and aggregations.
"""

from __future__ import annotations

import itertools
import uuid

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cluster.cases import FIELDS, keyed_rows, mixed
from tests.topologies.helpers import counting_clock
from topologies.engine import BatchClock, batch_loop
from topologies.engine.batch_layout import BatchLayout
from topologies.engine.placements import chunks
from topologies.engine.placements.chunks import OUT, STATUS
from topologies.engine.placements.frames import LayerStage, SparkFrames
from topologies.engine.placements.local_frames import LocalFrames
from topologies.groupings import ShuffleGrouping


def partitioned(layout: BatchLayout, spout: str, rows: list[list], cuts: list[int]) -> pa.Table:
    """The layout's table of ``rows`` read in partitions 0, 1, ... ending before each index in ``cuts``."""
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(rows)}), len(rows)]
    return pa.concat_tables([layout.encode({spout: rows[a:b]}, partition=p)
                             for p, (a, b) in enumerate(itertools.pairwise(bounds))])


class CountingFrames(LocalFrames):
    """:class:`LocalFrames` that keeps every table handed to the driver."""

    def __init__(self) -> None:
        super().__init__(fresh_tasks=True)
        self.received: list[pa.Table] = []

    def driver_rows(self, frame: pa.Table) -> pa.Table:
        rows = super().driver_rows(frame)
        self.received.append(rows)
        return rows


def run_both(tmp_path, batches: list[list[list]], cuts: list[list[int]]):
    topology = mixed(tmp_path)  # the spout's path is not read: the batches are given
    layout = BatchLayout(topology)
    driver = batch_loop(topology, BatchClock(tmp_path / f"d{uuid.uuid4().hex}", counting_clock()))
    chunks.worker_backend("memory://")
    stages = CountingFrames()
    distributed = batch_loop(topology, BatchClock(tmp_path / f"x{uuid.uuid4().hex}", counting_clock()),
                             mode="distributed", backend=chunks.worker_backend("memory://"),
                             name=f"r-{uuid.uuid4().hex[:8]}", state_url="memory://", frames=stages)
    for batch_id, (rows, cut) in enumerate(zip(batches, cuts, strict=True)):
        table = partitioned(layout, "events", rows, cut)
        driver.run(batch_id, table)
        distributed.run(batch_id, table)
    driver.flush()
    distributed.flush()
    return driver.log.all(), distributed.log.all(), stages.received


def rows_of(batches):
    return [[[row[f] for f in FIELDS] for row in rows] for rows in batches]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 1_000), cuts=st.lists(st.lists(st.integers(0, 30), max_size=4), min_size=4, max_size=4))
def test_a_batch_in_any_partitions_gives_driver_modes_outputs_in_both_modes(tmp_path, seed, cuts):
    batches = rows_of(keyed_rows(4, 12, seed=seed))
    expected, got, _ = run_both(tmp_path, batches, cuts)
    assert {o.component for o in expected} >= {"tally", "tally_all", "stateful", "paged", "msgid", "agg_total"}
    assert got == expected


def test_the_driver_receives_outputs_and_one_status_per_task_never_the_tuples_between_stages(tmp_path):
    batches = rows_of(keyed_rows(4, 12, seed=3))
    expected, _, received = run_both(tmp_path, batches, [[5, 9], [], [2], [7, 8, 11]])
    for rows in received:
        assert set(rows.column("target").to_pylist()) <= {OUT, STATUS}
    statuses = sum(pc.sum(pc.equal(r.column("target"), STATUS)).as_py() or 0 for r in received)
    tasks = sum(spec.parallelism for spec in mixed(tmp_path).bolts.values())
    # per batch: one status per spout partition (3 + 1 + 2 + 4) and one per task; the flush: one per task
    assert statuses == (3 + 1 + 2 + 4) + 5 * tasks
    delivered = sum(pc.sum(pc.equal(r.column("target"), OUT)).as_py() or 0 for r in received)
    assert delivered <= len(expected)  # output chunks: at most one per output


def test_a_shuffle_deals_each_partition_from_the_batchs_counter_plus_its_number(tmp_path):
    """Partition p's first row goes to task (start + p) % n; the counter moves by the batch's rows."""
    from bolts import Fields
    from tests.cluster.cases import Tally, spout
    from topologies import TopologyBuilder
    from topologies.engine.routing import RoutingTable, moved_by_spouts, route_spout_tables

    class Dealt:
        def __init__(self):
            self.tasks = [[], [], []]

        def table(self, bolt, task, source, stream, rows, order):
            self.tasks[task] += rows.column("key").to_pylist()

    b = TopologyBuilder()
    b.set_spout("s", spout(tmp_path))
    b.set_bolt("x", Tally(), 3).shuffle_grouping("s")
    routing = RoutingTable.of(b.create_topology())
    starts = {("s", 0, "default", "x"): 7}
    fields = Fields(*FIELDS)
    parts = [[10, 11], [20, 21, 22]]
    dealt, counts = Dealt(), []
    for p, values in enumerate(parts):
        table = pa.table({f: values for f in FIELDS})
        counts += route_spout_tables(routing, p, {"s": {"default": table}}, {"s": 0}, starts, dealt)
    expected: list[list[int]] = [[], [], []]
    for p, values in enumerate(parts):
        for i, v in enumerate(values):
            expected[ShuffleGrouping().targets([v] * 4, fields, 3, 7 + p + i)[0]].append(v)
    assert dealt.tasks == expected == [[21], [10, 22], [11, 20]]
    end = dict(starts)
    assert moved_by_spouts(routing, counts, end) == 5 and end[("s", 0, "default", "x")] == 12


def test_spark_stages_give_the_outputs_of_the_stages_run_here(spark, redis_url, tmp_path):
    """The same functions on Spark's executors (persisted DataFrames, one task per partition) as in this process.

    Spark's frames run twice: with the spouts cut into chunks by the Python
    pass (the default) and routed in the plan.
    """
    from state_backends import open_backend

    topology = mixed(tmp_path)
    batches = rows_of(keyed_rows(3, 10, seed=5))
    outputs = []
    for engine in (LocalFrames(), SparkFrames(spark), SparkFrames(spark, routes_spouts_in_plan=True)):
        state = "memory://" if isinstance(engine, LocalFrames) else redis_url
        executor = batch_loop(topology, BatchClock(tmp_path / uuid.uuid4().hex, counting_clock()),
                              mode="distributed", backend=open_backend(state), name=f"s-{uuid.uuid4().hex[:8]}",
                              spark=spark, state_url=state, frames=engine)
        for batch_id, rows in enumerate(batches):
            executor.run(batch_id, {"events": rows})
        executor.flush()
        outputs.append(executor.log.all())
    assert outputs[0] and outputs[1] == outputs[0] and outputs[2] == outputs[0]


class JobCountingFrames(SparkFrames):
    """:class:`SparkFrames` counting the jobs that bring rows to the driver."""

    def __init__(self, spark) -> None:
        super().__init__(spark)
        self.jobs = 0

    def driver_rows(self, frame, mixed: bool = True) -> pa.Table:
        self.jobs += 1
        return super().driver_rows(frame, mixed)


def test_a_batch_of_many_layers_is_one_spark_job(spark, redis_url, tmp_path):
    """The mixed topology has three layers; each batch (and the flush) is one job, every task reporting in it."""
    from state_backends import open_backend
    from topologies.engine.stage import layers

    topology = mixed(tmp_path)
    assert len(layers(topology)) == 3
    engine = JobCountingFrames(spark)
    loop = batch_loop(topology, BatchClock(tmp_path / "clock", counting_clock()), mode="distributed",
                      backend=open_backend(redis_url), name=f"one-job-{uuid.uuid4().hex[:8]}", spark=spark,
                      state_url=redis_url, frames=engine)
    assert loop.placement.fuses_layers
    for batch_id, rows in enumerate(rows_of(keyed_rows(2, 10, seed=3))):
        loop.run(batch_id, {"events": rows})
        assert engine.jobs == batch_id + 1
        bolts = loop.metrics.get(batch_id).bolts
        assert sorted(bolts) == sorted(topology.bolts)
    loop.flush()
    assert engine.jobs == 3


def _where_it_ran(key, table: pa.Table) -> pa.Table:
    """A task function reporting the Spark partition it ran in and the payloads it was given."""
    from pyspark import TaskContext

    from bolts.codecs.value_codec import pack_value
    from topologies.engine.placements.chunks import Chunks

    chunks = Chunks()
    ran = [TaskContext.get().partitionId(), sorted(table.column("payload").to_pylist())]
    chunks.add(STATUS, key[0], "", -1, "", (0, 0, 0, 0), pack_value(ran))
    return chunks.table()


def test_each_task_of_a_spark_stage_runs_alone_in_its_partition_an_idle_one_too(spark):
    """Task i is Spark partition i of its stage, with the chunks of every upstream frame addressed to it."""
    from bolts.codecs.value_codec import unpack_value
    from topologies.engine.placements.chunks import rows_table

    def frame(rows):
        return spark.createDataFrame(rows_table(rows)).repartition(3)

    def chunk(target, task, payload):
        return (target, task, "s", -1, "", 0, 1, 2, 3, payload)

    upstream = [frame([*(chunk("x", t, f"{t}-{i}".encode()) for t in (0, 4) for i in range(3)), chunk("y", 1, b"y")]),
                frame([chunk("x", 4, b"from b")])]
    for parallelism in (5, 8):
        engine = SparkFrames(spark)
        out, rows = engine.layer([LayerStage(upstream, "x", parallelism, _where_it_ran)])
        ran = {task: unpack_value(p) for task, p in zip(rows.column("task").to_pylist(),
                                                         rows.column("payload").to_pylist(), strict=True)}
        assert sorted(ran) == list(range(parallelism))
        assert all(partition == task for task, (partition, _) in ran.items())
        assert ran[0][1] == [b"0-0", b"0-1", b"0-2"]
        assert ran[4][1] == [b"4-0", b"4-1", b"4-2", b"from b"]
        assert all(payloads == [] for task, (_, payloads) in ran.items() if task not in (0, 4))  # idle: no ticks
        engine.release([out])


def test_a_layers_tick_rows_are_planned_once_per_jvm_session(spark):
    """A classic foreachBatch wraps the query's one JVM session anew each batch: the ticks' plan is reused across them.

    Another session (Connect's per-batch sessions, ``newSession``) gets its own plan.
    """
    from pyspark.sql import SparkSession

    engine = SparkFrames(spark)
    stages = [LayerStage([], "x", 3, _where_it_ran)]
    first = engine.ticks(spark, stages)
    rewrapped = SparkSession(spark.sparkContext, spark._jsparkSession)  # what foreachBatch hands each batch
    assert rewrapped is not spark
    assert engine.ticks(rewrapped, stages) is first
    other = spark.newSession()
    again = engine.ticks(other, stages)
    assert again is not first and again.sparkSession is other
    assert sorted(tuple(r) for r in again.select("source", "task").collect()) == [("x", 0), ("x", 1), ("x", 2)]
