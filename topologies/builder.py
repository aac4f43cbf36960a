"""``TopologyBuilder``: spouts and bolts, wired by groupings, checked when the topology is created."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from bolts import BaseBolt, BaseWindowedBolt, Fields, WindowedAggregateBolt
from bolts.context import TopologyLayout
from bolts.pane_time import with_pane_time
from bolts.storm.lambda_bolts import lambda_bolt
from bolts.storm.tick import TICK_FREQ_KEY, tick_interval_ms
from bolts.tuples import DEFAULT_STREAM
from topologies.groupings import (
    AllGrouping,
    CustomGrouping,
    CustomStreamGrouping,
    DirectGrouping,
    FieldsGrouping,
    GlobalGrouping,
    Grouping,
    LocalOrShuffleGrouping,
    NoneGrouping,
    PartialKeyGrouping,
    ShuffleGrouping,
    Subscription,
)
from topologies.spouts.base import Spout
from topologies.spouts.lambda_spout import LambdaSpout
from topologies.topology import (
    BoltSpec,
    SpoutSpec,
    Topology,
    check_bolt_inputs,
    check_direct,
    check_retractions,
    check_subscription,
    topological_order,
)

RESERVED_PREFIX = "__"


class BoltDeclarer:
    """Returned by :meth:`TopologyBuilder.set_bolt`; each grouping method subscribes the bolt and returns it.

    The component and stream are checked by ``create_topology`` (the upstream may
    be declared later, as in Storm).
    """

    def __init__(self, bolt_id: str) -> None:
        self.bolt_id = bolt_id
        self.subscriptions: list[Subscription] = []

    def _add(self, method: str, component: str, stream: str, grouping: Grouping) -> BoltDeclarer:
        for name, value in (("component", component), ("stream_id", stream)):
            if not isinstance(value, str) or not value:
                msg = f"{method}: `{name}` must be a non-empty str; got {value!r} instead"
                raise TypeError(msg)
        if any(s.component == component and s.stream == stream for s in self.subscriptions):
            msg = f"{method}: bolt {self.bolt_id!r} already subscribes to {component}:{stream}"
            raise ValueError(msg)
        self.subscriptions.append(Subscription(component, stream, grouping))
        return self

    def shuffle_grouping(self, component: str, stream_id: str = DEFAULT_STREAM) -> BoltDeclarer:
        """Spread the tuples of ``component``'s stream evenly (round-robin) over the bolt's tasks."""
        return self._add("shuffle_grouping", component, stream_id, ShuffleGrouping())

    def fields_grouping(self, component: str, *args: Any, stream_id: str | None = None) -> BoltDeclarer:
        """Send tuples with equal values of ``fields`` to the same task: ``(component, [stream_id,] fields)``."""
        stream_id, grouped = _stream_and_fields("fields_grouping", args, stream_id)
        return self._add("fields_grouping", component, stream_id, FieldsGrouping(grouped))

    def partial_key_grouping(self, component: str, *args: Any, stream_id: str | None = None) -> BoltDeclarer:
        """Storm's two-choices split: each key to the less loaded of two tasks; ``(component, [stream_id,] fields)``."""
        stream_id, grouped = _stream_and_fields("partial_key_grouping", args, stream_id)
        return self._add("partial_key_grouping", component, stream_id, PartialKeyGrouping(grouped))

    def local_or_shuffle_grouping(self, component: str, stream_id: str = DEFAULT_STREAM) -> BoltDeclarer:
        """Storm's ``localOrShuffleGrouping``: a shuffle here (no task is bound to a worker process)."""
        return self._add("local_or_shuffle_grouping", component, stream_id, LocalOrShuffleGrouping())

    def none_grouping(self, component: str, stream_id: str = DEFAULT_STREAM) -> BoltDeclarer:
        """Storm's ``noneGrouping``: the bolt does not care where tuples go; a shuffle, as in Storm."""
        return self._add("none_grouping", component, stream_id, NoneGrouping())

    def direct_grouping(self, component: str, stream_id: str = DEFAULT_STREAM) -> BoltDeclarer:
        """Take the tuples ``component`` sends to this bolt's tasks with ``emit_direct`` on a direct stream."""
        return self._add("direct_grouping", component, stream_id, DirectGrouping())

    def custom_grouping(
        self, component: str, *args: Any
    ) -> BoltDeclarer:
        """Route with a :class:`CustomStreamGrouping`: ``(component, [stream_id,] grouping)``."""
        if len(args) == 2:
            stream_id, grouping = args
        elif len(args) == 1:
            stream_id, grouping = DEFAULT_STREAM, args[0]
        else:
            msg = f"custom_grouping: expects (component, [stream_id,] grouping); got {len(args) + 1} arguments"
            raise TypeError(msg)
        if not isinstance(grouping, CustomStreamGrouping):
            msg = (
                f"custom_grouping: `grouping` of bolt {self.bolt_id!r} must be a CustomStreamGrouping "
                f"(with prepare and choose_tasks); got {grouping!r:.200} instead"
            )
            raise TypeError(msg)
        # Its own copy, as Storm gives each subscription its own grouper: prepare() is per subscription.
        return self._add("custom_grouping", component, stream_id, CustomGrouping(_copied(grouping, self.bolt_id),
                                                                                 self.bolt_id))

    def global_grouping(self, component: str, stream_id: str = DEFAULT_STREAM) -> BoltDeclarer:
        """Send every tuple to the bolt's task with the lowest index (task 0)."""
        return self._add("global_grouping", component, stream_id, GlobalGrouping())

    def all_grouping(self, component: str, stream_id: str = DEFAULT_STREAM) -> BoltDeclarer:
        """Send a copy of every tuple to every task of the bolt."""
        return self._add("all_grouping", component, stream_id, AllGrouping())


