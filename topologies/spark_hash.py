"""Spark's ``hash()`` (Murmur3 x86 32-bit, seed 42) of Python values: the fields grouping's one hash.

A fields grouping sends a tuple to task ``pmod(hash(key...), n)``. Where the
key comes from a spout, Spark computes it in the plan
(:func:`key_hash_column`), so a spout's rows go from the scan into the shuffle
without a Python pass; where it comes from a bolt's emission, or from rows in
this process (the driver placement, ``BoltHarness``), :func:`spark_hash`
computes the same number in Python. So a key goes to the same task whoever
emitted it, in every placement.

Each value is hashed as the column Spark would hash after
:func:`key_hash_column`'s normalisation: integers and booleans as ``bigint``
(``hashLong``), floating point as ``double`` (``hashLong`` of its IEEE bits,
``-0.0`` as ``0.0``), strings and bytes by their bytes (Spark's
``hashUnsafeBytes``: 4-byte little-endian words, then each remaining byte
alone, signed), timestamps as microseconds since the epoch (a naive datetime
as UTC) and dates as days, both as ``bigint``; ``None`` leaves the hash as it
is (as a null column does). Key columns of other Spark types (decimals,
``timestamp_ntz``, structs, arrays) are hashed in Python on both paths.
Any other value (a tuple, a registered object) is hashed by the bytes of its
stable text (:func:`topologies.groupings.key_text` of it alone).

:func:`column_hashes` computes the same numbers over whole Arrow columns of
integers, booleans and floating point with numpy, for rows cut by key in this
process (:meth:`topologies.groupings.FieldsGrouping.split`).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from pyspark.sql import Column
    from pyspark.sql.types import DataType

SEED = 42  # Spark's Murmur3Hash seed, the one ``hash()`` and hash partitioning use
_MASK = 0xFFFFFFFF
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_DAY = date(1970, 1, 1).toordinal()


def _mix_k1(k1: int) -> int:
    k1 = (k1 * 0xCC9E2D51) & _MASK
    k1 = ((k1 << 15) | (k1 >> 17)) & _MASK
    return (k1 * 0x1B873593) & _MASK


def _mix_h1(h1: int, k1: int) -> int:
    h1 ^= k1
    h1 = ((h1 << 13) | (h1 >> 19)) & _MASK
    return (h1 * 5 + 0xE6546B64) & _MASK


def _fmix(h1: int, length: int) -> int:
    h1 ^= length
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & _MASK
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & _MASK
    return h1 ^ (h1 >> 16)


def hash_long(value: int, seed: int) -> int:
    """Murmur3 of a ``bigint`` (``Murmur3_x86_32.hashLong``), unsigned 32 bits."""
    low, high = value & _MASK, (value >> 32) & _MASK
    return _fmix(_mix_h1(_mix_h1(seed & _MASK, _mix_k1(low)), _mix_k1(high)), 8)


def hash_bytes(data: bytes, seed: int) -> int:
    """Murmur3 of bytes as Spark hashes a string or binary (``hashUnsafeBytes``), unsigned 32 bits."""
    h1 = seed & _MASK
    aligned = len(data) - len(data) % 4
    for (word,) in struct.iter_unpack("<I", data[:aligned]):
        h1 = _mix_h1(h1, _mix_k1(word))
    for byte in data[aligned:]:
        h1 = _mix_h1(h1, _mix_k1((byte - 256 if byte > 127 else byte) & _MASK))
    return _fmix(h1, len(data))


def _double_bits(value: float) -> int:
    value = 0.0 if value == 0.0 else value  # -0.0 hashes as 0.0
    if value != value:  # Java's doubleToLongBits gives every NaN one canonical pattern
        return 0x7FF8000000000000
    return int(struct.unpack("<q", struct.pack("<d", value))[0])


def _micros(value: datetime) -> int:
    moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)  # naive: UTC, as timestamp_ntz
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def hash_value(value: Any, seed: int, text: Callable[[Any], str]) -> int:
    """One value's step of the hash, from ``seed`` (unsigned); ``text`` gives an other value's stable text."""
    kind = type(value)
    if value is None:
        return seed
    if kind is int or kind is bool or isinstance(value, int):
        return hash_long(int(value), seed)
    if isinstance(value, float):
        return hash_long(_double_bits(value), seed)
    if isinstance(value, str):
        return hash_bytes(value.encode("utf-8"), seed)
    if isinstance(value, bytes | bytearray | memoryview):
        return hash_bytes(bytes(value), seed)
    if isinstance(value, datetime):
        return hash_long(_micros(value), seed)
    if isinstance(value, date):
        return hash_long(value.toordinal() - _EPOCH_DAY, seed)
    return hash_bytes(text(value).encode("utf-8"), seed)


def spark_hash(values: Sequence[Any], text: Callable[[Any], str] = repr) -> int:
    """Spark's ``hash(v1, v2, ...)`` of ``values`` as a signed 32-bit int (each value's step seeds the next)."""
    h = SEED
    for value in values:
        h = hash_value(value, h, text)
    return h - (1 << 32) if h & 0x80000000 else h


def column_hashes(columns: Sequence[pa.Array | pa.ChunkedArray]) -> np.ndarray | None:
    """:func:`spark_hash` of each row's values of ``columns`` (of equal length), as signed 32-bit ints.

    Each value is the one its Python value would give: integers and booleans
    by ``hashLong`` of the number, ``float32``/``float64`` by ``hashLong`` of the
    double's bits (``-0.0`` as ``0.0``, every NaN as Java's one NaN), and a null
    leaves the row's hash as it is. None when a column is of any other type
    (those are hashed value by value). ``ValueError`` for no columns (no row
    count to give hashes for).
    """
    import numpy as np

    if not columns:
        msg = "column_hashes: no columns to hash"
        raise ValueError(msg)
    h = np.full(len(columns[0]), SEED, np.uint32)
    for column in columns:
        bits = _long_bits(column)
        if bits is None:
            return None
        hashed = _hash_longs(bits, h)
        h = hashed if column.null_count == 0 else np.where(_valid(column), hashed, h)
    return h.view(np.int32)


def _long_bits(column: pa.Array | pa.ChunkedArray) -> np.ndarray | None:
    """The 64 bits ``hashLong`` takes for each value of ``column`` (a null's are 0), or None for another type."""
    import numpy as np
    import pyarrow as pa

    kind = column.type
    if not (pa.types.is_integer(kind) or pa.types.is_boolean(kind) or kind in (pa.float32(), pa.float64())):
        return None
    values = column.fill_null(False if pa.types.is_boolean(kind) else 0).to_numpy(zero_copy_only=False)
    if pa.types.is_floating(kind):
        doubles = values.astype(np.float64)
        bits = np.where(doubles == 0.0, 0.0, doubles).view(np.uint64)  # -0.0 hashes as 0.0
        return np.where(np.isnan(doubles), np.uint64(0x7FF8000000000000), bits)  # doubleToLongBits' one NaN
    if kind == pa.uint64():
        return values
    return values.astype(np.int64).view(np.uint64)  # two's complement, as Python's & of a negative int gives


def _valid(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    import pyarrow.compute as pc

    return pc.is_valid(column).to_numpy(zero_copy_only=False)  # type: ignore[no-any-return]


def _hash_longs(bits: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """:func:`hash_long` of each of ``bits`` (uint64) from each of ``seed`` (uint32), in uint32 arithmetic."""
    import numpy as np

    def mix_k1(k1: np.ndarray) -> np.ndarray:
        k1 = k1 * np.uint32(0xCC9E2D51)
        k1 = (k1 << np.uint32(15)) | (k1 >> np.uint32(17))
        return k1 * np.uint32(0x1B873593)  # type: ignore[no-any-return]

    def mix_h1(h1: np.ndarray, k1: np.ndarray) -> np.ndarray:
        h1 = h1 ^ k1
        h1 = (h1 << np.uint32(13)) | (h1 >> np.uint32(19))
        return h1 * np.uint32(5) + np.uint32(0xE6546B64)  # type: ignore[no-any-return]

    low = (bits & np.uint64(_MASK)).astype(np.uint32)
    high = (bits >> np.uint64(32)).astype(np.uint32)
    h1 = mix_h1(mix_h1(seed, mix_k1(low)), mix_k1(high)) ^ np.uint32(8)
    h1 ^= h1 >> np.uint32(16)
    h1 *= np.uint32(0x85EBCA6B)
    h1 ^= h1 >> np.uint32(13)
    h1 *= np.uint32(0xC2B2AE35)
    return h1 ^ (h1 >> np.uint32(16))  # type: ignore[no-any-return]


#: Spark types a key column may have for Spark to compute its hash in the plan, each normalised as above.
_IN_PLAN = ("byte", "short", "integer", "long", "boolean", "float", "double", "string", "binary", "date",
            "timestamp")


def hashes_in_plan(data_type: DataType) -> bool:
    """Whether a key column of ``data_type`` is hashed by Spark as :func:`spark_hash` hashes its values."""
    return data_type.typeName() in _IN_PLAN


def key_hash_column(columns: Sequence[tuple[str, DataType]]) -> Column:
    """The plan's ``hash(...)`` of key ``columns`` (name and type), each normalised as :func:`spark_hash` hashes it.

    ``ValueError`` for a column of a type :func:`hashes_in_plan` refuses.
    """
    from pyspark.sql import functions as F

    parts = []
    for name, data_type in columns:
        kind = data_type.typeName()
        col = F.col(f"`{name}`")
        if kind in ("byte", "short", "integer", "long", "boolean"):
            parts.append(col.cast("bigint"))
        elif kind in ("float", "double"):
            parts.append(col.cast("double"))
        elif kind in ("string", "binary"):
            parts.append(col)
        elif kind == "timestamp":
            parts.append(F.unix_micros(col))
        elif kind == "date":
            parts.append(F.unix_date(col).cast("bigint"))
        else:
            msg = f"key_hash_column: Spark cannot hash column {name!r} of type {kind} as squall does"
            raise ValueError(msg)
    return F.hash(*parts)
