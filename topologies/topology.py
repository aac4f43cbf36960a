"""A checked topology: components, the streams they declare, subscriptions, and a topological order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bolts import BaseBolt, BaseStatefulWindowedBolt, BaseWindowedBolt, Fields, JoinBolt, WindowedAggregateBolt
from bolts.aggregate.windowed_join_bolt import JoinAggregator
from bolts.context import TopologyLayout
from bolts.tuples import DEFAULT_STREAM
from topologies.groupings import DirectGrouping, Grouping, Subscription
from topologies.spouts.base import Spout
from windowing.aggregators import can_retract, read_fields


@dataclass(frozen=True)
class SpoutSpec:
    """A spout in the topology."""

    spout: Spout
    parallelism: int


@dataclass(frozen=True)
class BoltSpec:
    """A bolt in the topology and what it subscribes to."""

    bolt: BaseBolt
    parallelism: int
    subscriptions: tuple[Subscription, ...]


@dataclass(frozen=True)
class Topology:
    """What :meth:`TopologyBuilder.create_topology` returns: immutable and already validated.

    ``order`` lists the bolts so that every bolt comes after all its upstream bolts;
    ``streams`` maps each component to its declared streams and their fields;
    ``subscribers`` maps ``(component, stream)`` to the ``(bolt, grouping)`` pairs
    that subscribe to it, in declaration order.
    """

    spouts: Mapping[str, SpoutSpec]
    bolts: Mapping[str, BoltSpec]
    order: tuple[str, ...]
    streams: Mapping[str, Mapping[str, Fields]]
    subscribers: Mapping[tuple[str, str], tuple[tuple[str, Grouping], ...]] = field(default_factory=dict)
    layout: TopologyLayout | None = None  # task ids and subscriptions, as the tasks' contexts show them

    def parallelism(self, component: str) -> int:
        """The number of tasks of ``component``."""
        spec = self.spouts.get(component) or self.bolts[component]
        return spec.parallelism

    def upstream(self, bolt: str) -> tuple[str, ...]:
        """The components ``bolt`` subscribes to, without repeats, in declaration order."""
        return tuple(dict.fromkeys(s.component for s in self.bolts[bolt].subscriptions))

    def terminal_streams(self) -> list[tuple[str, str]]:
        """The ``(bolt, stream)`` pairs no bolt subscribes to: the topology's outputs."""
        return [(b, s) for b in self.order for s in self.streams[b] if (b, s) not in self.subscribers]


def check_subscription(topology_streams: Mapping[str, Mapping[str, Fields]], bolt: str, sub: Subscription) -> Fields:
    """The fields of the subscribed stream; ``ValueError`` naming the bolt for an unknown component, stream or field."""
    who = f"bolt {bolt!r} subscribes to"
    if sub.component not in topology_streams:
        known = ", ".join(sorted(topology_streams))
        msg = f"create_topology: {who} unknown component {sub.component!r}; the components are: {known}"
        raise ValueError(msg)
    streams = topology_streams[sub.component]
    if sub.stream not in streams:
        declared = ", ".join(sorted(streams)) or "(none)"
        msg = (
            f"create_topology: {who} stream {sub.stream!r} of {sub.component!r}, which it does not declare; "
            f"declared streams are: {declared}"
        )
        raise ValueError(msg)
    fields = streams[sub.stream]
    missing = [f for f in sub.grouping.required_fields() if f not in fields]
    if missing:
        msg = (
            f"create_topology: {who} {sub.component}:{sub.stream} with {sub.grouping.name} grouping on "
            f"{', '.join(map(repr, missing))}, which the stream does not declare; its fields are: {', '.join(fields)}"
        )
        raise ValueError(msg)
    return fields


