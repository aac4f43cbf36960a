"""Where a task's state lives: its namespace of the state backend, with the batch's emissions in its commit.

Each stored task owns the namespace ``<topology>/<component>/<task index>``.
Its commit for batch ``b`` writes, in one atomic step with the batch id, the
task's own state (windows, system and user state; for a plain bolt its time
and watermark under :data:`TASK_KEY`), the bolt's attributes that changed
(:mod:`bolts.instance_fields`), and what the task emitted in ``b`` (under
:data:`OUTPUTS_KEY`, replaced by every commit). So when Spark runs ``b`` again
after a failure, a task whose store already holds ``b`` is not run a second
time: its committed emissions are sent downstream instead, and its state (built
from the store) is already the state after ``b``. Shuffle counters live in the
namespace ``<topology>/__router`` with the same batch-id rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from bolts.codecs.value_codec import unpack_value
from state_backends import Namespace, StateBackend, decode, encode
from state_backends.base import check_namespace
from topologies.engine.figures import EventTimes
from topologies.engine.routing import CounterKey
from topologies.engine.wire import Emission, decode_emissions

# Apart from the tasks' own keys (bolts.codecs.window_state_codec's, bolts.aggregate.store's, bolts.task.TASK_KEY)
# and the bolt's attributes' (f/).
OUTPUTS_KEY = b"o/batch"
Figures = tuple[int, int]  # a task's windows fired and late tuples in one batch
FIGURES_KEY = b"o/figures"  # [windows fired, late tuples] of the committed batch, reported again on a replay
ROUTER = "__router"
#: How tuples are assigned to tasks. 2: a fields grouping hashes with Spark's ``hash()`` (1, unrecorded: CRC-32).
ROUTING_VERSION = 2
_ROUTING_KEY = b"routing"


def task_namespaces(topology: str, bolts: Mapping[str, Any]) -> list[str]:
    """The namespace of every bolt task of ``topology``: ``bolts`` maps each bolt id to its spec (``parallelism``)."""
    return [namespace_name(topology, bid, i) for bid, spec in bolts.items() for i in range(spec.parallelism)]


def namespace_name(topology: str, component: str, index: int | None = None) -> str:
    """``<topology>/<component>/<index>`` (or ``<topology>/<component>``), checked as a namespace name.

    ``ValueError`` naming the component when the name is not a valid namespace
    (whitespace, control characters, braces, or longer than 200 characters).
    """
    name = f"{topology}/{component}" if index is None else f"{topology}/{component}/{index}"
    try:
        return check_namespace("submit", name)
    except ValueError:
        msg = (
            f"submit: component {component!r} of topology {topology!r} cannot name a state namespace "
            f"({name!r}): use ids without whitespace, control characters, '{{' or '}}', under 190 characters"
        )
        raise ValueError(msg) from None


class TaskStore:
    """A task's namespace as the task sees it (``get``/``scan``/``commit``), plus the batch's extra writes.

    :meth:`stage` the batch's emissions and attribute changes before the task
    commits; the commit then writes them with the task's own writes,
    atomically. A deep copy is the same object: a copied task (a bolt's
    attribute holding it, say) writes to the same namespace.
    """

    def __init__(self, namespace: Namespace) -> None:
        self.namespace = namespace
        self._puts: dict[bytes, bytes] = {}
        self._deletes: list[bytes] = []
        self.bytes_written = 0  # key plus value bytes of the applied commits, for the batch metrics

    def stage(self, puts: Mapping[bytes, bytes], deletes: Iterable[bytes] = ()) -> None:
        """Writes to make with the next commit, whoever calls it."""
        self._puts.update(puts)
        self._deletes.extend(deletes)

    def get(self, key: bytes) -> bytes | None:
        """The committed value of ``key``."""
        return self.namespace.get(key)

    def scan(self, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        """Committed pairs under ``prefix``, in key order."""
        return self.namespace.scan(prefix)

    def committed_batch_id(self) -> int | None:
        """The last batch id committed to the namespace."""
        return self.namespace.committed_batch_id()

    def unstage(self) -> None:
        """Forget the staged writes (their commit failed)."""
        self._puts, self._deletes = {}, []

    def commit(self, batch_id: int, puts: Mapping[bytes, bytes], deletes: Iterable[bytes]) -> bool:
        """Commit the task's writes and the staged ones with ``batch_id``; False if it was committed before."""
        writes = {**puts, **self._puts} if self._puts else puts
        removed = [*deletes, *self._deletes]
        self._puts, self._deletes = {}, []
        applied = self.namespace.commit(batch_id, writes, removed)
        if applied:
            self.bytes_written += sum(map(len, writes)) + sum(map(len, writes.values()))
        return applied

    def committed_outputs(self) -> list[Emission]:
        """The emissions of the last committed batch (empty if none were stored)."""
        data = self.namespace.get(OUTPUTS_KEY)
        return [] if data is None else decode_emissions(data)

    def committed_figures(self) -> Figures:
        """The windows fired and late tuples of the last committed batch ((0, 0) if none were stored)."""
        data = self.namespace.get(FIGURES_KEY)
        return (0, 0) if data is None else tuple(unpack_value(data))  # type: ignore[return-value]

    def __deepcopy__(self, memo: dict[int, Any]) -> TaskStore:
        return self


