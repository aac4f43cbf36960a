"""Tuple values as bytes (msgpack, never pickle): how they travel between tasks and into a state backend.

Plain values are what :mod:`state_backends.serialization` supports (None, bool,
int, float, str, bytes, lists and dicts). Extension types go further, each
coming back as an equal value of its own type: a :class:`bolts.Tuple` (a late
tuple travels wrapped in the field ``late_tuple``; tuples inside tuples nest),
a ``datetime``/``date`` (Spark timestamp and date columns; the time zone is
kept) and a :class:`windowing.panes.PaneInfo` (the ``pane`` field of a windowed
aggregation). Other tuples come back as lists. Anything else raises
``TypeError`` naming the value.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import msgpack

from bolts.tuples import Fields, Tuple
from windowing.panes import PaneInfo

TUPLE_EXT = 1
DATETIME_EXT = 2
DATE_EXT = 3
PANE_EXT = 4


def extension(value: Any) -> msgpack.ExtType | None:
    """The extension type of a ``Tuple``, ``PaneInfo``, ``datetime`` or ``date``; None for any other value."""
    if isinstance(value, Tuple):
        body = [list(value.values), value.fields.to_list(), value.stream, value.source_component, value.source_task]
        return msgpack.ExtType(TUPLE_EXT, pack_value(body))
    if isinstance(value, PaneInfo):
        return msgpack.ExtType(PANE_EXT, pack_value(list(value)))
    if isinstance(value, datetime):
        return msgpack.ExtType(DATETIME_EXT, value.isoformat().encode("utf-8"))
    if isinstance(value, date):
        return msgpack.ExtType(DATE_EXT, value.isoformat().encode("utf-8"))
    return None


def _default(value: Any) -> Any:
    """What msgpack cannot pack as it is; with strict types this includes every subclass of a plain type."""
    ext = extension(value)
    if ext is not None:
        return ext
    for plain, convert in _PLAIN:
        if isinstance(value, plain):
            return convert(value)
    msg = (
        f"cannot send {value!r:.200} ({type(value).__name__}) between tasks or store it: values must be "
        "None, bool, int, float, str, bytes, datetime, date, Tuple, PaneInfo, or lists and dicts of these"
    )
    raise TypeError(msg)


# Tuples and subclasses of plain types (named tuples, str and int enums, ...) travel as their plain value.
_PLAIN: tuple[tuple[type | tuple[type, ...], Any], ...] = (
    ((tuple, list), list),
    (dict, dict),
    (str, str.__str__),
    (int, int),
    (float, float),
    ((bytes, bytearray, memoryview), bytes),
)


def from_extension(code: int, data: bytes) -> Any:
    """The value :func:`extension` packed as ``(code, data)``; other codes come back as an inert ``ExtType``."""
    if code == TUPLE_EXT:
        values, fields, stream, source, source_task = unpack_value(data)
        return Tuple(values, Fields(fields), stream, source, source_task)
    if code == DATETIME_EXT:
        return datetime.fromisoformat(data.decode("utf-8"))
    if code == DATE_EXT:
        return date.fromisoformat(data.decode("utf-8"))
    if code == PANE_EXT:
        return PaneInfo.from_data(unpack_value(data))
    return msgpack.ExtType(code, data)


def pack_value(value: Any) -> bytes:
    """The bytes of ``value``; ``TypeError`` naming a value of an unsupported type."""
    try:
        return msgpack.packb(value, default=_default, use_bin_type=True, strict_types=True)
    except (OverflowError, ValueError) as exc:
        msg = f"cannot send {value!r:.200} between tasks or store it: {exc}"
        raise TypeError(msg) from None


def value_packer() -> msgpack.Packer:
    """A msgpack ``Packer`` that writes what :func:`pack_value` writes, one value at a time.

    ``autoreset`` is off: read ``bytes()`` at the end. For records built from
    many values without a list of them all.
    """
    return msgpack.Packer(default=_default, use_bin_type=True, strict_types=True, autoreset=False)


def unpack_value(data: bytes) -> Any:
    """The value :func:`pack_value` made ``data`` from."""
    return msgpack.unpackb(data, ext_hook=from_extension, raw=False, use_list=True, strict_map_key=False)
