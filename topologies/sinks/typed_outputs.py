"""Typed columns for a terminal stream: Spark DDL types, inferred once and kept, and the Arrow tables they make.

A stream's column types come from, in order: the schema a sink gives (a DDL
string such as ``"word string, count bigint"``, a ``pyspark.sql.types.StructType``
or a ``pyarrow.Schema``), the types declared with the stream's fields
(``Fields("word", "count", types={"count": "bigint"})``), and otherwise
inference from the values: ``bool`` is ``boolean``, ``int`` ``bigint``,
``float`` ``double``, ``str`` ``string``, ``bytes`` ``binary``,
``datetime`` ``timestamp`` (UTC; a naive one is read as UTC), ``date``
``date``, ``Decimal`` ``decimal(38,18)``, a list ``array<...>``, a dict
with string keys ``map<string,...>``, a named tuple (a pane's ``PaneInfo``)
or a dataclass a ``struct`` of its fields, a late tuple (:class:`bolts.Tuple`)
a ``struct`` of its fields, and any other tuple a ``struct`` of ``_1``,
``_2``, ... (as Spark's ``createDataFrame`` infers tuples; a tuple that comes
back from the store as a list is read as the struct already known).

An inferred type is *pinned* the first time a value shows it and never
changes: nulls leave it as it is, and a value of another type fails, naming
the bolt, the stream, the field and the value. A field that has shown only
nulls when its stream is first written is pinned as ``string``, as Spark's own
JSON inference does; give the sink a schema when that is wrong. Declared and
given types convert values as Arrow does (an ``int`` into a ``double`` column is
fine, a ``str`` into a ``bigint`` one fails with the same naming).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pyarrow as pa

from bolts.column_types import DEFAULT_DECIMAL, ddl_of, parse_schema, parse_type, schema_ddl
from bolts.tuples import Tuple

__all__ = ["StreamTypes", "ddl_of", "infer_type", "merge_types", "parse_schema", "parse_type", "schema_ddl"]

def infer_type(value: Any) -> pa.DataType:
    """The type a value shows (``pa.null()`` for None, and inside empty lists and dicts); TypeError if none."""
    if value is None:
        return pa.null()
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, float):
        return pa.float64()
    if isinstance(value, str):
        return pa.string()
    if isinstance(value, bytes | bytearray):
        return pa.binary()
    if isinstance(value, datetime):
        return pa.timestamp("us", tz="UTC")
    if isinstance(value, date):
        return pa.date32()
    if isinstance(value, Decimal):
        return DEFAULT_DECIMAL
    if isinstance(value, Tuple):  # a late tuple: a struct of its fields
        return pa.struct([pa.field(n, infer_type(v)) for n, v in value.as_dict().items()])
    if isinstance(value, tuple):
        names = getattr(value, "_fields", None) or [f"_{i + 1}" for i in range(len(value))]
        return pa.struct([pa.field(n, infer_type(v)) for n, v in zip(names, value, strict=True)])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return pa.struct([pa.field(f.name, infer_type(getattr(value, f.name))) for f in dataclasses.fields(value)])
    if isinstance(value, list):
        element: pa.DataType = pa.null()
        try:
            for item in value:
                element = merge_types(element, infer_type(item))
        except TypeError:  # values of several types: a tuple that the store gave back as a list
            return infer_type(tuple(value))
        return pa.list_(element)
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        item_type: pa.DataType = pa.null()
        for item in value.values():
            item_type = merge_types(item_type, infer_type(item))
        return pa.map_(pa.string(), item_type)
    msg = f"a {type(value).__name__} has no column type"
    raise TypeError(msg)


def merge_types(known: pa.DataType, seen: pa.DataType) -> pa.DataType:
    """``known`` with the parts it does not know yet (``null``) taken from ``seen``; TypeError where they differ."""
    if pa.types.is_null(seen):
        return known
    if pa.types.is_null(known):
        return seen
    if pa.types.is_list(known) and pa.types.is_list(seen):
        return pa.list_(merge_types(known.value_type, seen.value_type))
    if pa.types.is_map(known) and pa.types.is_map(seen):
        return pa.map_(merge_types(known.key_type, seen.key_type), merge_types(known.item_type, seen.item_type))
    if pa.types.is_struct(known) and pa.types.is_struct(seen) and known.num_fields == seen.num_fields:
        names = [f.name for f in known]
        if _positional(seen) or _positional(known) or names == [f.name for f in seen]:
            names = names if _positional(seen) else [f.name for f in seen]
            pairs = zip(names, known, seen, strict=True)
            return pa.struct([pa.field(n, merge_types(k.type, s.type)) for n, k, s in pairs])
    if known != seen:
        msg = f"{ddl_of(seen)} is not {ddl_of(known)}"
        raise TypeError(msg)
    return known


def _positional(struct: pa.DataType) -> bool:
    """Whether a struct's fields are named ``_1``, ``_2``, ...: a plain tuple's, which a named one's may replace."""
    return [f.name for f in struct] == [f"_{i + 1}" for i in range(struct.num_fields)]


