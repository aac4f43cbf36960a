"""The driver placement: the batch comes to where ``foreachBatch`` runs, as Arrow, and every task runs there.

The spouts' rows are cut into the tasks' inputs on their columns
(:func:`~topologies.engine.routing.route_spout_tables`); each layer's tasks run
in this process, in task order, and what they emit is appended to the next
tasks' inputs as it is emitted, in memory. Every task commits what the batch
changed to its namespace of the state backend (a private ``memory://`` by
default), and stays warm between batches (:class:`~topologies.engine.stage.TaskCache`):
a new process (a submit that resumes from the checkpoint, a Spark Connect
server's ``foreachBatch`` process) or a batch Spark runs again builds it from
the store.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from bolts.task_input import TaskInput
from topologies.engine.batch_layout import BatchLayout, SpoutBatch
from topologies.engine.delivery.sink_delivery import HeldOutputs, SinkDelivery
from topologies.engine.placements.base import LayerResult, SpoutCounts
from topologies.engine.routing import SPOUT_TASK, CounterKey, Order, RoutingTable, route_spout_tables
from topologies.engine.stage import StageSpec, TaskCache, run_stage_task
from topologies.sinks.output_rows import OutputRows, Run, TableRun
from topologies.sinks.records import Output, OutputKey
from topologies.topology import Topology

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from state_backends import StateBackend


class _Routed:
    """The batch in this process: each task's input, and the outputs by the position of who emitted them."""

    def __init__(self, routing: RoutingTable) -> None:
        self.routing = routing
        self.inputs: dict[tuple[str, int], TaskInput] = {}
        self.outputs: dict[tuple[int, int], list[Run]] = {}  # (position, task) -> runs of outputs, spouts at (0, 0)

    def _input(self, bolt: str, task: int) -> TaskInput:
        found = self.inputs.get((bolt, task))
        if found is None:
            found = self.inputs[bolt, task] = TaskInput()
        return found

    def rows(self, bolt: str, task: int, source: str, source_task: int, stream: str, values: list[Any]) -> None:
        """Append one emitted tuple to the input of ``bolt``'s task ``task``."""
        self._input(bolt, task).append_row(source, source_task, stream, self.routing.streams[source][stream], values)

    def rows_many(self, bolt: str, task: int, source: str, source_task: int, stream: str,
                  rows: list[Sequence[Any]]) -> None:
        """Append tuples emitted in a row to the input of ``bolt``'s task ``task``."""
        self._input(bolt, task).extend_rows(source, source_task, stream, self.routing.streams[source][stream], rows)

    def table(self, bolt: str, task: int, source: str, stream: str, rows: pa.Table, order: Order) -> None:
        """Append a spout's rows to the input of ``bolt``'s task ``task``."""
        self._input(bolt, task).append_table(source, SPOUT_TASK, stream, self.routing.streams[source][stream], rows)

    def rows_table(self, bolt: str, task: int, source: str, source_task: int, stream: str, rows: pa.Table) -> None:
        """Append a table a bolt's task emitted to the input of ``bolt``'s task ``task``."""
        self._input(bolt, task).append_table(source, source_task, stream, self.routing.streams[source][stream], rows)

    def outputs_many(self, source: str, source_task: int, stream: str, rows: list[Sequence[Any]], kept: bool) -> None:
        """Keep outputs a bolt's task emitted in a row on one stream."""
        runs = self.outputs.setdefault((self.routing.position[source], source_task), [])
        if not runs or isinstance(runs[-1], TableRun):
            runs.append([])
        runs[-1].extend([Output(source, source_task, stream, list(v)) for v in rows])  # type: ignore[union-attr]

    def outputs_table(self, source: str, source_task: int, stream: str, rows: pa.Table, kept: bool) -> None:
        """Keep a table of outputs a task emitted on one stream, as a table until something reads them."""
        at = (self.routing.position[source], source_task)
        self.outputs.setdefault(at, []).append(TableRun(source, source_task, stream, rows))

    def output_table(self, source: str, stream: str, rows: pa.Table, order: Order) -> None:
        """Keep a spout's rows on a stream nobody subscribes to, as outputs."""
        self.outputs_table(source, SPOUT_TASK, stream, rows, False)

    def in_order(self) -> OutputRows:
        """The outputs in delivery order: spouts' first, then each bolt's in topological order, by task."""
        return OutputRows(run for at in sorted(self.outputs) for run in self.outputs[at])


class DriverStages:
    """Every task of the topology in this process (see the module docstring)."""

    shared_state: ClassVar[bool] = False
    keeps_on_executors: ClassVar[bool] = False
    fuses_layers: ClassVar[bool] = False  # a layer's watermarks come from the layers before it, run here

    def __init__(
        self, *, topology: Topology, conf: Mapping[str, Any], backend: StateBackend, name: str, state_url: str,
        spark: SparkSession | None = None,
    ) -> None:
        self.topology = topology
        self.layout = BatchLayout(topology)
        self.routing = RoutingTable.of(topology)
        self.tasks = TaskCache(lambda url: backend)
        self.positions = {sid: i for i, sid in enumerate(self.layout.spouts)}
        self._routed = _Routed(self.routing)
        self._counts: SpoutCounts = []

    def source_of(self, df: DataFrame) -> SpoutBatch:
        """The micro-batch as Arrow, per Spark partition (``toArrow`` brings it to this process)."""
        return self.layout.decode_partitions(self.layout.with_partition(df).toArrow())

    def source_of_table(self, table: pa.Table) -> SpoutBatch:
        """The spouts' rows of ``table`` (the layout's columns), per partition."""
        return self.layout.decode_partitions(table)

    def begin(self, source: SpoutBatch | None, starts: Mapping[CounterKey, int]) -> None:
        """Cut each partition's spout rows into the tasks' inputs, and the outputs of spout streams nobody reads."""
        self._routed = _Routed(self.routing)
        self._counts = []
        for partition, spouts in source.parts if source is not None else ():
            self._counts += route_spout_tables(self.routing, partition, spouts, self.positions, starts, self._routed)

    def run_layer(self, stages: Sequence[StageSpec], starts: Mapping[CounterKey, int]) -> LayerResult:
        """Each bolt of the layer, each task in order, on its input; what it emits goes to the next tasks' inputs."""
        result = LayerResult({}, self._counts)
        self._counts = []
        routed = self._routed
        for spec in stages:
            started = time.perf_counter()
            result.statuses[spec.component] = [
                run_stage_task(spec, index, routed.inputs.pop((spec.component, index), TaskInput()), self.routing,
                               starts, self.tasks, routed)
                for index in range(spec.parallelism)
            ]
            result.elapsed_ms[spec.component] = (time.perf_counter() - started) * 1000
        return result

    def end(self, key: OutputKey, delivery: SinkDelivery) -> tuple[HeldOutputs, SpoutCounts]:
        """The batch's outputs, all in this process, in delivery order."""
        counts, self._counts = self._counts, []
        return HeldOutputs(key, self._routed.in_order(), delivery), counts

    def release(self) -> None:
        """Forget the batch's inputs and outputs."""
        self._routed = _Routed(self.routing)
