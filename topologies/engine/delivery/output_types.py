"""The typed columns of every stream a sink takes, pinned in the state store so a restart keeps them.

:class:`OutputTypes` holds one :class:`~topologies.sinks.typed_outputs.StreamTypes`
per stream the runner's sinks take. It checks, when the runner takes the
sinks, that each stream is a terminal stream of the topology and that a
sink's schema names exactly its fields; it loads what earlier runs inferred
from ``<topology>/__types`` and commits what a batch newly infers there
(before the batch is written, so a replay and the next submit find it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from topologies.engine.task_store import namespace_name
from topologies.sinks.typed_outputs import StreamTypes, parse_schema, parse_type, schema_ddl
from topologies.topology import Topology

if TYPE_CHECKING:
    from state_backends import StateBackend
    from topologies.sinks.base import Sink

TYPES = "__types"


def stream_fields(topology: Topology, stream: str, what: str) -> list[str]:
    """The fields of ``"component:stream"``, a terminal bolt stream of ``topology``; ValueError naming it otherwise."""
    component, name = stream.split(":")
    if component in topology.spouts:
        msg = f"{what}: {stream!r} is a spout's stream; a sink takes a bolt's: {terminal_names(topology)}"
        raise ValueError(msg)
    streams = topology.streams.get(component)
    if streams is None or name not in streams:
        known = terminal_names(topology)
        msg = f"{what}: the topology has no stream {stream!r}; its terminal streams are {known}"
        raise ValueError(msg)
    if topology.subscribers.get((component, name)):
        subscribers = [bolt for bolt, _ in topology.subscribers[component, name]]
        msg = f"{what}: {stream!r} is not a terminal stream (bolts {subscribers} subscribe to it)"
        raise ValueError(msg)
    return list(streams[name])


class OutputTypes:
    """Each sunk stream's :class:`StreamTypes`, persisted under ``<name>/__types`` in ``backend``."""

    def __init__(self, topology: Topology, sinks: Iterable[Sink], backend: StateBackend, name: str) -> None:
        self.namespace = backend.namespace(namespace_name(name, TYPES))
        self.streams: dict[str, StreamTypes] = {}
        self.stored = {key.decode(): value.decode() for key, value in self.namespace.scan()}
        schemas: dict[str, tuple[str, dict[str, Any]]] = {}  # per stream, the first sink giving it a schema
        for sink in sinks:
            what = f"{type(sink).__name__} {sink.name!r}"
            if sink.streams is None and sink.keeps_on_executors:
                msg = f"{what}: a sink that keeps its streams on the executors must name them (streams=None)"
                raise ValueError(msg)
            for stream in sorted(sink.streams if sink.streams is not None else terminal_names(topology)):
                fields = stream_fields(topology, stream, what)
                check = getattr(sink, "check_columns", None)
                if callable(check):
                    check(fields)
                schema = sink.schemas.get(stream)
                if schema is not None:
                    named = self._schema(stream, fields, schema, what)
                    if stream in schemas and schemas[stream][1] != named:
                        msg = f"{what}: {schemas[stream][0]} gives {stream!r} other types"
                        raise ValueError(msg)
                    schemas.setdefault(stream, (what, named))
        for stream in sorted({s for sink in sinks for s in (sink.streams or terminal_names(topology))}):
            component, name_ = stream.split(":")
            fields = list(topology.streams[component][name_])
            declared = {f: parse_type(t) for f, t in getattr(topology.streams[component][name_], "types", {}).items()}
            given = declared | schemas.get(stream, ("", {}))[1]
            pinned = dict(parse_schema(self.stored[stream])) if stream in self.stored else {}
            self.streams[stream] = StreamTypes(component, name_, fields, given, pinned)

    @staticmethod
    def _schema(stream: str, fields: list[str], schema: Any, what: str) -> dict[str, Any]:
        named = dict(parse_schema(schema, f"{what}: `schema`"))
        if sorted(named) != sorted(fields):
            msg = f"{what}: the schema names {list(named)}; the fields of {stream!r} are {fields}"
            raise ValueError(msg)
        return named

    def of(self, stream: str) -> StreamTypes:
        """The types of ``stream``."""
        return self.streams[stream]

    def save(self, streams: Iterable[str] | None = None) -> None:
        """Commit the pinned types of ``streams`` (all by default) when they differ from the stored ones."""
        stored = self.stored
        puts: dict[bytes, bytes] = {}
        for stream in streams if streams is not None else self.streams:
            types = self.streams[stream]
            pinned = [(f, types.pinned[f]) for f in types.fields if f in types.pinned]
            text = schema_ddl(pinned)
            if pinned and stored.get(stream) != text:
                puts[stream.encode()] = text.encode()
        if puts:
            self.namespace.commit((self.namespace.committed_batch_id() or 0) + 1, puts)
            stored.update({k.decode(): v.decode() for k, v in puts.items()})


def output_streams(topology: Topology) -> frozenset[str]:
    """Every stream nobody subscribes to, a spout's too, as ``"component:stream"``: where the outputs come from."""
    return frozenset(f"{c}:{s}" for c, streams in topology.streams.items() for s in streams
                     if not topology.subscribers.get((c, s)))


def terminal_names(topology: Topology) -> list[str]:
    """The topology's terminal bolt streams as ``"component:stream"`` names."""
    return [f"{bolt}:{stream}" for bolt, stream in topology.terminal_streams()]