def check_not_ahead(store: TaskStore, batch_id: int, where: str) -> int | None:
    """The store's committed batch id; ``RuntimeError`` when it is past ``batch_id`` (a replaced checkpoint)."""
    committed = store.committed_batch_id()
    if committed is not None and committed > batch_id:
        msg = (
            f"{where}: namespace {store.namespace.name!r} already committed batch {committed}, but Spark runs batch "
            f"{batch_id}; the checkpoint was replaced or is shared while the state store kept the old state. "
            "Use a new topology name, or clear the store's namespaces of this topology"
        )
        raise RuntimeError(msg)
    return committed


class RouterCounters:
    """The shuffle counters at the start and the end of the last committed batch, in ``<topology>/__router``.

    Beside them, in the same commit, the bolts' largest event times the batch
    started and ended with (:func:`topologies.engine.figures.gather_event_times`),
    when a bolt keeps Spark's watermark.
    """

    def __init__(self, backend: StateBackend, topology: str) -> None:
        self.namespace = backend.namespace(namespace_name(topology, ROUTER))
        self.topology = topology

    def check_routing(self) -> None:
        """``RuntimeError`` when the store's batches were routed otherwise than this squall routes them.

        A fields grouping's key went to another task before routing version 2,
        so each task's windows hold other keys than this squall would send it:
        resuming would silently read windows that now belong to another task.
        """
        committed = self.namespace.committed_batch_id()
        if committed is None:
            return
        data = self.namespace.get(_ROUTING_KEY)
        version = 1 if data is None else int(data)
        if version != ROUTING_VERSION:
            msg = (
                f"foreachBatch: topology {self.topology!r} committed batch {committed} with routing version "
                f"{version}, and this squall routes with version {ROUTING_VERSION} (a fields grouping now sends a "
                "key to pmod(Spark's hash(key), tasks)): its tasks' windows and state hold keys that now belong to "
                "other tasks. Run it to its end with the squall that started it, or start it afresh: submit under "
                "a new name, or delete its checkpoint directory and its state namespaces"
            )
            raise RuntimeError(msg)

    def start_of(self, batch_id: int) -> dict[CounterKey, int]:
        """The counters to start ``batch_id`` with: the ones it started with before, if it was committed."""
        self.check_routing()
        committed = self.namespace.committed_batch_id()
        if committed is not None and committed > batch_id:
            msg = (
                f"foreachBatch: the shuffle counters of this topology are at batch {committed}, but Spark runs "
                f"batch {batch_id}; the checkpoint was replaced while the state store kept the old state"
            )
            raise RuntimeError(msg)
        return self._read(b"before" if committed == batch_id else b"after")

    def last_batch(self) -> int | None:
        """The id of the last batch committed (every batch commits its counters), None before any."""
        return self.namespace.committed_batch_id()

    def at_end(self) -> dict[CounterKey, int]:
        """The counters the last committed batch ended with (what the shutdown flush starts from)."""
        self.check_routing()
        return self._read(b"after")

    def event_times_of(self, batch_id: int) -> EventTimes:
        """The event times to start ``batch_id`` with: the ones it started with before, if it was committed."""
        committed = self.namespace.committed_batch_id()
        return self._read_times(b"times_before" if committed == batch_id else b"times_after")

    def event_times_at_end(self) -> EventTimes:
        """The event times the last committed batch ended with."""
        return self._read_times(b"times_after")

    def _read_times(self, key: bytes) -> EventTimes:
        data = self.namespace.get(key)
        return {} if data is None else _unpack_times(data)

    def _read(self, key: bytes) -> dict[CounterKey, int]:
        data = self.namespace.get(key)
        return {} if data is None else {(c, t, s, b): n for c, t, s, b, n in decode(data)}

    def commit(self, batch_id: int, start: Mapping[CounterKey, int], end: Mapping[CounterKey, int],
               times_start: EventTimes | None = None, times_end: EventTimes | None = None) -> None:
        """Record the counters (and event times) ``batch_id`` started and ended with (nothing if committed already)."""
        puts = {b"before": _pack_counters(start), b"after": _pack_counters(end),
                _ROUTING_KEY: str(ROUTING_VERSION).encode()}
        if times_start or times_end:
            puts[b"times_before"] = _pack_times(times_start or {})
            puts[b"times_after"] = _pack_times(times_end or {})
        self.namespace.commit(batch_id, puts)


def _pack_times(event_times: Mapping[str, Mapping[tuple[str, str], int]]) -> bytes:
    return encode(sorted([bolt, c, s, ts] for bolt, seen in event_times.items() for (c, s), ts in seen.items()))


def _unpack_times(data: bytes) -> EventTimes:
    out: EventTimes = {}
    for bolt, component, stream, ts in decode(data):
        out.setdefault(bolt, {})[(component, stream)] = ts
    return out


def _pack_counters(counters: Mapping[CounterKey, int]) -> bytes:
    return encode([[c, t, s, b, n] for (c, t, s, b), n in sorted(counters.items())])
