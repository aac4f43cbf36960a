"""A task's emissions as bytes, as its commit stores them (msgpack, see :mod:`bolts.codecs.value_codec`).

A table a columnar bolt emitted (``emit_table``) is one emission
``(stream, table)`` and travels as one Arrow IPC stream (:func:`ipc_bytes`).

An emitted value that cannot be sent between tasks or stored (an object of a
class of the user's, say) is a ``TypeError`` naming the bolt, the task, the
stream and the value: :func:`check_emission` gives it, and
:class:`~topologies.testing.BoltHarness` raises the same error at the ``emit``
that caused it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bolts.codecs.value_codec import pack_value, unpack_value
from windowing.arrow_values import table_rows

if TYPE_CHECKING:
    import pyarrow as pa

Emission = tuple[str, list[Any]] | tuple[str, list[Any], int] | tuple[str, "pa.Table"]
"""``(stream, values)``, ``(stream, values, task_id)`` for a direct emission (``emit_direct``), or
``(stream, table)`` for a table of tuples (``emit_table``; its values are never a list)."""


def is_table(values: Any) -> bool:
    """Whether an emission's second item is a table of tuples (a tuple's values are always a list)."""
    return type(values) is not list


def emission_rows(emission: Emission) -> list[list[Any]]:
    """The values of every tuple of ``emission``, in order."""
    values = emission[1]
    return table_rows(values) if is_table(values) else [values]


def emitted_count(emissions: Sequence[Emission]) -> int:
    """How many tuples ``emissions`` hold (a table's rows each count)."""
    return len(emissions) + sum(e[1].num_rows - 1 for e in emissions if type(e[1]) is not list)


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


def check_emission(component: str, task: int, stream: str, values: Sequence[Any]) -> None:
    """``TypeError`` naming the bolt, the task, the stream and the value when ``values`` cannot be sent or stored."""
    try:
        pack_value(list(values))
    except TypeError as exc:
        msg = (f"bolt {component!r} task {task} emitted {list(values)!r:.300} on stream {stream!r}, which cannot "
               f"travel between tasks or be stored: {exc}")
        raise TypeError(msg) from None


def encode_emissions(emissions: Sequence[Emission], component: str = "?", task: int = 0) -> bytes:
    """The bytes of a task's emissions in one batch: ``[(stream, values[, task_id])]`` in emission order.

    ``TypeError`` from :func:`check_emission` (naming ``component`` and
    ``task``) for the first emission that cannot be sent.
    A table travels as ``[stream, <Arrow IPC bytes>]``.
    """
    try:
        return pack_value([[e[0], ipc_bytes(e[1])] if is_table(e[1]) else list(e) for e in emissions])
    except TypeError:
        for stream, values, *_ in emissions:
            if not is_table(values):
                check_emission(component, task, stream, values)
        raise


def decode_emissions(data: bytes) -> list[Emission]:
    """The emissions :func:`encode_emissions` made ``data`` from."""
    return [(e[0], read_ipc(e[1])) if type(e[1]) is bytes else (e[0], list(e[1]), *e[2:])  # type: ignore[misc]
            for e in unpack_value(data)]