def infer_like(value: Any, known: pa.DataType) -> pa.DataType:
    """The type ``value`` shows, read as ``known`` where it has the shape a stored value comes back in.

    A tuple (a pane's ``PaneInfo``) travels between tasks and through the store
    as a list: a list as wide as a known struct is that struct.
    """
    if isinstance(value, list) and pa.types.is_struct(known) and len(value) == known.num_fields:
        return pa.struct([pa.field(f.name, infer_like(v, f.type)) for f, v in zip(known, value, strict=True)])
    if isinstance(value, list) and pa.types.is_list(known):
        element: pa.DataType = pa.null()
        for item in value:
            element = merge_types(element, infer_like(item, known.value_type))
        return pa.list_(element)
    if isinstance(value, dict) and pa.types.is_map(known) and all(isinstance(k, str) for k in value):
        item_type: pa.DataType = pa.null()
        for item in value.values():
            item_type = merge_types(item_type, infer_like(item, known.item_type))
        return pa.map_(pa.string(), item_type)
    return infer_type(value)


def conform(value: Any, arrow_type: pa.DataType) -> Any:
    """``value`` in the form Arrow converts to ``arrow_type``: structs from tuples, lists and dataclasses."""
    if value is None:
        return None
    if pa.types.is_struct(arrow_type):
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        if isinstance(value, Tuple):
            value = value.as_dict()
        if isinstance(value, list | tuple) and len(value) == arrow_type.num_fields:
            return {f.name: conform(v, f.type) for f, v in zip(arrow_type, value, strict=True)}
        if isinstance(value, dict):
            return {f.name: conform(value.get(f.name), f.type) for f in arrow_type}
        return value
    if pa.types.is_list(arrow_type) and isinstance(value, list | tuple):
        return [conform(v, arrow_type.value_type) for v in value]
    if pa.types.is_map(arrow_type) and isinstance(value, dict):
        return {k: conform(v, arrow_type.item_type) for k, v in value.items()}
    return value


def _nested(arrow_type: pa.DataType) -> bool:
    return pa.types.is_struct(arrow_type) or pa.types.is_list(arrow_type) or pa.types.is_map(arrow_type)


def _settled(arrow_type: pa.DataType) -> pa.DataType:
    """``arrow_type`` with every part still unknown made ``string``."""
    if pa.types.is_null(arrow_type):
        return pa.string()
    if pa.types.is_list(arrow_type):
        return pa.list_(_settled(arrow_type.value_type))
    if pa.types.is_map(arrow_type):
        return pa.map_(_settled(arrow_type.key_type), _settled(arrow_type.item_type))
    if pa.types.is_struct(arrow_type):
        return pa.struct([pa.field(f.name, _settled(f.type)) for f in arrow_type])
    return arrow_type


