"""Where a tuple goes: the one routing core of every placement.

Every emitted tuple, one at a time or a spout's Arrow table at once, goes to
the tasks its subscribers' groupings choose, or, when no bolt subscribes to its
stream, becomes one of the topology's outputs. :class:`RoutingTable` answers
both questions from a topology, and is small enough to ship with every
distributed stage. :func:`route_spout_tables` routes a Spark partition's spout
rows and :func:`route_emissions` a task's emissions, where the task ran, into
a :class:`RoutedSink`: the driver placement's appends to the next tasks'
inputs in memory, the distributed placement's writes chunks of a frame. So
every placement sends every tuple to the same task.

A shuffle grouping takes turns by a counter per ``(component, task, stream,
bolt)`` (:data:`CounterKey`). Every batch starts from the counters the batch
loop gives it (those the batch started with the first time it ran, on a
replay); a Spark partition ``p`` of a spout's rows counts on from that counter
plus ``p``, and a task's emissions from the counters of its own keys. So the
counters are passed in, never kept here, and a partition or a task can be
routed on its own, in any process, with the same result.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from bolts import Fields
from bolts.codecs.value_codec import register_class
from bolts.context import TopologyLayout
from topologies.engine.wire import is_table
from topologies.groupings import (
    AllGrouping,
    DirectGrouping,
    GlobalGrouping,
    Grouping,
    LocalOrShuffleGrouping,
    NoneGrouping,
    ShuffleGrouping,
)
from topologies.topology import Topology
from windowing.arrow_values import table_rows

if TYPE_CHECKING:
    import pyarrow as pa

CounterKey = tuple[str, int, str, str]  # (source component, source task, stream, subscribing bolt)
SPOUT_TASK = 0  # a spout's rows are routed as its one task's, whichever Spark partition read them
Order = tuple[int, int, int, int]  # where a piece of a batch comes in delivery order (see route_spout_tables)
_VALUE_BLIND = (ShuffleGrouping, LocalOrShuffleGrouping, NoneGrouping, AllGrouping, GlobalGrouping)  # no value read


@dataclass(frozen=True)
class RoutingTable:
    """What routing needs of a topology.

    ``streams``: each component's streams and their fields; ``subscribers``:
    per ``(component, stream)``, each subscribing bolt, its grouping and its
    task count, in subscription order; ``position``: each component's place in
    delivery order (spouts 0, bolts ``1 + topological position``).
    """

    streams: Mapping[str, Mapping[str, Fields]]
    subscribers: Mapping[tuple[str, str], tuple[tuple[str, Grouping, int], ...]]
    position: Mapping[str, int]
    layout: TopologyLayout | None = None

    @classmethod
    def of(cls, topology: Topology) -> RoutingTable:
        """The routing table of ``topology``."""
        subscribers = {
            key: tuple((bolt, grouping, topology.bolts[bolt].parallelism) for bolt, grouping in subs)
            for key, subs in topology.subscribers.items()
        }
        position = {sid: 0 for sid in topology.spouts} | {bid: 1 + i for i, bid in enumerate(topology.order)}
        streams = {c: dict(s) for c, s in topology.streams.items()}
        return cls(streams, subscribers, position, topology.layout)

    def fields(self, component: str, stream: str) -> Fields:
        """The fields of ``component``'s ``stream``."""
        return self.streams[component][stream]

    def is_output(self, component: str, stream: str) -> bool:
        """Whether no bolt subscribes to ``component``'s ``stream``: its tuples are the topology's outputs."""
        return not self.subscribers.get((component, stream))

    def row_targets(
        self, counters: MutableMapping[CounterKey, int], component: str, task: int, stream: str,
        values: Sequence[Any], direct: int | None = None,
    ) -> list[tuple[str, int]]:
        """The ``(bolt, task)`` each subscriber's grouping sends one tuple to, subscribers in order.

        Each subscriber's shuffle counter is read from ``counters`` (0 when
        absent) and moved on by one. Empty when nobody subscribes (see
        :meth:`is_output`); a ``global``/``all`` grouping gives one or every task.
        A direct emission (``direct``, the target's task id) goes to that task
        of the direct-grouping subscriber that has it.
        """
        fields = self.streams[component][stream]
        targets: list[tuple[str, int]] = []
        for bolt, grouping, tasks in self.subscribers.get((component, stream), ()):
            kind = type(grouping)
            if kind is DirectGrouping:
                if direct is not None and self.layout is not None:
                    index = direct - self.layout.first_task[bolt]
                    if 0 <= index < tasks:
                        targets.append((bolt, index))
            elif kind.route is Grouping.route:  # a turn and a choice (all but direct, partial key, custom): inlined
                key = (component, task, stream, bolt)
                counter = counters.get(key, 0)
                counters[key] = counter + 1
                for target in grouping.targets(values, fields, tasks, counter):
                    targets.append((bolt, target))
            else:
                for target in grouping.route(values, fields, tasks, counters, (component, task, stream, bolt)):
                    targets.append((bolt, target))
        return targets

    def fixed_targets(self, component: str, stream: str) -> list[tuple[str, int, bool]] | None:
        """``(bolt, task, counts)`` of every subscriber when each sends every tuple of the stream to one task.

        That is a global grouping, or a grouping that ignores the values (shuffle,
        local-or-shuffle, none, all) into a bolt of one task; ``counts``: whether
        the subscriber's counter moves by one a tuple, as :meth:`row_targets`
        moves it. None when some subscriber chooses by the values or the
        counter, or nobody subscribes.
        """
        subscribers = self.subscribers.get((component, stream), ())
        fixed = []
        for bolt, grouping, tasks in subscribers:
            kind = type(grouping)
            if kind is not GlobalGrouping and (tasks != 1 or kind not in _VALUE_BLIND):
                return None
            fixed.append((bolt, 0, kind.route is Grouping.route))
        return fixed or None

    def task_ids(self, targets: Sequence[tuple[str, int]]) -> list[int]:
        """Storm's task ids of ``(bolt, task index)`` targets (see :class:`bolts.context.TopologyLayout`)."""
        layout = self.layout
        return [] if layout is None else [layout.first_task[bolt] + index for bolt, index in targets]

    def check_direct(self, component: str, stream: str, task_id: int) -> None:
        """``ValueError`` naming the bolt unless ``task_id`` is a task of a direct subscriber of the stream."""
        allowed = {
            bolt: self.layout.task_ids(bolt) if self.layout is not None else []
            for bolt, grouping, _ in self.subscribers.get((component, stream), ())
            if isinstance(grouping, DirectGrouping)
        }
        if not self.subscribers.get((component, stream)) or any(task_id in ids for ids in allowed.values()):
            return  # nobody subscribes: the tuple is one of the topology's outputs
        owner = None if self.layout is None else self.layout.component_of(task_id)
        where = f"a task of {owner!r}" if owner else "no task of this topology"
        msg = (
            f"emit_direct: bolt {component!r} sent a tuple on {stream!r} to task {task_id}, which is {where}; "
            f"the direct subscribers' tasks are: {allowed or '(none: subscribe with direct_grouping)'}"
        )
        raise ValueError(msg)

    def table_shares(
        self, component: str, task: int, stream: str, table: pa.Table, first_counter: Callable[[CounterKey], int],
    ) -> Iterator[tuple[str, int, pa.Table]]:
        """Each subscriber task's share of ``table`` (columns named as the stream's fields): ``(bolt, task, rows)``.

        Every task of every subscriber gets a share, possibly empty, in task
        order; a shuffle's first row goes where :meth:`row_targets` would send a
        tuple at counter ``first_counter(key)``, and its rows take turns from
        there. Nothing when nobody subscribes.
        """
        fields = self.streams[component][stream]
        for bolt, grouping, tasks in self.subscribers.get((component, stream), ()):
            counter = first_counter((component, task, stream, bolt))
            for target, share in enumerate(grouping.split(table, fields, tasks, counter)):
                yield bolt, target, share


    def table_routes(
        self, counters: MutableMapping[CounterKey, int], component: str, task: int, stream: str, table: pa.Table,
    ) -> list[tuple[str, int, pa.Table]]:
        """Where a table a bolt's task emitted goes: ``(bolt, task, rows)``, as :meth:`row_targets` of each row.

        Every non-empty share, subscribers in order, each task's rows in the
        table's order; the counters move as :meth:`row_targets` would move them
        row by row. A grouping that takes turns (shuffle, fields, global, all,
        none) cuts the table on its columns; one that keeps its own loads or
        asks the user (partial key, custom) routes each row. Empty when nobody
        subscribes.
        """
        import pyarrow as pa

        fields = self.streams[component][stream]
        routes: list[tuple[str, int, pa.Table]] = []
        if not table.num_rows:
            return routes  # no row, no turn taken
        rows: list[list[Any]] | None = None
        for bolt, grouping, tasks in self.subscribers.get((component, stream), ()):
            kind = type(grouping)
            key = (component, task, stream, bolt)
            if kind is DirectGrouping:
                continue  # a table is never emitted direct, so no direct subscriber gets its rows
            if kind.route is Grouping.route:
                counter = counters.get(key, 0)
                counters[key] = counter + table.num_rows
                shares = enumerate(grouping.split(table, fields, tasks, counter))
            else:
                if rows is None:
                    rows = table_rows(table)
                per_task: list[list[int]] = [[] for _ in range(tasks)]
                for i, values in enumerate(rows):
                    for target in grouping.route(values, fields, tasks, counters, key):
                        per_task[target].append(i)
                shares = ((t, table.take(pa.array(at, pa.int64()))) for t, at in enumerate(per_task) if at)
            routes.extend((bolt, target, share) for target, share in shares if share.num_rows)
        return routes


