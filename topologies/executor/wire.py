"""Emitted values and tuples as bytes (msgpack, never pickle): how they travel to executors and into the store.

Plain values are what :mod:`state_backends.serialization` supports (None, bool,
int, float, str, bytes, lists and dicts). Two extension types go further: a
:class:`bolts.Tuple` (a late tuple travels wrapped in the field ``late_tuple``)
comes back as an equal ``Tuple``, and a ``datetime``/``date`` (Spark timestamp
and date columns) comes back as the same value, time zone included. Tuples
inside tuples nest. Anything else raises ``TypeError`` naming the value.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import msgpack

from bolts import Fields, Tuple

TUPLE_EXT = 1
DATETIME_EXT = 2
DATE_EXT = 3

Emission = tuple[str, list[Any]]


def _default(value: Any) -> msgpack.ExtType:
    if isinstance(value, Tuple):
        body = [list(value.values), value.fields.to_list(), value.stream, value.source_component, value.source_task]
        return msgpack.ExtType(TUPLE_EXT, _pack(body))
    if isinstance(value, datetime):
        return msgpack.ExtType(DATETIME_EXT, value.isoformat().encode("utf-8"))
    if isinstance(value, date):
        return msgpack.ExtType(DATE_EXT, value.isoformat().encode("utf-8"))
    msg = (
        f"cannot send {value!r:.200} ({type(value).__name__}) between tasks or store it: emitted values must be "
        "None, bool, int, float, str, bytes, datetime, date, Tuple, or lists and dicts of these"
    )
    raise TypeError(msg)


def _ext_hook(code: int, data: bytes) -> Any:
    if code == TUPLE_EXT:
        values, fields, stream, source, source_task = _unpack(data)
        return Tuple(values, Fields(fields), stream, source, source_task)
    if code == DATETIME_EXT:
        return datetime.fromisoformat(data.decode("utf-8"))
    if code == DATE_EXT:
        return date.fromisoformat(data.decode("utf-8"))
    return msgpack.ExtType(code, data)


def _pack(value: Any) -> bytes:
    return msgpack.packb(value, default=_default, use_bin_type=True, strict_types=False)


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, use_list=True, strict_map_key=False)


def encode_tuple(tup: Tuple) -> bytes:
    """The bytes of one tuple (values, fields, stream, source component and task)."""
    return _pack(tup)


def decode_tuple(data: bytes) -> Tuple:
    """The tuple :func:`encode_tuple` made ``data`` from."""
    tup = _unpack(data)
    if not isinstance(tup, Tuple):
        msg = f"decode_tuple: the data is not a tuple written by squall; it starts {bytes(data[:40])!r}"
        raise ValueError(msg)
    return tup


def encode_values(values: Sequence[Any]) -> bytes:
    """The bytes of one emitted tuple's values."""
    return _pack(list(values))


def decode_values(data: bytes) -> list[Any]:
    """The values :func:`encode_values` made ``data`` from."""
    return list(_unpack(data))


def encode_emissions(emissions: Sequence[Emission]) -> bytes:
    """The bytes of a task's emissions in one batch: ``[(stream, values)]`` in emission order."""
    return _pack([[stream, list(values)] for stream, values in emissions])


def decode_emissions(data: bytes) -> list[Emission]:
    """The emissions :func:`encode_emissions` made ``data`` from."""
    return [(stream, list(values)) for stream, values in _unpack(data)]