class TopologyBuilder:
    """Storm's ``TopologyBuilder``: ``set_spout``, ``set_bolt`` (then groupings) and ``create_topology``."""

    def __init__(self) -> None:
        self._spouts: dict[str, SpoutSpec] = {}
        self._bolts: dict[str, tuple[BaseBolt, int, BoltDeclarer]] = {}

    def set_spout(self, id: str, spout: Spout | Callable[[], Any], parallelism: int = 1) -> None:
        """Add spout ``id``; its tuples carry the fields the spout declares.

        As in Storm 2, ``spout`` may be a supplier, a function taking no
        arguments: each call's value is one tuple in the field ``lambda``
        (a :class:`~topologies.spouts.lambda_spout.LambdaSpout` with its
        defaults; build one yourself for a rate, a count or a value type).
        ``TypeError`` naming ``set_spout`` for anything else, or for a function
        that takes arguments or cannot be pickled.
        """
        self._check_id("set_spout", id)
        if callable(spout) and not isinstance(spout, Spout):
            spout = LambdaSpout(spout, method="set_spout")
        if not isinstance(spout, Spout):
            msg = (f"set_spout: `spout` must be a Spout (FileSpout, RateSpout, KafkaSpout, DataFrameSpout, "
                   f"LambdaSpout) or a function taking no arguments (Storm's lambda spout); got {spout!r:.120} "
                   f"({type(spout).__name__}) instead")
            raise TypeError(msg)
        self._spouts[id] = SpoutSpec(spout, _parallelism("set_spout", parallelism))

    def set_bolt(
        self, id: str, bolt: BaseBolt | Callable[..., Any], parallelism: int | str = 1, *fields: str
    ) -> BoltDeclarer:
        """Add bolt ``id`` with ``parallelism`` tasks; subscribe it with the returned declarer's groupings.

        As in Storm 2, ``bolt`` may be a function: ``fn(tuple, collector)`` (a
        basic bolt emitting ``fields`` on the default stream) or ``fn(tuple)``
        (a bolt with no output). Both of Storm's overloads work:
        ``set_bolt(id, fn, parallelism, "field", ...)`` and, with the
        parallelism left out (one task), ``set_bolt(id, fn, "field", ...)``: a
        str where the parallelism goes is the first output field.
        """
        self._check_id("set_bolt", id)
        function = callable(bolt) and not isinstance(bolt, BaseBolt | type)
        if function and isinstance(parallelism, str):  # Storm's setBolt(id, biConsumer, String... fields)
            parallelism, fields = 1, (parallelism, *fields)
        if function:
            bolt = lambda_bolt("set_bolt", id, bolt, fields)
        elif fields:
            msg = f"set_bolt: output fields {list(fields)} are for a function bolt; bolt {id!r} declares its own"
            raise TypeError(msg)
        if not isinstance(bolt, BaseBolt):
            msg = f"set_bolt: `bolt` must be a BaseBolt (or a windowed bolt); got {bolt!r} instead"
            raise TypeError(msg)
        declarer = BoltDeclarer(id)
        self._bolts[id] = (bolt, _parallelism("set_bolt", parallelism), declarer)
        return declarer

    def _check_id(self, method: str, id: str) -> None:
        if not isinstance(id, str) or not id:
            msg = f"{method}: `id` must be a non-empty str; got {id!r} instead"
            raise TypeError(msg)
        if id.startswith(RESERVED_PREFIX):
            msg = f"{method}: ids starting with {RESERVED_PREFIX!r} are reserved for squall; got {id!r}"
            raise ValueError(msg)
        if id in self._spouts or id in self._bolts:
            kind = "spout" if id in self._spouts else "bolt"
            msg = f"{method}: id {id!r} is already used by a {kind}; every component needs its own id"
            raise ValueError(msg)

    def create_topology(self) -> Topology:
        """Check the wiring and return the :class:`Topology`; ``ValueError`` naming the first problem.

        Refused: no spout; a bolt with no subscription; a subscription to an unknown
        component or to a stream it does not declare; a fields grouping on fields
        the stream does not declare; an invalid window configuration; a stateful
        bolt with no recovery mode, two, or a memory bound without persistence; a
        field the bolt reads (timestamp, message id, aggregation key or input
        field, inherited window bounds) that a subscribed stream lacks; a join not
        subscribed to exactly its two streams; a cycle; a bolt that needs event
        time (an aggregation without ``with_windows`` or under
        ``with_spark_semantics()``) with no timestamp field or extractor and an
        input that is not a pane stream. A bolt that cannot be deep-copied (each
        task runs its own copy) raises ``TypeError``.

        A windowed or aggregate bolt with no timestamp field or extractor whose
        inputs are all pane streams (``window_start``, ``window_end``,
        ``timestamp``) is held in the topology as a copy taking each pane's
        ``timestamp`` as its event time (:mod:`bolts.pane_time`).
        """
        if not self._spouts:
            msg = "create_topology: the topology has no spout; add one with set_spout(id, spout)"
            raise ValueError(msg)
        streams = {sid: dict(spec.spout.output_streams()) for sid, spec in self._spouts.items()}
        direct: dict[str, frozenset[str]] = {}
        for bid, (bolt, _, _) in self._bolts.items():
            _check_copyable(bid, bolt)
            streams[bid] = bolt.output_streams(bid)
            direct[bid] = bolt.direct_streams(bid)
            _check_ticks(bid, bolt)
        bolts: dict[str, BoltSpec] = {}
        configured = {b: spec[0] for b, spec in self._bolts.items()}
        subscribers: dict[tuple[str, str], list[tuple[str, Grouping]]] = {}
        for bid, (bolt, parallelism, declarer) in self._bolts.items():
            if not declarer.subscriptions:
                msg = (
                    f"create_topology: bolt {bid!r} subscribes to nothing; call a grouping on what set_bolt "
                    "returns, e.g. set_bolt(...).shuffle_grouping('spout')"
                )
                raise ValueError(msg)
            inputs = [(sub, check_subscription(streams, bid, sub)) for sub in declarer.subscriptions]
            for sub in declarer.subscriptions:
                check_direct(bid, sub, direct, sub.component in self._spouts)
            # Fed only panes, a windowed bolt with no time of its own takes theirs: the topology holds the bolt so
            # resolved, and every placement runs it.
            bolt = with_pane_time(bid, bolt, {f"{sub.component}:{sub.stream}": fields for sub, fields in inputs})
            if isinstance(bolt, BaseWindowedBolt):
                bolt.window_config.validate(bid)
            check_bolt_inputs(bid, bolt, inputs)
            check_retractions(bid, bolt, inputs, configured)
            for sub in declarer.subscriptions:
                subscribers.setdefault((sub.component, sub.stream), []).append((bid, sub.grouping))
            bolts[bid] = BoltSpec(bolt, parallelism, tuple(declarer.subscriptions))
        edges = {bid: tuple(s.component for s in spec.subscriptions) for bid, spec in bolts.items()}
        order = topological_order(edges, list(bolts))
        parallelism = {sid: spec.parallelism for sid, spec in self._spouts.items()}
        parallelism |= {bid: spec.parallelism for bid, spec in bolts.items()}
        layout = TopologyLayout(
            parallelism, streams, {k: tuple((b, g.name) for b, g in v) for k, v in subscribers.items()}
        )
        for (component, stream), subs in subscribers.items():
            for _, grouping in subs:
                if isinstance(grouping, CustomGrouping):
                    grouping.bind(layout, component, stream)
        return Topology(
            spouts=dict(self._spouts), bolts=bolts, order=order, streams=streams,
            subscribers={k: tuple(v) for k, v in subscribers.items()}, layout=layout,
        )