class RoutedSink(Protocol):
    """Where routed tuples go: the next tasks' inputs, or the topology's outputs (in this process or a frame)."""

    def rows(self, bolt: str, task: int, source: str, source_task: int, stream: str, values: list[Any]) -> None:
        """One tuple emitted by ``source``'s task ``source_task`` on ``stream``, for ``bolt``'s task ``task``."""
        ...

    def table(self, bolt: str, task: int, source: str, stream: str, rows: pa.Table, order: Order) -> None:
        """A spout's rows on ``stream`` (columns named as its fields) for ``bolt``'s task ``task``."""
        ...

    def output_table(self, source: str, stream: str, rows: pa.Table, order: Order) -> None:
        """A spout's rows on a stream nobody subscribes to."""
        ...

    def outputs_many(self, source: str, source_task: int, stream: str, rows: list[Sequence[Any]], kept: bool) -> None:
        """Tuples ``source``'s task ``source_task`` emitted in a row on ``stream`` nobody subscribes to: outputs.

        ``kept``: a sink keeps the stream (on the executors, in distributed mode).
        """
        ...

    def rows_many(self, bolt: str, task: int, source: str, source_task: int, stream: str,
                  rows: list[Sequence[Any]]) -> None:
        """Tuples ``source``'s task ``source_task`` emitted in a row on ``stream``, all for ``bolt``'s task ``task``."""
        ...

    def rows_table(self, bolt: str, task: int, source: str, source_task: int, stream: str, rows: pa.Table) -> None:
        """Tuples ``source``'s task ``source_task`` emitted as a table on ``stream``, for ``bolt``'s task ``task``."""
        ...

    def outputs_table(self, source: str, source_task: int, stream: str, rows: pa.Table, kept: bool) -> None:
        """A table of tuples ``source``'s task ``source_task`` emitted on ``stream`` nobody subscribes to: outputs."""
        ...