def check_direct(bolt: str, sub: Subscription, direct_streams: Mapping[str, frozenset[str]], is_spout: bool) -> None:
    """A direct stream takes only ``direct_grouping`` subscribers, and ``direct_grouping`` only a direct stream."""
    direct = sub.stream in direct_streams.get(sub.component, frozenset())
    if isinstance(sub.grouping, DirectGrouping) and not direct:
        how = ("a spout's streams are never direct" if is_spout
               else f"declare it with declarer.declare_stream({sub.stream!r}, True, fields)")
        msg = (
            f"direct_grouping: bolt {bolt!r} subscribes to {sub.component}:{sub.stream} with a direct grouping, "
            f"but the stream is not direct; {how}"
        )
        raise ValueError(msg)
    if direct and not isinstance(sub.grouping, DirectGrouping):
        msg = (
            f"create_topology: bolt {bolt!r} subscribes to direct stream {sub.component}:{sub.stream} with "
            f"{sub.grouping.name} grouping; a direct stream's tuples go where emit_direct sends them: use "
            "direct_grouping"
        )
        raise ValueError(msg)


Inputs = list[tuple[Subscription, Fields]]  # a bolt's subscriptions with the fields of each subscribed stream


def check_bolt_inputs(bolt_id: str, bolt: BaseBolt, inputs: Inputs) -> None:
    """Check a bolt's configuration against the streams it subscribes to; ``ValueError`` naming the bolt.

    What a task would otherwise refuse when it is built or sees its first tuple,
    at batch 0 on the cluster: a stateful bolt with no (or two) recovery modes, a
    memory bound without persistence, and every field the bolt reads from its
    input (timestamp, message id, aggregation key and input fields, inherited
    window bounds) that a subscribed stream does not declare.
    """
    if isinstance(bolt, JoinBolt):
        check_join_bolt_streams(bolt_id, bolt, inputs)
    if isinstance(bolt, BaseWindowedBolt):
        cfg = bolt.window_config
        if isinstance(bolt, BaseStatefulWindowedBolt):
            bolt.validate_recovery(bolt_id)
        reads = [("with_timestamp_field", "takes timestamps from field", cfg.timestamp_field),
                 ("with_message_id_field", "reads message ids from field", cfg.message_id_field)]
    elif isinstance(bolt, WindowedAggregateBolt):
        spec = bolt.build_spec(bolt_id)
        reads = [("with_timestamp_field", "takes timestamps from field", spec.timestamp_field)]
        reads += [("WindowedAggregateBolt", "groups by key field", name) for name in spec.key_fields or ()]
        reads += [("WindowedAggregateBolt", f"aggregates with {spec.aggregator!r}, which reads field", name)
                  for name in read_fields(spec.aggregator) or ()]
        if spec.assigner is None:
            reads += [("with_windows", "has no window assigner, so it takes each tuple's window from field", name)
                      for name in ("window_start", "window_end")]
        if isinstance(spec.aggregator, JoinAggregator):
            check_join_streams(bolt_id, spec.aggregator, inputs)
    else:
        return
    for method, what, name in reads:
        for sub, fields in inputs:
            if name is not None and name not in fields:
                msg = (
                    f"{method}: bolt {bolt_id!r} {what} {name!r}, but {sub.component}:{sub.stream} does not "
                    f"declare it; its fields are: {', '.join(fields) or '(none)'}"
                )
                raise ValueError(msg)


def check_retractions(bolt_id: str, bolt: BaseBolt, inputs: Inputs, bolts: Mapping[str, BaseBolt]) -> None:
    """An aggregation reading a retracting aggregation's panes must be able to retract; ``ValueError`` naming both.

    A ``WindowedAggregateBolt`` in ``ACCUMULATING_AND_RETRACTING`` mode emits
    retractions (``is_retraction`` true) on its pane stream; a
    ``WindowedAggregateBolt`` subscribed to that stream subtracts them with its
    aggregator's ``retract``, which ``min``, ``max``, ``top_n``, ``top_k``,
    ``max_by`` and ``min_by`` do not have.
    """
    if not isinstance(bolt, WindowedAggregateBolt) or can_retract(bolt.spec.aggregator):
        return
    for sub, _ in inputs:
        upstream = bolts.get(sub.component)
        if (isinstance(upstream, WindowedAggregateBolt) and upstream.spec.mode.retracts
                and sub.stream == DEFAULT_STREAM):
            msg = (
                f"create_topology: bolt {bolt_id!r} aggregates the panes of {sub.component!r}, which emits "
                f"retractions (AccumulationMode.ACCUMULATING_AND_RETRACTING), but its aggregator "
                f"{bolt.spec.aggregator!r} cannot retract (it has no retract(acc, tuple)); use one that can (count, "
                "sum, mean, collect, distinct_count) or another accumulation mode upstream"
            )
            raise ValueError(msg)


