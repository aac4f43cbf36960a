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


def _default(value: Any) -> msgpack.ExtType:
    if isinstance(value, Tuple):
        body = [list(value.values), value.fields.to_list(), value.stream, value.source_component, value.source_task]
        return msgpack.ExtType(TUPLE_EXT, pack_value(body))
    if isinstance(value, datetime):
        return msgpack.ExtType(DATETIME_EXT, value.isoformat().encode("utf-8"))
    if isinstance(value, date):
        return msgpack.ExtType(DATE_EXT, value.isoformat().encode("utf-8"))
    msg = (
        f"cannot send {value!r:.200} ({type(value).__name__}) between tasks or store it: values must be "
        "None, bool, int, float, str, bytes, datetime, date, Tuple, PaneInfo, or lists and dicts of these"
    )
    raise TypeError(msg)


def _ext_hook(code: int, data: bytes) -> Any:
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


def _panes_marked(value: Any) -> Any:
    """``value`` with every PaneInfo wrapped as an extension (msgpack packs named tuples as lists otherwise)."""
    if isinstance(value, PaneInfo):
        return msgpack.ExtType(PANE_EXT, pack_value(list(value)))
    if isinstance(value, list | tuple) and not isinstance(value, Tuple):
        return [_panes_marked(v) for v in value]
    if isinstance(value, dict):
        return {k: _panes_marked(v) for k, v in value.items()}
    return value


def pack_value(value: Any) -> bytes:
    """The bytes of ``value``; ``TypeError`` naming a value of an unsupported type."""
    try:
        return msgpack.packb(_panes_marked(value), default=_default, use_bin_type=True, strict_types=False)
    except (OverflowError, ValueError) as exc:
        msg = f"cannot send {value!r:.200} between tasks or store it: {exc}"
        raise TypeError(msg) from None


def unpack_value(data: bytes) -> Any:
    """The value :func:`pack_value` made ``data`` from."""
    return msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, use_list=True, strict_map_key=False)
