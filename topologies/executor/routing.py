"""Where a tuple goes: the one routing core of both placements.

Every emitted tuple, one at a time or a spout's Arrow table at once, goes to
the tasks its subscribers' groupings choose, or, when no bolt subscribes to its
stream, becomes one of the topology's outputs. :class:`RoutingTable` answers
both questions from a topology, and is small enough to ship with every
distributed stage. The driver placement's :class:`~topologies.executor.runtime.Router`
and the distributed stages (:mod:`topologies.executor.routed`) both route
through it, so the two placements send every tuple to the same task.

A shuffle grouping takes turns by a counter per ``(component, task, stream,
bolt)`` (:data:`CounterKey`). Who moves the counters differs by placement (one
router for the whole batch; each Spark partition counting on from what the
batch started with), so the counters are passed in, never kept here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bolts import Fields
from topologies.groupings import Grouping
from topologies.topology import Topology

if TYPE_CHECKING:
    import pyarrow as pa

CounterKey = tuple[str, int, str, str]  # (source component, source task, stream, subscribing bolt)


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

    @classmethod
    def of(cls, topology: Topology) -> RoutingTable:
        """The routing table of ``topology``."""
        subscribers = {
            key: tuple((bolt, grouping, topology.bolts[bolt].parallelism) for bolt, grouping in subs)
            for key, subs in topology.subscribers.items()
        }
        position = {sid: 0 for sid in topology.spouts} | {bid: 1 + i for i, bid in enumerate(topology.order)}
        streams = {c: dict(s) for c, s in topology.streams.items()}
        return cls(streams, subscribers, position)

    def fields(self, component: str, stream: str) -> Fields:
        """The fields of ``component``'s ``stream``."""
        return self.streams[component][stream]

    def is_output(self, component: str, stream: str) -> bool:
        """Whether no bolt subscribes to ``component``'s ``stream``: its tuples are the topology's outputs."""
        return not self.subscribers.get((component, stream))

    def row_targets(
        self, counters: MutableMapping[CounterKey, int], component: str, task: int, stream: str,
        values: Sequence[Any],
    ) -> list[tuple[str, int]]:
        """The ``(bolt, task)`` each subscriber's grouping sends one tuple to, subscribers in order.

        Each subscriber's shuffle counter is read from ``counters`` (0 when
        absent) and moved on by one. Empty when nobody subscribes (see
        :meth:`is_output`); a ``global``/``all`` grouping gives one or every task.
        """
        fields = self.streams[component][stream]
        targets: list[tuple[str, int]] = []
        for bolt, grouping, tasks in self.subscribers.get((component, stream), ()):
            key = (component, task, stream, bolt)
            counter = counters.get(key, 0)
            counters[key] = counter + 1
            targets.extend((bolt, target) for target in grouping.targets(values, fields, tasks, counter))
        return targets

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
