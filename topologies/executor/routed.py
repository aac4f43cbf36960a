"""Distributed mode's rows between stages, and the two functions Spark's Python workers run on them.

Between two stages a batch's tuples never reach the driver: they are rows of a
DataFrame (:data:`SCHEMA`), one row per *chunk*, the tuples one source task
sends to one target task on one stream (or, from a bolt, in emission order on
any streams). ``target`` is the receiving bolt (or :data:`OUT`, a terminal
output, :data:`KEPT`, a terminal output a sink keeps on the executors, or
:data:`STATUS`, what a task or a spout partition reports to the driver) and
``task`` its task. The order columns ``o1..o4`` give the order
driver mode delivers the chunks in: spout rows first (``o1 = 0``), by Spark
partition, spout and stream; then each upstream bolt's tasks in topological
order (``o1 = 1 + its position``, ``o2`` the source task). A spout chunk's
payload is an Arrow IPC stream (columns named as the stream's fields); a bolt
chunk's is msgpack ``[[stream, values], ...]`` (a :data:`KEPT` chunk's, of
one stream, ``[values, ...]``).

:func:`route_spout_partition` (``mapInArrow`` over a batch's DataFrame) cuts a
Spark partition's spout rows into chunks with the subscribers' groupings.
:func:`run_task_group` (in the Spark partition of one task of a bolt, over the
chunks addressed to it) runs one task on its chunks in order and routes what it emitted.
Both compute shuffle counters from the counters the batch started with, so a
retried Spark task routes as its first attempt did.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bolts.codecs.value_codec import pack_value, register_from_conf, unpack_value
from bolts.task_input import TaskInput
from topologies.executor.batch_layout import PARTITION_COLUMN, BatchLayout, SpoutStreams
from topologies.executor.routing import CounterKey, RoutingTable
from topologies.executor.runtime import SPOUT_TASK
from topologies.executor.worker import StageSpec, run_one
from topologies.sinks.typed_outputs import StreamTypes

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


def ipc_bytes(table: pa.Table) -> bytes:
    """``table`` as one Arrow IPC stream."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def read_ipc(data: bytes) -> pa.Table:
    """The table :func:`ipc_bytes` made ``data`` from."""
    import pyarrow as pa

    return pa.ipc.open_stream(data).read_all()


def route_spout_partition(
    layout: BatchLayout, routing: RoutingTable, starts: Mapping[CounterKey, int], batches: Iterator[pa.RecordBatch],
) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function over a batch's spout rows: one Spark partition's rows cut into chunks.

    The partition's number is in :data:`PARTITION_COLUMN`; its rows of each
    spout stream go to the stream's subscribers with their groupings (a shuffle
    from counter ``start + partition``, as :meth:`Router.route_table`), and to
    :data:`OUT` when nobody subscribes. A :data:`STATUS` row reports the rows
    per ``(spout, stream)``, from which the driver moves the shuffle counters.
    A spout's refusal of bad input (``mode="FAILFAST"``) raises here.
    """
    import pyarrow as pa

    parts = [b for b in batches if b.num_rows]
    if not parts:
        return
    table = pa.Table.from_batches(parts)
    partition = int(table.column(PARTITION_COLUMN)[0].as_py())
    chunks, counts = Chunks(), []
    for sid, data in layout.decode(table.drop_columns([PARTITION_COLUMN])).items():
        spout_index = layout.spouts.index(sid)
        tables = data.tables if isinstance(data, SpoutStreams) else {layout.topology.spouts[sid].spout.stream: data}
        for stream_index, (stream, rows) in enumerate(tables.items()):
            counts.append([sid, stream, rows.num_rows])
            order = (0, partition, spout_index, stream_index)
            if routing.is_output(sid, stream):
                chunks.add(OUT, 0, sid, SPOUT_TASK, stream, order, ipc_bytes(rows))
                continue
            shares = routing.table_shares(sid, SPOUT_TASK, stream, rows, lambda key: starts.get(key, 0) + partition)
            for bolt, task, share in shares:
                if share.num_rows:
                    chunks.add(bolt, task, sid, SPOUT_TASK, stream, order, ipc_bytes(share))
    chunks.add(STATUS, partition, "", SPOUT_TASK, "", (0, partition, 0, 0), pack_value(counts))
    yield from chunks.table().to_batches()


def task_input(routing: RoutingTable, table: pa.Table) -> TaskInput:
    """A task's input from its chunks, put in delivery order."""
    import pyarrow.compute as pc

    ordered = table.take(pc.sort_indices(table, [(c, "ascending") for c in ("o1", "o2", "o3", "o4")]))
    batch = TaskInput()
    rows = ordered.select(["source", "source_task", "stream", "o1", "payload"]).to_pylist()
    for row in rows:
        source, source_task = row["source"], row["source_task"]
        if row["o1"] == 0:
            stream = row["stream"]
            batch.append_table(source, source_task, stream, routing.streams[source][stream], read_ipc(row["payload"]))
            continue
        for stream, values in unpack_value(row["payload"]):
            batch.append_row(source, source_task, stream, routing.streams[source][stream], values)
    return batch


