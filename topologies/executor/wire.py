"""Tuples and emissions as bytes: how they travel to executors and into the store (see :mod:`bolts.value_codec`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bolts import Tuple
from bolts.value_codec import pack_value, unpack_value

Emission = tuple[str, list[Any]]


def encode_tuple(tup: Tuple) -> bytes:
    """The bytes of one tuple (values, fields, stream, source component and task)."""
    return pack_value(tup)


def decode_tuple(data: bytes) -> Tuple:
    """The tuple :func:`encode_tuple` made ``data`` from."""
    tup = unpack_value(data)
    if not isinstance(tup, Tuple):
        msg = f"decode_tuple: the data is not a tuple written by squall; it starts {bytes(data[:40])!r}"
        raise ValueError(msg)
    return tup


def encode_values(values: Sequence[Any]) -> bytes:
    """The bytes of one emitted tuple's values."""
    return pack_value(list(values))


def decode_values(data: bytes) -> list[Any]:
    """The values :func:`encode_values` made ``data`` from."""
    return list(unpack_value(data))


def encode_emissions(emissions: Sequence[Emission]) -> bytes:
    """The bytes of a task's emissions in one batch: ``[(stream, values)]`` in emission order."""
    return pack_value([[stream, list(values)] for stream, values in emissions])


def decode_emissions(data: bytes) -> list[Emission]:
    """The emissions :func:`encode_emissions` made ``data`` from."""
    return [(stream, list(values)) for stream, values in unpack_value(data)]