def route_emissions(
    routing: RoutingTable, component: str, task: int, emissions: Sequence[Any], starts: Mapping[CounterKey, int],
    sink: RoutedSink, kept: frozenset[str] | Mapping[str, Any] = frozenset(), dropped: frozenset[str] = frozenset(),
) -> dict[CounterKey, int]:
    """Route a task's emissions of one batch, in order, into ``sink``; the shuffle counters they moved, at their end.

    Each emission is ``(stream, values)``, ``(stream, values, task_id)`` (a
    direct one) or ``(stream, table)`` (a table of tuples, routed on its
    columns, :meth:`RoutingTable.table_routes`). A shuffle counts on from the
    counter in ``starts``. A stream in
    ``kept`` (a sink keeps it on the executors) and any stream nobody
    subscribes to are outputs; an output stream in ``dropped`` (no sink reads
    it) goes nowhere.
    """
    moved: dict[CounterKey, int] = {}  # the counters this task moved; the rest stay as the batch started them
    counters = ChainMap(moved, dict(starts))
    at, count = 0, len(emissions)
    while at < count:
        stream, values, *direct = emissions[at]
        at += 1
        if stream in dropped:
            continue
        if type(values) is not list:  # a table (is_table, inlined: this loop runs once per emission)
            if stream in kept or routing.is_output(component, stream):
                sink.outputs_table(component, task, stream, values, stream in kept)
            else:
                for bolt, target, share in routing.table_routes(counters, component, task, stream, values):
                    sink.rows_table(bolt, target, component, task, stream, share)
            continue
        if stream in kept or routing.is_output(component, stream):
            # A run of outputs on this stream (a direct emission's target plays no part in an output) at once.
            end = at
            while end < count and emissions[end][0] == stream and type(emissions[end][1]) is list:
                end += 1
            sink.outputs_many(component, task, stream, [values, *(e[1] for e in emissions[at:end])], stream in kept)
            at = end
        elif not direct and (fixed := routing.fixed_targets(component, stream)) is not None:
            # A run of tuples on this stream all go to the same tasks: routed at once, counters moved as one by one.
            end = at
            while (end < count and len(emissions[end]) == 2 and emissions[end][0] == stream
                   and type(emissions[end][1]) is list):
                end += 1
            run = [values, *(emission[1] for emission in emissions[at:end])]
            at = end
            for bolt, target, counts in fixed:
                if counts:
                    key = (component, task, stream, bolt)
                    counters[key] = counters.get(key, 0) + len(run)
                sink.rows_many(bolt, target, component, task, stream, run)
        else:
            for bolt, target in routing.row_targets(counters, component, task, stream, values, *direct):
                sink.rows(bolt, target, component, task, stream, values)
    return moved


