"""Distributed mode's rows between stages (a *frame*), and the two functions Spark's Python workers run on them.

Between two stages a batch's tuples never reach the driver: they are rows of a
DataFrame (:data:`SCHEMA`), one row per *chunk*, the tuples one source task
sends to one target task on one stream (or, from a bolt, in emission order on
any streams). ``target`` is the receiving bolt (or :data:`OUT`, a terminal
output, :data:`KEPT`, a terminal output a sink keeps on the executors, or
:data:`STATUS`, what a task or a spout partition reports to the batch loop) and
``task`` its task. The order columns ``o1..o4`` give the order
the driver placement delivers the tuples in: spout rows first (``o1 = 0``), by
Spark partition, spout and stream; then each upstream bolt's tasks in
topological order (``o1 = 1 + its position``, ``o2`` the source task, ``o3``
the piece of its emissions). A spout chunk's payload is an Arrow IPC stream
(columns named as the stream's fields), and so is a bolt chunk's holding a
table it emitted (``o4 =`` :data:`TABLE_PIECE`, ``stream`` its stream); another
bolt chunk's is msgpack ``[[stream, values], ...]`` (a :data:`KEPT` chunk's, of
one stream, ``[values, ...]``).

:func:`route_spout_partition` (``mapInArrow`` over a batch's DataFrame) cuts a
Spark partition's spout rows into chunks with the subscribers' groupings
(:func:`~topologies.engine.routing.route_spout_tables`).
:func:`run_task_group` (in the Spark partition of one task of a bolt, over the
chunks addressed to it) runs the task on its chunks in order
(:func:`~topologies.engine.stage.run_stage_task`, as every placement does) and
writes what it emitted as chunks. Both route from the counters the batch
started with, so a retried Spark task routes as its first attempt did. When a
batch's layers run in one job, a task also sends its status row to each task
of the bolts reading it, as a *mark* (``o1 =`` :data:`MARK_ORDER`, addressed
like a chunk), and takes its own upstream watermark from the marks it was
sent (:func:`marked_watermark`).

A Python worker keeps the tasks it ran warm between batches (:data:`TASKS`,
letting go of those it cannot use again or that sat idle for a minute) and
opens each state store once (:func:`worker_backend`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from bolts.codecs.value_codec import pack_value, register_from_conf, unpack_value
from bolts.task_input import TaskInput
from state_backends import StateBackend, open_backend
from topologies.engine.batch_layout import PARTITION_COLUMN, BatchLayout, partition_runs
from topologies.engine.figures import TaskStatus, lowest_watermark
from topologies.engine.routing import SPOUT_TASK, CounterKey, Order, RoutingTable, route_spout_tables
from topologies.engine.stage import WORKER_IDLE_SECONDS, StageSpec, TaskCache, run_stage_task
from topologies.engine.wire import ipc_bytes, read_ipc
from topologies.sinks.output_rows import OutputRows, Run, TableRun
from topologies.sinks.records import Output
from topologies.sinks.typed_outputs import StreamTypes
from windowing.arrow_values import table_rows

if TYPE_CHECKING:
    import pyarrow as pa

OUT = "__out"
KEPT = "__kept"
STATUS = "__status"
SCHEMA = (
    "target string, task bigint, source string, source_task bigint, stream string, "
    "o1 bigint, o2 bigint, o3 bigint, o4 bigint, payload binary"
)
COLUMNS = ("target", "task", "source", "source_task", "stream", "o1", "o2", "o3", "o4", "payload")

class Chunks:
    """Rows of :data:`SCHEMA` being built, column by column."""

    def __init__(self) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}

    def add(self, target: str, task: int, source: str, source_task: int, stream: str,
            order: tuple[int, int, int, int], payload: bytes | None) -> None:
        """Append one row."""
        for name, value in zip(COLUMNS, (target, task, source, source_task, stream, *order, payload), strict=True):
            self.columns[name].append(value)

    def table(self) -> pa.Table:
        """The rows as an Arrow table of :data:`SCHEMA`."""
        import pyarrow as pa

        return pa.table({name: pa.array(values, _TYPES[name]) for name, values in self.columns.items()})


def _arrow_types() -> dict[str, Any]:
    import pyarrow as pa

    ints = ("task", "source_task", "o1", "o2", "o3", "o4")
    return {name: pa.int64() if name in ints else pa.binary() if name == "payload" else pa.string()
            for name in COLUMNS}


_TYPES = _arrow_types()


def empty() -> pa.Table:
    """A table of :data:`SCHEMA` with no rows."""
    return Chunks().table()


def rows_table(rows: Iterable[tuple[Any, ...]]) -> pa.Table:
    """Rows of :data:`SCHEMA` (tuples in its column order) as an Arrow table."""
    chunks = Chunks()
    for row in rows:
        chunks.add(*row[:5], tuple(row[5:9]), row[9])  # type: ignore[arg-type]
    return chunks.table()


class ChunkSink:
    """A :class:`~topologies.engine.routing.RoutedSink` that writes chunks (one per target task per source task).

    A bolt task's tuples for one target go in pieces, in emission order: a run
    of tuples emitted one by one (one msgpack chunk) or a table it emitted
    (one Arrow IPC chunk, ``o4 = 1``); ``o3`` numbers the pieces.
    """

    def __init__(self, order: Order = (0, 0, 0, 0)) -> None:
        self.chunks = Chunks()
        self.order = order  # of a bolt task's emissions: (its position, its task, 0, 0)
        self.shares: dict[tuple[str, int], list[Piece]] = {}
        self.outputs: list[Piece] = []
        self.kept: dict[str, list[list[Any]]] = {}

    def rows(self, bolt: str, task: int, source: str, source_task: int, stream: str, values: list[Any]) -> None:
        """Keep one emitted tuple for ``bolt``'s task ``task`` (its chunk is written by :meth:`emitted`)."""
        _rows_piece(self.shares.setdefault((bolt, task), [])).append([stream, list(values)])

    def rows_many(self, bolt: str, task: int, source: str, source_task: int, stream: str,
                  rows: list[Sequence[Any]]) -> None:
        """Keep tuples emitted in a row for ``bolt``'s task ``task``."""
        _rows_piece(self.shares.setdefault((bolt, task), [])).extend([stream, list(values)] for values in rows)

    def rows_table(self, bolt: str, task: int, source: str, source_task: int, stream: str, rows: pa.Table) -> None:
        """Keep a table a bolt's task emitted for ``bolt``'s task ``task``: a piece of its own."""
        self.shares.setdefault((bolt, task), []).append((stream, rows))

    def table(self, bolt: str, task: int, source: str, stream: str, rows: pa.Table, order: Order) -> None:
        """A spout's rows for ``bolt``'s task ``task``: one chunk of Arrow IPC."""
        self.chunks.add(bolt, task, source, SPOUT_TASK, stream, order, ipc_bytes(rows))

    def outputs_many(self, source: str, source_task: int, stream: str, rows: list[Sequence[Any]], kept: bool) -> None:
        """Keep outputs emitted in a row on one stream (a kept stream's apart)."""
        if kept:
            self.kept.setdefault(stream, []).extend([list(v) for v in rows])
        else:
            _rows_piece(self.outputs).extend([[stream, list(v)] for v in rows])

    def outputs_table(self, source: str, source_task: int, stream: str, rows: pa.Table, kept: bool) -> None:
        """Keep a table of outputs (a kept stream's as rows, as its sinks read them)."""
        if kept:
            self.kept.setdefault(stream, []).extend(table_rows(rows))
        else:
            self.outputs.append((stream, rows))

    def output_table(self, source: str, stream: str, rows: pa.Table, order: Order) -> None:
        """A spout's rows on a stream nobody subscribes to: one :data:`OUT` chunk."""
        self.chunks.add(OUT, 0, source, SPOUT_TASK, stream, order, ipc_bytes(rows))

    def emitted(self, component: str, task: int) -> Chunks:
        """The chunks, with those of what ``component``'s task ``task`` emitted: per target, outputs, kept rows."""
        for (bolt, target), pieces in self.shares.items():
            self._pieces(bolt, target, component, task, pieces)
        self._pieces(OUT, task, component, task, self.outputs)
        for stream, rows in self.kept.items():
            self.chunks.add(KEPT, task, component, task, stream, self.order, pack_value(rows))
        return self.chunks

    def _pieces(self, target: str, target_task: int, component: str, task: int, pieces: list[Piece]) -> None:
        first, second = self.order[:2]
        for i, piece in enumerate(pieces):
            if isinstance(piece, tuple):
                stream, table = piece
                self.chunks.add(target, target_task, component, task, stream, (first, second, i, TABLE_PIECE),
                                ipc_bytes(table))
            else:
                self.chunks.add(target, target_task, component, task, "", (first, second, i, 0), pack_value(piece))


