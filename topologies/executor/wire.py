"""A task's emissions as bytes, as its commit stores them (msgpack, see :mod:`bolts.codecs.value_codec`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bolts.codecs.value_codec import pack_value, unpack_value

Emission = tuple[str, list[Any]]


def encode_emissions(emissions: Sequence[Emission]) -> bytes:
    """The bytes of a task's emissions in one batch: ``[(stream, values)]`` in emission order."""
    return pack_value([[stream, list(values)] for stream, values in emissions])


def decode_emissions(data: bytes) -> list[Emission]:
    """The emissions :func:`encode_emissions` made ``data`` from."""
    return [(stream, list(values)) for stream, values in unpack_value(data)]
