"""Spark's DDL types as Arrow types: parsing ``"word string, count bigint"`` and naming an Arrow type back.

What a declared column type means (``Fields(..., types={"count": "bigint"})``,
a sink's ``schema=``), without a JVM: the simple types (``boolean``,
``tinyint`` to ``bigint``, ``float``, ``double``, ``string``, ``binary``,
``date``, ``timestamp`` (UTC), ``timestamp_ntz``, ``void``), ``decimal(p,s)``,
``array<...>``, ``map<...,...>`` and ``struct<name:type,...>``; names may be
quoted with backticks. A schema is a DDL string, a Spark ``StructType`` or a
``pyarrow.Schema``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import pyarrow as pa

__all__ = ["DEFAULT_DECIMAL", "ddl_of", "parse_schema", "parse_type", "schema_ddl"]

_SIMPLE: dict[str, pa.DataType] = {
    "boolean": pa.bool_(), "bool": pa.bool_(),
    "tinyint": pa.int8(), "byte": pa.int8(), "smallint": pa.int16(), "short": pa.int16(),
    "int": pa.int32(), "integer": pa.int32(), "bigint": pa.int64(), "long": pa.int64(),
    "float": pa.float32(), "real": pa.float32(), "double": pa.float64(),
    "string": pa.string(), "binary": pa.binary(), "date": pa.date32(),
    "timestamp": pa.timestamp("us", tz="UTC"), "timestamp_ltz": pa.timestamp("us", tz="UTC"),
    "timestamp_ntz": pa.timestamp("us"), "void": pa.null(),
}
_NAMES: dict[pa.DataType, str] = {
    pa.bool_(): "boolean", pa.int8(): "tinyint", pa.int16(): "smallint", pa.int32(): "int", pa.int64(): "bigint",
    pa.float32(): "float", pa.float64(): "double", pa.string(): "string", pa.large_string(): "string",
    pa.binary(): "binary", pa.large_binary(): "binary", pa.date32(): "date", pa.null(): "void",
    pa.timestamp("us"): "timestamp_ntz",
}
_TOKEN = re.compile(r"\s*(`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*|\d+|[<>(),:])")
DEFAULT_DECIMAL = pa.decimal128(38, 18)


class _Tokens:
    def __init__(self, text: str, what: str) -> None:
        self.text, self.what = text, what
        self.items: list[str] = []
        position = 0
        while position < len(text):
            if text[position:].strip() == "":
                break
            match = _TOKEN.match(text, position)
            if match is None:
                self.fail(f"unexpected {text[position:].strip()[:20]!r}")
            self.items.append(match.group(1))
            position = match.end()
        self.at = 0

    def fail(self, why: str) -> Any:
        msg = f"{self.what}: {why} in the type {self.text!r}"
        raise ValueError(msg)

    def peek(self) -> str | None:
        return self.items[self.at] if self.at < len(self.items) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token.lower() != expected):
            self.fail(f"expected {expected or 'more'}, found {token or 'the end'}")
        self.at += 1
        return token  # type: ignore[return-value]

    def name(self) -> str:
        token = self.take()
        if token.startswith("`"):
            return token[1:-1].replace("``", "`")
        if not (token[0].isalpha() or token[0] == "_"):
            self.fail(f"expected a field name, found {token!r}")
        return token


def _type(tokens: _Tokens) -> pa.DataType:
    word = tokens.take().lower()
    if word in ("decimal", "dec", "numeric"):
        if tokens.peek() != "(":
            return pa.decimal128(10, 0)
        tokens.take("(")
        precision = int(tokens.take())
        scale = 0
        if tokens.peek() == ",":
            tokens.take(",")
            scale = int(tokens.take())
        tokens.take(")")
        if not 1 <= precision <= 38 or not 0 <= scale <= precision:
            tokens.fail(f"decimal({precision},{scale}) is out of range")
        return pa.decimal128(precision, scale)
    if word == "array":
        tokens.take("<")
        element = _type(tokens)
        tokens.take(">")
        return pa.list_(element)
    if word == "map":
        tokens.take("<")
        key = _type(tokens)
        tokens.take(",")
        value = _type(tokens)
        tokens.take(">")
        return pa.map_(key, value)
    if word == "struct":
        tokens.take("<")
        fields = []
        while tokens.peek() != ">":
            name = tokens.name()
            if tokens.peek() == ":":
                tokens.take(":")
            fields.append(pa.field(name, _type(tokens)))
            if tokens.peek() == ",":
                tokens.take(",")
        tokens.take(">")
        return pa.struct(fields)
    if word in ("varchar", "char") and tokens.peek() == "(":
        tokens.take("(")
        tokens.take()
        tokens.take(")")
        return pa.string()
    if word not in _SIMPLE:
        tokens.fail(f"unknown type {word!r}")
    return _SIMPLE[word]


def parse_type(text: str, what: str = "type") -> pa.DataType:
    """The Arrow type of a Spark DDL type (``bigint``, ``decimal(10,2)``, ``array<string>``, ...)."""
    tokens = _Tokens(text, what)
    result = _type(tokens)
    if tokens.peek() is not None:
        tokens.fail(f"unexpected {tokens.peek()!r}")
    return result


def parse_schema(schema: Any, what: str = "schema") -> list[tuple[str, pa.DataType]]:
    """Named types from a DDL string (``"a bigint, b string"``), a Spark ``StructType`` or a ``pyarrow.Schema``."""
    if isinstance(schema, pa.Schema):  # through its DDL: a type Spark has no column of fails here, naming it
        try:
            return [(f.name, parse_type(ddl_of(f.type), what)) for f in schema]
        except TypeError as err:
            msg = f"{what}: {err}"
            raise ValueError(msg) from None
    if hasattr(schema, "fields") and hasattr(schema, "simpleString"):  # pyspark.sql.types.StructType
        return [(f.name, parse_type(f.dataType.simpleString(), what)) for f in schema.fields]
    if not isinstance(schema, str) or not schema.strip():
        msg = f"{what}: a schema is a DDL string ('word string, count bigint'), a StructType or a pyarrow.Schema; " \
              f"got {schema!r} instead"
        raise TypeError(msg)
    text = schema.strip()
    if text.lower().startswith("struct<"):
        return [(f.name, f.type) for f in parse_type(text, what)]
    tokens = _Tokens(text, what)
    fields: list[tuple[str, pa.DataType]] = []
    while tokens.peek() is not None:
        name = tokens.name()
        if tokens.peek() == ":":
            tokens.take(":")
        fields.append((name, _type(tokens)))
        if tokens.peek() is not None:
            tokens.take(",")
    names = [n for n, _ in fields]
    if len(set(names)) != len(names):
        tokens.fail("a field is named twice")
    return fields


def ddl_of(arrow_type: pa.DataType) -> str:
    """The Spark DDL name of an Arrow type (the inverse of :func:`parse_type` for the types it makes)."""
    if arrow_type in _NAMES:
        return _NAMES[arrow_type]
    if pa.types.is_timestamp(arrow_type):
        return "timestamp" if arrow_type.tz is not None else "timestamp_ntz"
    if pa.types.is_decimal(arrow_type):
        return f"decimal({arrow_type.precision},{arrow_type.scale})"
    if pa.types.is_map(arrow_type):
        return f"map<{ddl_of(arrow_type.key_type)},{ddl_of(arrow_type.item_type)}>"
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return f"array<{ddl_of(arrow_type.value_type)}>"
    if pa.types.is_struct(arrow_type):
        return "struct<" + ",".join(f"`{f.name}`:{ddl_of(f.type)}" for f in arrow_type) + ">"
    msg = f"ddl_of: no Spark type for the Arrow type {arrow_type}"
    raise TypeError(msg)


def schema_ddl(fields: Iterable[tuple[str, pa.DataType]]) -> str:
    """Named types as a DDL string, ``"`a` bigint, `b` string"``."""
    return ", ".join(f"`{name}` {ddl_of(t)}" for name, t in fields)