def route_spout_tables(
    routing: RoutingTable, partition: int, spouts: Mapping[str, Mapping[str, pa.Table]], positions: Mapping[str, int],
    starts: Mapping[CounterKey, int], sink: RoutedSink,
) -> list[tuple[str, str, int]]:
    """Route the spout rows Spark partition ``partition`` read into ``sink``; ``(spout, stream, rows)`` of each.

    ``spouts``: each spout's rows by stream (tables, columns named as the
    stream's fields); ``positions``: each spout's number. A shuffle's first
    row of the partition goes where the counter the batch started with plus
    ``partition`` sends it. Each piece has the order ``(0, partition, spout,
    stream)``: spout rows come first in delivery order, by partition, spout and
    stream. The batch loop moves the counters on by the rows counted here.
    """
    counts = []
    for sid, streams in spouts.items():
        for stream_index, (stream, rows) in enumerate(streams.items()):
            counts.append((sid, stream, rows.num_rows))
            order = (0, partition, positions[sid], stream_index)
            if routing.is_output(sid, stream):
                sink.output_table(sid, stream, rows, order)
                continue
            shares = routing.table_shares(sid, SPOUT_TASK, stream, rows, lambda key: starts.get(key, 0) + partition)
            for bolt, task, share in shares:
                if share.num_rows:
                    sink.table(bolt, task, sid, stream, share, order)
    return counts


def moved_by_spouts(routing: RoutingTable, counts: Sequence[tuple[str, str, int]],
                    end: MutableMapping[CounterKey, int]) -> int:
    """Move ``end``'s counters of every subscriber on by the spout rows ``counts`` routed; the rows in all."""
    rows = 0
    for sid, stream, count in counts:
        rows += count
        for bolt, _, _ in routing.subscribers.get((sid, stream), ()):
            key = (sid, SPOUT_TASK, stream, bolt)
            end[key] = end.get(key, 0) + count
    return rows


