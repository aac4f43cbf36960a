"""A task's emissions as bytes, as its commit stores them (msgpack, see :mod:`bolts.codecs.value_codec`).

An emitted value that cannot be sent between tasks or stored (an object of a
class of the user's, say) is a ``TypeError`` naming the bolt, the task, the
stream and the value: :func:`check_emission` gives it, and
:class:`~topologies.testing.BoltHarness` raises the same error at the ``emit``
that caused it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bolts.codecs.value_codec import pack_value, unpack_value

Emission = tuple[str, list[Any]] | tuple[str, list[Any], int]
"""``(stream, values)``, or ``(stream, values, task_id)`` for a direct emission (``emit_direct``)."""


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
    """
    try:
        return pack_value([list(e) for e in emissions])  # values that are tuples pack as lists all the same
    except TypeError:
        for stream, values, *_ in emissions:
            check_emission(component, task, stream, values)
        raise


def decode_emissions(data: bytes) -> list[Emission]:
    """The emissions :func:`encode_emissions` made ``data`` from."""
    return [(e[0], list(e[1]), *e[2:]) for e in unpack_value(data)]  # type: ignore[misc]