class StreamTypes:
    """The column types of one terminal stream (``component``'s ``stream``, fields ``fields``).

    ``given``: the types a schema or the declaration fixes (a schema must name
    every field); ``pinned``: types inferred so far. :meth:`observe` checks
    values and learns types; :meth:`settle` pins what is still unknown (as
    ``string``) when the stream is first written; :meth:`table` makes the Arrow
    table, failing on a value that does not fit, naming it.
    """

    def __init__(self, component: str, stream: str, fields: Sequence[str],
                 given: Mapping[str, pa.DataType] | None = None,
                 pinned: Mapping[str, pa.DataType] | None = None) -> None:
        self.component, self.stream = component, stream
        self.fields = list(fields)
        self.given = dict(given or {})
        self.pinned = {f: t for f, t in (pinned or {}).items() if f not in self.given}

    def where(self, field: str) -> str:
        """Which column this is, for messages."""
        return f"bolt {self.component!r}, stream {self.stream!r}, field {field!r}"

    def known(self, field: str) -> pa.DataType:
        """The field's type so far (``null`` parts unknown)."""
        if field in self.given:
            return self.given[field]
        return self.pinned.get(field, pa.null())

    def observe(self, rows: Iterable[Sequence[Any]]) -> bool:
        """Check ``rows`` against the inferred types and learn from them; whether a type was learned.

        TypeError naming the bolt, stream, field and value for a value of another type than the field's.
        """
        changed = False
        inferred = [i for i, f in enumerate(self.fields) if f not in self.given]
        if not inferred:
            return False
        for row in rows:
            self._check_width(row)
            for i in inferred:
                value = row[i]
                if value is None:
                    continue
                field = self.fields[i]
                known = self.pinned.get(field, pa.null())
                merged = self._merged(field, value, known)
                if merged != known:
                    self.pinned[field] = merged
                    changed = True
        return changed

    def learn(self, seen: Mapping[str, pa.DataType]) -> bool:
        """Merge types another process inferred (a distributed task's); whether a type was learned."""
        changed = False
        for field, arrow_type in seen.items():
            if field in self.given:
                continue
            known = self.pinned.get(field, pa.null())
            try:
                merged = merge_types(known, arrow_type)
            except TypeError as err:
                msg = f"{self.where(field)}: a task emitted {ddl_of(arrow_type)} values where the column is " \
                      f"{ddl_of(_settled(known))} ({err}); give the sink a schema to convert them"
                raise TypeError(msg) from None
            if merged != known:
                self.pinned[field], changed = merged, True
        return changed

    def settle(self) -> bool:
        """Pin every part still unknown as ``string``; whether anything was pinned."""
        changed = False
        for field in self.fields:
            if field in self.given:
                continue
            known = self.pinned.get(field, pa.null())
            settled = _settled(known)
            if settled != known:
                self.pinned[field], changed = settled, True
        return changed

    def schema(self) -> pa.Schema:
        """The stream's Arrow schema, unknown parts as ``string`` (call :meth:`settle` to pin them)."""
        return pa.schema([pa.field(f, _settled(self.known(f))) for f in self.fields])

    def table(self, rows: Sequence[Sequence[Any]]) -> pa.Table:
        """``rows`` as an Arrow table of :meth:`schema`; TypeError naming the first value that does not fit."""
        schema = self.schema()
        for row in rows:
            self._check_width(row)
        columns = []
        for i, field in enumerate(schema):
            values = [row[i] for row in rows]
            if field.name not in self.given:
                self.observe_column(field.name, values)
            if _nested(field.type):
                values = [conform(v, field.type) for v in values]
            try:
                columns.append(pa.array(values, field.type))
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
                raise self._first_misfit(field, values) from None
        return pa.Table.from_arrays(columns, schema=schema)

    def observe_column(self, field: str, values: Sequence[Any]) -> None:
        """Check one column's values against the field's pinned type (TypeError naming the first misfit)."""
        known = self.pinned.get(field, pa.null())
        for value in values:
            if value is not None:
                self._merged(field, value, known)

    def _merged(self, field: str, value: Any, known: pa.DataType) -> pa.DataType:
        """``known`` merged with the type ``value`` shows; TypeError naming the field and the value otherwise."""
        try:
            seen = infer_like(value, known)
        except TypeError as err:
            msg = f"{self.where(field)}: the value {value!r} has no column type ({err}); emit plain values " \
                  "(numbers, str, bool, bytes, datetime, date, Decimal, lists, dicts, tuples) or give the sink a schema"
            raise TypeError(msg) from None
        try:
            return merge_types(known, seen)
        except TypeError as err:
            raise self._mismatch(field, value, known, err) from None

    def _check_width(self, row: Sequence[Any]) -> None:
        if len(row) != len(self.fields):
            msg = f"bolt {self.component!r}, stream {self.stream!r}: {len(row)} values {list(row)!r} for the " \
                  f"fields {self.fields}"
            raise TypeError(msg)

    def _mismatch(self, field: str, value: Any, known: pa.DataType, err: TypeError) -> TypeError:
        column = ddl_of(_settled(known))
        msg = f"{self.where(field)}: the value {value!r} ({type(value).__name__}) is not {column}, the column's " \
              f"type ({err}); give the sink a schema (or Fields types) to convert such values"
        return TypeError(msg)

    def _first_misfit(self, field: pa.Field, values: Sequence[Any]) -> TypeError:
        for value in values:
            try:
                pa.array([conform(value, field.type)], field.type)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError) as err:
                msg = f"{self.where(field.name)}: the value {value!r} ({type(value).__name__}) does not fit the " \
                      f"column's type {ddl_of(field.type)} ({err})"
                return TypeError(msg)
        msg = f"{self.where(field.name)}: the values do not fit the column's type {ddl_of(field.type)}"
        return TypeError(msg)
