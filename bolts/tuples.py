"""Tuples and their field names, as a Storm user knows them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from bolts.tuple_accessors import StormAccessors

DEFAULT_STREAM = "default"


class Fields(Sequence[str]):
    """An ordered list of distinct field names: ``Fields("key", "value")`` or ``Fields(["key", "value"])``.

    ``types`` optionally gives some fields a Spark DDL type (``{"count": "bigint"}``):
    a sink writing the stream makes those columns of that type (see
    :mod:`topologies.sinks.typed_outputs`); the others are inferred. Types do
    not take part in equality: ``Fields("a") == Fields("a", types={"a": "int"})``.
    """

    __slots__ = ("_index", "_names", "_positions", "types")

    def __init__(self, *names: str | Iterable[str], types: Mapping[str, str] | None = None) -> None:
        flat: list[str] = []
        if len(names) == 1 and not isinstance(names[0], str):
            flat = list(names[0])
        else:
            flat = list(names)  # type: ignore[arg-type]
        for name in flat:
            if not isinstance(name, str) or not name:
                msg = f"Fields: every field name must be a non-empty str; got {name!r} instead"
                raise TypeError(msg)
        self._names = tuple(flat)
        self._index = {name: i for i, name in enumerate(self._names)}
        if len(self._index) != len(self._names):
            dupes = sorted({n for n in self._names if self._names.count(n) > 1})
            msg = f"Fields: field names must be distinct; {', '.join(dupes)} appear more than once"
            raise ValueError(msg)
        # What ``Tuple.__getitem__`` looks keys up in: every name, and every valid int index (negative ones too).
        n = len(self._names)
        self._positions: dict[str | int, int] = {**self._index, **{i: i for i in range(-n, n)}}
        self.types: dict[str, str] = _checked_types(self._names, types) if types else {}

    def __getitem__(self, i: int) -> str:  # type: ignore[override]
        return self._names[i]

    def __len__(self) -> int:
        return len(self._names)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def index(self, name: str, *args: Any) -> int:  # type: ignore[override]
        """Position of field ``name``; ``KeyError`` naming the fields when it is absent."""
        try:
            return self._index[name]
        except KeyError:
            msg = f"Fields.index: no field {name!r}; the fields are: {', '.join(self._names) or '(none)'}"
            raise KeyError(msg) from None

    def to_list(self) -> list[str]:
        """The names as a list."""
        return list(self._names)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Fields):
            return self._names == other._names
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._names)

    def __repr__(self) -> str:
        return f"Fields({', '.join(map(repr, self._names))})"


def _checked_types(names: tuple[str, ...], types: Mapping[str, str]) -> dict[str, str]:
    """``types`` checked: every key a field, every value a Spark DDL type (ValueError naming the bad one)."""
    from bolts.column_types import parse_type

    if not isinstance(types, Mapping):
        msg = f"Fields: `types` must map field names to DDL types like {{'count': 'bigint'}}; got {types!r} instead"
        raise TypeError(msg)
    for name, ddl in types.items():
        if name not in names:
            msg = f"Fields: `types` names {name!r}, which is not one of the fields {list(names)}"
            raise ValueError(msg)
        if not isinstance(ddl, str):
            msg = f"Fields: the type of {name!r} must be a DDL string like 'bigint'; got {ddl!r} instead"
            raise TypeError(msg)
        parse_type(ddl, f"Fields: the type of {name!r}")
    return dict(types)


class TupleOrigin:
    """What the tuples of one stream from one task share: their fields, stream and source.

    A :class:`Tuple` holds its values and one of these, so a batch's tuples cost
    one small object each beyond their values. Origins are interned by
    :func:`origin` (the same fields object, stream and source give the same origin).
    """

    __slots__ = ("fields", "positions", "source_component", "source_task", "stream")

    def __init__(self, fields: Fields, stream: str, source_component: str, source_task: int) -> None:
        self.fields = fields
        self.positions = fields._positions
        self.stream = stream
        self.source_component = source_component
        self.source_task = source_task


_ORIGINS: dict[tuple[int, str, str, int], TupleOrigin] = {}
_MAX_ORIGINS = 4096


def origin(fields: Fields, stream: str, source_component: str, source_task: int) -> TupleOrigin:
    """The interned origin of tuples with these fields (this very object: types may differ), stream and source."""
    key = (id(fields), stream, source_component, source_task)
    found = _ORIGINS.get(key)
    if found is None or found.fields is not fields:
        if len(_ORIGINS) >= _MAX_ORIGINS:  # fields made per tuple (user code, tests): keep the cache bounded
            _ORIGINS.clear()
        # The entry keeps ``fields`` alive, so its id cannot be reused while the entry exists.
        found = _ORIGINS[key] = TupleOrigin(fields, stream, source_component, source_task)
    return found


class Tuple(StormAccessors):
    """A read-only tuple: ``t["field"]`` or ``t[0]``, ``.values``, ``.fields``, ``.stream``, ``.source_component``.

    A tuple holds its values (a Python tuple) and its :class:`TupleOrigin`,
    shared by every tuple of the same stream from the same task. Storm's
    getters (``get_string``, ``get_long_by_field``, ``get_source_component``,
    ...) are in :class:`bolts.tuple_accessors.StormAccessors`.
    """

    __slots__ = ("_origin", "values")

    def __init__(
        self,
        values: Sequence[Any],
        fields: Fields,
        stream: str = DEFAULT_STREAM,
        source_component: str = "",
        source_task: int = 0,
    ) -> None:
        if not isinstance(fields, Fields):
            fields = Fields(fields)
        if len(values) != len(fields._names):
            msg = (
                f"Tuple: {len(values)} values for {len(fields)} fields {fields.to_list()} "
                f"on stream {stream!r}: {list(values)!r}"
            )
            raise ValueError(msg)
        # Read-only: the slots are set through their descriptors (faster than object.__setattr__).
        _set_values(self, tuple(values))
        _set_origin(self, origin(fields, stream, source_component, source_task))

    @classmethod
    def many(
        cls, rows: Iterable[tuple[Any, ...]], fields: Fields, stream: str, source_component: str, source_task: int,
    ) -> list[Tuple]:
        """Tuples of ``rows`` (Python tuples of ``len(fields)`` values each, as a columnar batch gives them).

        Builds them without the per-tuple checks of the constructor: the caller
        guarantees each row is a tuple of the right length.
        """
        new, shared = object.__new__, origin(fields, stream, source_component, source_task)
        out = []
        append = out.append
        for values in rows:
            tup = new(cls)
            _set_values(tup, values)
            _set_origin(tup, shared)
            append(tup)
        return out

    @property
    def fields(self) -> Fields:
        """The tuple's field names."""
        return self._origin.fields

    @property
    def stream(self) -> str:
        """The stream the tuple was emitted on."""
        return self._origin.stream

    @property
    def source_component(self) -> str:
        """The component that emitted the tuple ("" for one made by hand)."""
        return self._origin.source_component

    @property
    def source_task(self) -> int:
        """The task index of the emitting component."""
        return self._origin.source_task

    def __setattr__(self, name: str, value: Any) -> None:
        msg = f"Tuple is read-only; cannot set {name!r}"
        raise AttributeError(msg)

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuild through the constructor: copy and deepcopy cannot set attributes of a read-only tuple.
        o = self._origin
        return (Tuple, (self.values, o.fields, o.stream, o.source_component, o.source_task))

    def __getitem__(self, key: str | int) -> Any:
        # One dict lookup for a field name or an int index (the hot path of every windowed bolt).
        try:
            return self.values[self._origin.positions[key]]
        except (KeyError, TypeError):
            pass
        if isinstance(key, int | slice):
            return self.values[key]  # out of range: IndexError, as for a tuple
        return self.values[self.fields.index(key)]  # KeyError naming the fields

    def get(self, field: str, default: Any = None) -> Any:
        """The value of ``field``, or ``default`` when the tuple has no such field."""
        i = self._origin.fields._index.get(field)
        return default if i is None else self.values[i]

    def get_value_by_field(self, field: str) -> Any:
        """Storm's ``getValueByField``."""
        return self[field]

    def get_fields(self) -> Fields:
        """Storm's ``getFields``."""
        return self._origin.fields

    def field_index(self, field: str) -> int:
        """Storm's ``fieldIndex``: the position of ``field`` (``KeyError`` naming the fields if absent)."""
        return self._origin.fields.index(field)

    def get_value(self, i: int) -> Any:
        """Storm's ``getValue``: the value at position ``i``, from 0 to ``size() - 1`` (no negative index, no name)."""
        if isinstance(i, bool) or not isinstance(i, int):
            msg = f"Tuple.get_value({i!r}): a position must be an int (a field name goes to get_value_by_field)"
            raise TypeError(msg)
        if not 0 <= i < len(self.values):
            msg = f"Tuple.get_value({i!r}): no position {i}; the tuple has {len(self.values)} values"
            raise IndexError(msg)
        return self.values[i]

    def contains(self, field: str) -> bool:
        """Whether the tuple has ``field``."""
        return field in self._origin.fields

    def __len__(self) -> int:
        return len(self.values)

    def as_dict(self) -> dict[str, Any]:
        """The tuple as a ``{field: value}`` dict."""
        return dict(zip(self._origin.fields, self.values, strict=True))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tuple):
            return NotImplemented
        a, b = self._origin, other._origin
        return (self.values, a.fields, a.stream, a.source_component) == (
            other.values,
            b.fields,
            b.stream,
            b.source_component,
        )

    def __hash__(self) -> int:
        return hash((self.values, self._origin.stream, self._origin.source_component))

    def __repr__(self) -> str:
        src = f"{self.source_component}:{self.stream}" if self.source_component else self.stream
        return f"Tuple({src}, {self.as_dict()!r})"


_set_values = Tuple.__dict__["values"].__set__
_set_origin = Tuple.__dict__["_origin"].__set__