def _check_ticks(bolt_id: str, bolt: BaseBolt) -> None:
    """A bolt's own tick frequency must be a positive number, and only a plain bolt takes tick tuples."""
    conf = bolt.get_component_configuration()
    if conf is None:  # Storm's null: no configuration of its own
        return
    if not isinstance(conf, dict):
        msg = f"get_component_configuration: bolt {bolt_id!r} must return a dict; got {conf!r:.200} instead"
        raise TypeError(msg)
    if tick_interval_ms(conf, f"bolt {bolt_id!r}") is not None and isinstance(
        bolt, BaseWindowedBolt | WindowedAggregateBolt
    ):
        msg = (
            f"{TICK_FREQ_KEY}: bolt {bolt_id!r} is a windowed bolt ({type(bolt).__name__}), whose windows run on "
            "their own clock; tick tuples go to plain bolts"
        )
        raise ValueError(msg)


def _copied(grouping: CustomStreamGrouping, bolt_id: str) -> CustomStreamGrouping:
    """A copy of a custom grouping; one that cannot be copied could not travel to the processes routing its stream."""
    try:
        return copy.deepcopy(grouping)
    except Exception as err:  # deepcopy raises TypeError, PicklingError, or whatever a __reduce__ raises
        msg = (
            f"custom_grouping: the grouping of bolt {bolt_id!r} ({type(grouping).__name__}) cannot be copied, and "
            f"each process routing the stream needs its own: {type(err).__name__}: {err}; build locks, clients and "
            "other resources in prepare(), not __init__"
        )
        raise TypeError(msg) from err