Piece = list[list[Any]] | tuple[str, "pa.Table"]
"""Tuples a task emitted one by one (``[stream, values]`` each), or a table it emitted on a stream."""
TABLE_PIECE = 1  # o4 of a bolt's chunk holding a table (Arrow IPC), not msgpack


def _rows_piece(pieces: list[Piece]) -> list[list[Any]]:
    """The last piece if it holds tuples emitted one by one, else a new one at the end."""
    if not pieces or isinstance(pieces[-1], tuple):
        pieces.append([])
    return pieces[-1]  # type: ignore[return-value]


def route_spout_partition(
    layout: BatchLayout, routing: RoutingTable, starts: Mapping[CounterKey, int], batches: Iterator[pa.RecordBatch],
) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function over a batch's spout rows: one Spark partition's rows cut into chunks.

    The partition's number is in :data:`PARTITION_COLUMN` (rows of several
    partitions, gathered into one, are routed run by run); its rows of each
    spout stream go to the stream's subscribers with their groupings, and to
    :data:`OUT` when nobody subscribes. A :data:`STATUS` row reports the rows
    per ``(spout, stream)``, from which the batch loop moves the shuffle
    counters. A spout's refusal of bad input (``mode="FAILFAST"``) raises here.
    """
    import pyarrow as pa

    parts = [b for b in batches if b.num_rows]
    if not parts:
        return
    sink = ChunkSink()
    positions = {sid: i for i, sid in enumerate(layout.spouts)}
    for partition, rows in partition_runs(pa.Table.from_batches(parts)):
        spouts = layout.decode(rows.drop_columns([PARTITION_COLUMN]))
        counts = route_spout_tables(routing, partition, spouts, positions, starts, sink)
        status = pack_value([list(c) for c in counts])
        sink.chunks.add(STATUS, partition, "", SPOUT_TASK, "", (0, partition, 0, 0), status)
    yield from sink.chunks.table().to_batches()


def task_input(routing: RoutingTable, spout_columns: Mapping[str, Sequence[str]], table: pa.Table) -> TaskInput:
    """A task's input from its rows, put in delivery order: chunks, and spout rows Spark routed in the plan.

    A routed spout row has no ``payload``: its values are in its spout's
    columns (``spout_columns``: each spout's layout columns of its fields, in
    order), and a run of them (one spout ``o3``, one Spark partition ``o2``)
    becomes one Arrow segment.
    """
    import numpy as np
    import pyarrow.compute as pc

    ordered = table.take(pc.sort_indices(table, [(c, "ascending") for c in ("o1", "o2", "o3", "o4")]))
    batch = TaskInput()
    raw = pc.is_null(ordered.column("payload")).to_numpy(zero_copy_only=False)
    o2 = ordered.column("o2").to_numpy(zero_copy_only=False)
    o3 = ordered.column("o3").to_numpy(zero_copy_only=False)
    # A run: consecutive routed spout rows of one partition and spout; every chunk is a run of its own.
    change = (raw[1:] != raw[:-1]) | (o2[1:] != o2[:-1]) | (o3[1:] != o3[:-1]) | ~raw[1:]
    bounds = [0, *(np.flatnonzero(change) + 1).tolist(), len(raw)] if len(raw) else [0]
    keys = ordered.select(["source", "source_task", "stream", "o1", "o4"])
    for start, end in itertools.pairwise(bounds):
        source, source_task, stream, o1, o4 = (keys.column(i)[start].as_py() for i in range(5))
        if raw[start]:
            fields = routing.streams[source][stream]
            rows = ordered.slice(start, end - start).select(list(spout_columns[source])).rename_columns(list(fields))
            batch.append_table(source, source_task, stream, fields, rows)
        elif o1 == 0 or o4 == TABLE_PIECE:  # a spout's rows, or a table a bolt emitted
            payload = ordered.column("payload")[start].as_py()
            batch.append_table(source, source_task, stream, routing.streams[source][stream], read_ipc(payload))
        else:
            for emitted_on, values in unpack_value(ordered.column("payload")[start].as_py()):
                batch.append_row(source, source_task, emitted_on, routing.streams[source][emitted_on], values)
    return batch


def worker_backend(url: str) -> StateBackend:
    """The state store at ``url``, opened once per worker process."""
    backend = _BACKENDS.get(url)
    if backend is None:
        backend = _BACKENDS[url] = open_backend(url)
    return backend


_BACKENDS: dict[str, StateBackend] = {}
TASKS = TaskCache(worker_backend, idle_seconds=WORKER_IDLE_SECONDS)  # this worker process's warm tasks


def run_task_group(
    spec: StageSpec, routing: RoutingTable, spout_columns: Mapping[str, Sequence[str]],
    starts: Mapping[CounterKey, int], key: tuple[Any, ...], table: pa.Table,
) -> pa.Table:
    """One task of a bolt's stage, in its Spark partition: run task ``key[0]`` on its rows (``table``).

    The task runs as every placement runs one (:func:`~topologies.engine.stage.run_stage_task`:
    warm or rebuilt from its store, then committed; a batch its store holds
    already re-sends its committed emissions). Its emissions become chunks for
    the tasks of the next layers (a shuffle counting on from the counter the
    batch started with), :data:`OUT` and :data:`KEPT` chunks, and one
    :data:`STATUS` row carries its :class:`~topologies.engine.figures.TaskStatus`.
    """
    task = int(key[0].as_py() if hasattr(key[0], "as_py") else key[0])
    register_from_conf(spec.conf)  # before the chunks' objects are read
    order = (routing.position[spec.component], task, 0, 0)
    sink = ChunkSink(order)
    if spec.watermark_from:
        table, marks = marks_apart(table)
        spec = replace(spec, watermark=marked_watermark(spec, marks))
    status = run_stage_task(spec, task, task_input(routing, spout_columns, table), routing, starts, TASKS, sink)
    chunks = sink.emitted(spec.component, task)
    packed = status.pack()
    chunks.add(STATUS, task, spec.component, task, "", order, packed)
    for bolt, tasks in spec.marks_to:  # the tasks reading this one take their watermark from it
        for target in range(tasks):
            chunks.add(bolt, target, spec.component, task, "", (MARK_ORDER, task, 0, 0), packed)
    return chunks.table()


MARK_ORDER = -1
"""``o1`` of a *mark*: a task's status row sent to a task of a bolt reading it (``StageSpec.marks_to``)."""


