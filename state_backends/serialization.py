"""Safe encoding of plain Python values to bytes (msgpack), for keys and values kept in a store.

Supported: None, bool, int (-2**63 to 2**64 - 1), float, str, bytes, and lists,
tuples and dicts of these, nested. Tuples come back as lists; dict keys must
be supported scalars (str, int, bytes, bool, float or None). Nothing is ever
unpickled: ``decode`` builds only these types (msgpack extension types come
back as inert ``msgpack.ExtType``/``Timestamp`` objects, never as code).
"""

from __future__ import annotations

from typing import Any

import msgpack


def encode(value: Any) -> bytes:
    """The msgpack bytes of ``value``; TypeError for an unsupported type or an int out of range."""
    try:
        return msgpack.packb(value, use_bin_type=True, strict_types=False)
    except (TypeError, OverflowError, ValueError) as exc:
        msg = (
            f"encode: cannot store {value!r:.200} ({exc}); supported are None, bool, int (64 bits), "
            "float, str, bytes, and lists, tuples and dicts of these"
        )
        raise TypeError(msg) from None


def decode(data: bytes) -> Any:
    """The value ``encode`` made ``data`` from; ValueError if ``data`` is not one msgpack value."""
    if not isinstance(data, bytes | bytearray | memoryview):
        msg = f"decode: expected bytes; got {type(data).__name__} {data!r:.80} instead"
        raise TypeError(msg)
    try:
        return msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=False)
    except (ValueError, TypeError, msgpack.StackError) as exc:  # TypeError: a list used as a dict key
        msg = f"decode: not a value written by squall ({type(exc).__name__}: {exc}); data starts {bytes(data[:40])!r}"
        raise ValueError(msg) from None