@dataclass(frozen=True)
class TaskStatus:
    """What a task reports to the driver after its stage: figures, watermark, and its shuffle counters' ends."""

    task: int
    watermark: int | None
    fired: int
    late: int
    state_bytes: int
    tuples_in: int
    tuples_out: int
    counters: tuple[tuple[str, str, int], ...]  # (stream, bolt, counter at the end)
    types: tuple[tuple[str, str], ...] = ()  # (kept stream, the DDL of the types its values showed)
    event_times: tuple[tuple[str, str, int], ...] | None = None  # (component, stream, largest event time)

    def pack(self) -> bytes:
        """The status as bytes."""
        times = None if self.event_times is None else [list(t) for t in self.event_times]
        return pack_value([self.task, self.watermark, self.fired, self.late, self.state_bytes, self.tuples_in,
                           self.tuples_out, [list(c) for c in self.counters], [list(t) for t in self.types], times])

    @classmethod
    def unpack(cls, data: bytes) -> TaskStatus:
        """The status :meth:`pack` made ``data`` from."""
        task, watermark, fired, late, written, tuples_in, tuples_out, counters, types, times = unpack_value(data)
        return cls(task, watermark, fired, late, written, tuples_in, tuples_out,
                   tuple((s, b, n) for s, b, n in counters), tuple((s, t) for s, t in types),
                   None if times is None else tuple((c, s, ts) for c, s, ts in times))

    def event_time_maxima(self) -> dict[tuple[str, str], int] | None:
        """The task's largest event times per input stream (None when it keeps none)."""
        return None if self.event_times is None else {(c, s): ts for c, s, ts in self.event_times}


def run_task_group(
    spec: StageSpec, routing: RoutingTable, starts: Mapping[CounterKey, int], key: tuple[Any, ...], table: pa.Table,
) -> pa.Table:
    """One task of a bolt's stage: run task ``key[0]`` on its chunks (``table``) and route its emissions.

    The task runs as :func:`worker.run_one` runs it (warm cache, resumed from
    and committed to the store; a batch the store holds already re-sends its
    committed emissions). Each emission goes, in order, to its stream's
    subscribers (a shuffle counting on from the counter the batch started
    with), or to :data:`OUT`; one :data:`STATUS` row carries a
    :class:`TaskStatus`.
    """
    task = int(key[0].as_py() if hasattr(key[0], "as_py") else key[0])
    register_from_conf(spec.conf)  # before the chunks' objects are read
    batch = task_input(routing, table)
    result = run_one(spec, task, batch, routing, starts)
    component = spec.component
    order = (routing.position[component], task, 0, 0)
    shares: dict[tuple[str, int], list[list[Any]]] = {}
    outputs: list[list[Any]] = []
    kept: dict[str, list[list[Any]]] = {}
    moved: dict[CounterKey, int] = {}  # the counters this task moved; the rest stay as the batch started them
    counters = ChainMap(moved, dict(starts))
    for stream, values, *direct in result.emissions:
        if stream in spec.kept:
            kept.setdefault(stream, []).append(list(values))
            continue
        if routing.is_output(component, stream):
            outputs.append([stream, list(values)])
            continue
        for target in routing.row_targets(counters, component, task, stream, values, *direct):
            shares.setdefault(target, []).append([stream, list(values)])
    chunks = Chunks()
    for (bolt, target), items in shares.items():
        chunks.add(bolt, target, component, task, "", order, pack_value(items))
    if outputs:
        chunks.add(OUT, task, component, task, "", order, pack_value(outputs))
    types = []
    for stream, rows in kept.items():
        chunks.add(KEPT, task, component, task, stream, order, pack_value(rows))
        types.append((stream, shown_types(spec.kept[stream], rows)))
    times = None if result.event_times is None else tuple((c, s, ts) for (c, s), ts in result.event_times.items())
    status = TaskStatus(task, result.watermark, result.fired, result.late, result.state_bytes, len(batch),
                        len(result.emissions), tuple((s, b, n) for (_, _, s, b), n in moved.items()), tuple(types),
                        times)
    chunks.add(STATUS, task, component, task, "", order, status.pack())
    return chunks.table()


def shown_types(columns: StreamTypes, rows: list[list[Any]]) -> str:
    """The types ``rows`` show (DDL of the inferred fields), checked against ``columns`` (TypeError on a misfit)."""
    from copy import deepcopy

    from topologies.sinks.typed_outputs import schema_ddl

    seen = deepcopy(columns)
    seen.observe(rows)
    return schema_ddl((f, t) for f, t in seen.pinned.items())


def kept_rows(columns: StreamTypes, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function making a kept stream's typed rows from its :data:`KEPT` chunks' payloads."""
    for batch in batches:
        rows = [values for payload in batch.column(0).to_pylist() for values in unpack_value(payload)]
        if rows:
            yield from columns.table(rows).to_batches()


def outputs_of(rows: pa.Table) -> list[tuple[str, int, str, list[Any]]]:
    """The terminal outputs among ``rows`` (:data:`OUT` rows), in delivery order: (component, task, stream, values)."""
    import pyarrow.compute as pc

    out = rows.filter(pc.equal(rows.column("target"), OUT))
    out = out.take(pc.sort_indices(out, [(c, "ascending") for c in ("o1", "o2", "o3", "o4")]))
    results: list[tuple[str, int, str, list[Any]]] = []
    for row in out.select(["source", "source_task", "stream", "o1", "payload"]).to_pylist():
        if row["o1"] == 0:
            values_table = read_ipc(row["payload"])
            columns = [values_table.column(i).to_pylist() for i in range(values_table.num_columns)]
            source, task, stream = row["source"], row["source_task"], row["stream"]
            results.extend((source, task, stream, list(v)) for v in zip(*columns, strict=True))
        else:
            results.extend((row["source"], row["source_task"], s, list(v)) for s, v in unpack_value(row["payload"]))
    return results


def statuses_of(rows: pa.Table) -> list[bytes]:
    """The payloads of the :data:`STATUS` rows among ``rows``."""
    import pyarrow.compute as pc

    return rows.filter(pc.equal(rows.column("target"), STATUS)).column("payload").to_pylist()