def check_join_bolt_streams(bolt_id: str, bolt: JoinBolt, inputs: Inputs) -> None:
    """A ``JoinBolt`` subscribes to every stream it joins, and to nothing else (by source or by stream id)."""
    by_source = bolt.selector is JoinBolt.Selector.SOURCE
    names = [sub.component if by_source else sub.stream for sub, _ in inputs]
    what = "source component" if by_source else "stream id"
    missing = [s for s in bolt.streams if s not in names]
    other = [f"{sub.component}:{sub.stream}" for (sub, _), name in zip(inputs, names, strict=True)
             if name not in bolt.streams]
    if missing or other:
        problem = (f"does not subscribe to {', '.join(map(repr, missing))}" if missing
                   else f"subscribes to {', '.join(other)}, whose {what} is not one it joins")
        msg = (
            f"JoinBolt: bolt {bolt_id!r} joins {', '.join(map(repr, bolt.streams))} (by {what}) but {problem}; "
            f"subscribe to exactly the joined streams"
        )
        raise ValueError(msg)


def check_join_streams(bolt_id: str, join: JoinAggregator, inputs: Inputs) -> None:
    """A join takes exactly its two streams: both subscribed, and nothing else."""
    sides = (join.left_stream, join.right_stream)
    subscribed = [sub.stream for sub, _ in inputs]
    missing = [s for s in sides if s not in subscribed]
    if missing:
        msg = (
            f"WindowedJoinBolt: bolt {bolt_id!r} joins streams {', '.join(map(repr, sides))}, but does not subscribe "
            f"to {', '.join(map(repr, missing))}; it subscribes to: {', '.join(map(repr, subscribed))}"
        )
        raise ValueError(msg)
    other = [f"{sub.component}:{sub.stream}" for sub, _ in inputs if sub.stream not in sides]
    if other:
        msg = (
            f"WindowedJoinBolt: bolt {bolt_id!r} subscribes to {', '.join(other)}, which is neither of the joined "
            f"streams {', '.join(map(repr, sides))}; subscribe only to those two"
        )
        raise ValueError(msg)


def topological_order(edges: Mapping[str, tuple[str, ...]], bolts: list[str]) -> tuple[str, ...]:
    """The bolts ordered so upstream bolts come first (declaration order breaks ties); ``ValueError`` on a cycle."""
    remaining = {b: {u for u in edges[b] if u in edges} for b in bolts}
    order: list[str] = []
    while remaining:
        ready = [b for b in bolts if b in remaining and not remaining[b]]
        if not ready:
            cycle = find_cycle({b: remaining[b] for b in remaining})
            msg = (
                f"create_topology: the bolts form a cycle: {' -> '.join(cycle)}; "
                "a topology must be acyclic (Spark runs it once per batch, upstream first)"
            )
            raise ValueError(msg)
        for b in ready:
            order.append(b)
            del remaining[b]
        for ups in remaining.values():
            ups.difference_update(ready)
    return tuple(order)


def find_cycle(upstream: Mapping[str, set[str]]) -> list[str]:
    """One cycle in a graph where every node has an upstream node, as a path that ends where it starts."""
    node = min(upstream)
    seen: list[str] = []
    while node not in seen:
        seen.append(node)
        node = min(upstream[node])
    path = [*seen[seen.index(node):], node]
    return list(reversed(path))