class TaskRoutes:
    """One task's view of routing, for its collector: where each emission goes, in Storm's task ids.

    :meth:`begin` gives it the counters the task's batch starts with. Routing
    an emission costs as much as the placement's own routing of it, and most
    bolts never read what ``emit`` returns, so :meth:`targets` only records
    the emission and returns a :class:`TaskIds` that, when first read, routes
    the batch's emissions up to its own from those counters, as the placement
    does. A :class:`TaskIds` kept past its batch still reads that batch's ids.
    """

    def __init__(self, routing: RoutingTable, component: str, task: int) -> None:
        self.routing = routing
        self.component = component
        self.task = task
        self._batch = _BatchEmissions(self, {})

    def begin(self, counters: Mapping[CounterKey, int]) -> None:
        """The routing counters as the task's next batch starts (copied: the placement moves its own)."""
        self._batch = _BatchEmissions(self, dict(counters))

    def targets(self, stream: str, values: Sequence[Any]) -> TaskIds | list[int]:
        """The task ids an emission on ``stream`` goes to, worked out when first read (none on an output stream)."""
        if self.routing.is_output(self.component, stream):  # no task, and no counter moves: nothing to route later
            return []
        pending = self._batch.pending
        pending.append((stream, values))
        return TaskIds(self._batch, len(pending) - 1)

    def check_direct(self, stream: str, task_id: int) -> None:
        """See :meth:`RoutingTable.check_direct`."""
        self.routing.check_direct(self.component, stream, task_id)

    def note_table(self, stream: str, table: pa.Table) -> None:
        """A table emitted on ``stream``: later emissions' ids count its rows' turns (none on an output stream)."""
        if not self.routing.is_output(self.component, stream):
            self._batch.pending.append((stream, table))


class _BatchEmissions:
    """One batch's emissions of a task, routed in order as far as a :class:`TaskIds` read asks."""

    def __init__(self, routes: TaskRoutes, start: dict[CounterKey, int]) -> None:
        self.routes = routes
        self.counters = start
        self.pending: list[tuple[str, Any] | None] = []  # (stream, values or a table)
        self.done: list[list[int]] = []

    def ids_of(self, index: int) -> list[int]:
        """The task ids of the ``index``-th emission."""
        routes, routing = self.routes, self.routes.routing
        while len(self.done) <= index:
            at = len(self.done)
            stream, values = self.pending[at]  # type: ignore[misc]
            self.pending[at] = None
            if is_table(values):  # a table's rows only move the turns: emit_table returns no ids
                routing.table_routes(self.counters, routes.component, routes.task, stream, values)  # type: ignore[arg-type]
                self.done.append([])
                continue
            found = routing.row_targets(self.counters, routes.component, routes.task, stream, values)
            self.done.append(routing.task_ids(found))
        return self.done[index]


class TaskIds(Sequence[int]):
    """The task ids one ``emit`` went to, as a read-only list worked out on first use (see :class:`TaskRoutes`)."""

    __slots__ = ("_batch", "_ids", "_index")

    def __init__(self, batch: _BatchEmissions, index: int) -> None:
        self._batch: _BatchEmissions | None = batch
        self._index = index
        self._ids: list[int] = []

    def resolve(self) -> list[int]:
        """The ids, as a list."""
        if self._batch is not None:
            self._ids, self._batch = self._batch.ids_of(self._index), None
        return self._ids

    def __getitem__(self, i: Any) -> Any:
        return self.resolve()[i]

    def __len__(self) -> int:
        return len(self.resolve())

    def __iter__(self) -> Iterator[int]:
        return iter(self.resolve())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TaskIds):
            return self.resolve() == other.resolve()
        return self.resolve() == other if isinstance(other, list) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a list, as Storm's List<Integer>

    def __repr__(self) -> str:
        return repr(self.resolve())

    def __reduce__(self) -> tuple[Any, ...]:
        return list, (self.resolve(),)  # pickled as the plain list


register_class(TaskIds, list, list)  # sent or stored, the ids are a plain list (read on the other side as one)