def marks_apart(table: pa.Table) -> tuple[pa.Table, pa.Table]:
    """A task's rows without its marks, and its marks."""
    import pyarrow.compute as pc

    is_mark = pc.equal(table.column("o1"), MARK_ORDER)
    return table.filter(pc.invert(is_mark)), table.filter(is_mark)


def marked_watermark(spec: StageSpec, marks: pa.Table) -> int | None:
    """The lowest watermark of the tasks of ``spec.watermark_from``, from their marks (each task's, once).

    Every such task sends its mark in the batch (Spark runs the layer before
    this one in the same job); one missing is a RuntimeError naming it.
    """
    seen: dict[tuple[str, int], int | None] = {}
    for source, source_task, payload in zip(marks.column("source").to_pylist(),
                                            marks.column("source_task").to_pylist(),
                                            marks.column("payload").to_pylist(), strict=True):
        seen[source, source_task] = TaskStatus.unpack(payload).watermark
    missing = [(bolt, t) for bolt, tasks in spec.watermark_from.items() for t in range(tasks) if (bolt, t) not in seen]
    if missing:
        msg = f"bolt {spec.component!r}: no mark from the upstream tasks {missing} in this batch"
        raise RuntimeError(msg)
    return lowest_watermark(seen[bolt, t] for bolt, tasks in spec.watermark_from.items() for t in range(tasks))