def _check_copyable(bolt_id: str, bolt: BaseBolt) -> None:
    """Each task runs its own deep copy of the bolt; a bolt that cannot be copied would fail at batch 0."""
    try:
        copy.deepcopy(bolt)
    except Exception as err:  # deepcopy raises TypeError, PicklingError, or whatever a __reduce__ raises
        msg = (
            f"set_bolt: bolt {bolt_id!r} ({type(bolt).__name__}) cannot be deep-copied, and each task runs its own "
            f"copy: {type(err).__name__}: {err}; build clients, locks and other resources in prepare(), not __init__"
        )
        raise TypeError(msg) from err


def _parallelism(method: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        msg = f"{method}: `parallelism` must be an int; got {value!r} ({type(value).__name__}) instead"
        raise TypeError(msg)
    if value < 1:
        msg = f"{method}: `parallelism` must be at least 1; got {value} instead"
        raise ValueError(msg)
    return value


def _stream_and_fields(method: str, args: tuple[Any, ...], named: str | None) -> tuple[str, Fields]:
    """``(stream_id, fields)`` from Storm's ``(fields)`` or ``(stream_id, fields)``, or ``(fields, stream_id)``."""
    if len(args) == 1:
        stream_id, fields = named or DEFAULT_STREAM, args[0]
    elif len(args) == 2:
        stream_id, fields = args if isinstance(args[0], str) else (args[1], args[0])
    else:
        msg = f"{method}: expects (component, [stream_id,] fields); got {len(args) + 1} arguments"
        raise TypeError(msg)
    if isinstance(fields, str) or not isinstance(fields, Fields | Sequence):
        msg = f"{method}: `fields` must be Fields(...) of the upstream stream; got {fields!r} instead"
        raise TypeError(msg)
    grouped = fields if isinstance(fields, Fields) else Fields(list(fields))
    if not grouped:
        msg = f"{method}: `fields` must name at least one field"
        raise ValueError(msg)
    return stream_id, grouped