def kept_rows(columns: StreamTypes, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function making a kept stream's typed rows from its :data:`KEPT` chunks' payloads."""
    for batch in batches:
        rows = [values for payload in batch.column(0).to_pylist() for values in unpack_value(payload)]
        if rows:
            yield from columns.table(rows).to_batches()


def outputs_of(rows: pa.Table) -> OutputRows:
    """The terminal outputs among ``rows`` (:data:`OUT` rows), in delivery order; a table's as a table."""
    import pyarrow.compute as pc

    out = rows.filter(pc.equal(rows.column("target"), OUT))
    out = out.take(pc.sort_indices(out, [(c, "ascending") for c in ("o1", "o2", "o3", "o4")]))
    runs: list[Run] = []
    for row in out.select(["source", "source_task", "stream", "o1", "o4", "payload"]).to_pylist():
        source, task = row["source"], row["source_task"]
        if row["o1"] == 0 or row["o4"] == TABLE_PIECE:
            runs.append(TableRun(source, task, row["stream"], read_ipc(row["payload"])))
        else:
            runs.append([Output(source, task, s, list(v)) for s, v in unpack_value(row["payload"])])
    return OutputRows(runs)


def statuses_of(rows: pa.Table) -> list[bytes]:
    """The payloads of the :data:`STATUS` rows among ``rows``."""
    import pyarrow.compute as pc

    return rows.filter(pc.equal(rows.column("target"), STATUS)).column("payload").to_pylist()
