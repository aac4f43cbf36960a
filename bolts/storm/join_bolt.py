"""Storm's ``JoinBolt``: joins the streams of one window on a field per stream, as SQL joins tables.

Example::

    bolt = (JoinBolt("purchases", "userId")                  # from purchases
            .join("ads", "userId", "purchases")              # inner join ads on ads.userId = purchases.userId
            .left_join("clicks", "user", "ads")              # left join clicks on clicks.user = ads.userId
            .select("userId, item, ads:campaign, clicks:at")
            .with_tumbling_window(Duration.minutes(1)))

Each activation joins the window's tuples (``window.get()``) and emits one tuple
per joined row. The semantics are Storm 2.x's (``org.apache.storm.bolt.JoinBolt``);
docs/joins.md describes them with examples, and where squall is stricter.
"""

from __future__ import annotations

import enum
import reprlib
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Self, overload

from bolts.collector import OutputCollector, OutputFieldsDeclarer
from bolts.context import TopologyContext
from bolts.errors import TupleError
from bolts.storm.base_windowed_bolt import BaseWindowedBolt
from bolts.tuples import DEFAULT_STREAM, Fields, Tuple
from windowing import TupleWindow

_SHORT = reprlib.Repr()  # a tuple or a value in an error message, cut short
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict = 60, 200, 8, 8


class _Kind(enum.Enum):
    INNER = "join"
    LEFT = "left_join"


@dataclass(frozen=True)
class _FieldRef:
    """A field as ``select`` or a join names it: an optional stream, a path (``outer.inner``), an output name."""

    stream: str | None
    path: tuple[str, ...]
    name: str

    def applies_to(self, stream: str) -> bool:
        """Whether the field is read from tuples of ``stream`` (unqualified fields: from every stream)."""
        return self.stream is None or self.stream.casefold() == stream.casefold()


@dataclass(frozen=True)
class _Clause:
    """One stream of the join: its join field and, after the first, the prior stream and the kind of join."""

    stream: str
    key: _FieldRef
    prior: int | None = None  # the position of the prior stream's clause
    kind: _Kind | None = None


@dataclass(frozen=True)
class _Spec:
    """What the user configured: immutable, replaced by each configuration method."""

    clauses: tuple[_Clause, ...]
    select: tuple[_FieldRef, ...] | None = None
    output_stream: str | None = None


@dataclass(frozen=True)
class _Entry:
    """One tuple of the window, read once: its join key and the value of each selected field (or None)."""

    tup: Tuple
    key: Hashable | None
    picked: tuple[Any, ...]


class _Unreadable(Exception):
    """A path went through a value that is not a mapping; turned into a TupleError naming the tuple."""

    def __init__(self, prefix: str, value: Any) -> None:
        self.prefix, self.value = prefix, value


def _require_str(method: str, name: str, value: object) -> str:
    if not isinstance(value, str):
        msg = f"{method}: `{name}` must be a str; got {_SHORT.repr(value)} ({type(value).__name__}) instead"
        raise TypeError(msg)
    if not value.strip():
        msg = f"{method}: `{name}` must not be empty; got {value!r}"
        raise ValueError(msg)
    return value


def _path(method: str, text: str, whole: str) -> tuple[str, ...]:
    """``"a.b.c"`` as ``("a", "b", "c")``; ``ValueError`` naming ``whole`` for an empty part."""
    parts = tuple(part.strip() for part in text.split("."))
    if not all(parts):
        msg = f"{method}: field {whole!r} has an empty name before, between or after its dots"
        raise ValueError(msg)
    return parts


def _join_field(method: str, stream: str, field: str) -> _FieldRef:
    if ":" in field:
        msg = (f"{method}: join field {field!r} of stream {stream!r} must not name a stream (no ':'); "
               f"the stream is implicit here")
        raise ValueError(msg)
    return _FieldRef(stream, _path(method, field, field), field)


def _select_field(item: str, whole: str) -> _FieldRef:
    """One item of ``select``: ``field``, ``outer.inner`` or ``stream:field`` (a leading ``:`` names no stream)."""
    stream, colon, field = item.partition(":")
    stream, field = stream.strip(), field.strip()
    if not colon:
        return _FieldRef(None, _path("select", item, whole), item)
    if not field:
        msg = f"select: {item!r} in {whole!r} names no field after the ':'"
        raise ValueError(msg)
    if not stream:  # ":x" is "x", as in Storm
        return _FieldRef(None, _path("select", field, whole), field)
    return _FieldRef(stream, _path("select", field, whole), f"{stream}:{field}")


def _hashable(value: Any) -> Hashable:
    """A join key as a dict key: lists, tuples, sets and mappings compare by content, as Java's collections do."""
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, Mapping):
        return frozenset((_hashable(k), _hashable(v)) for k, v in value.items())
    if isinstance(value, set | frozenset):
        return frozenset(_hashable(v) for v in value)
    if isinstance(value, bytearray):
        return bytes(value)
    hash(value)  # TypeError for anything else that cannot be a key
    return value  # type: ignore[no-any-return]


def _read(tup: Tuple, path: tuple[str, ...]) -> Any:
    """The value at ``path`` in ``tup`` (None where absent or null); ``_Unreadable`` at a value that is no mapping."""
    value = tup.get(path[0])
    for depth, name in enumerate(path[1:], 1):
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise _Unreadable(".".join(path[:depth]), value)
        value = value.get(name)
    return value


class JoinBolt(BaseWindowedBolt):
    """Joins the streams in each window, Storm's ``JoinBolt`` in Python spelling.

    ``JoinBolt("purchases", "userId")`` starts the join with the tuples of source
    component ``purchases``, joined on their field ``userId``;
    ``JoinBolt(JoinBolt.Selector.STREAM, "purchases", "userId")`` names a stream
    id instead. Each ``join(new_stream, field, prior_stream)`` (inner) or
    ``left_join(...)`` adds a stream whose ``field`` must equal the join field of
    ``prior_stream``, a stream already in the join. Joins run in the order given.
    ``select("userId, ads:campaign, outer.inner")`` names the output fields (it
    is required); ``with_output_stream("s")`` emits on ``s`` instead of
    ``default``. Every window method of :class:`BaseWindowedBolt` configures the
    window and returns the bolt.

    Per activation, rows are emitted in join order: for each tuple of the first
    stream in window order, its matches in the second stream in window order, and
    so on. A selected field takes its value from the first tuple of the row (in
    join order) where it is not null; a ``stream:field`` only from that stream.
    Nulls never join: a tuple whose join field is null or absent matches nothing,
    and a row whose key for the next join is null is dropped, in a left join too.
    A left join that finds no match keeps the row with nulls for the new stream.

    Bad configuration raises ``TypeError``/``ValueError`` at once, naming the
    method and the value; a missing ``select`` and a ``select`` naming a stream
    outside the join are refused when the topology (or harness) is built. At run
    time a tuple from a stream outside the join, or whose join or selected field
    goes through a value that is not a mapping, is rejected with
    :class:`bolts.TupleError`: onto the error stream (``with_error_stream``,
    once, in the first window that holds it) and left out of every join, or,
    without one, the batch fails.
    """

    class Selector(enum.Enum):
        """How a tuple's stream name is found: its stream id (``STREAM``) or its source component (``SOURCE``)."""

        STREAM = "stream"
        SOURCE = "source"

    _spec: _Spec
    _selector: JoinBolt.Selector
    _component: str = ""

    @overload
    def __init__(self, src_or_stream_id: str, field_name: str, /) -> None: ...

    @overload
    def __init__(self, selector: JoinBolt.Selector, src_or_stream_id: str, field_name: str, /) -> None: ...

    def __init__(self, *args: Any) -> None:
        if len(args) == 2 and not isinstance(args[0], JoinBolt.Selector):
            selector, (first, field) = JoinBolt.Selector.SOURCE, args
        elif len(args) == 3:
            selector, first, field = args
            if not isinstance(selector, JoinBolt.Selector):
                msg = (f"JoinBolt: `selector` must be JoinBolt.Selector.STREAM or JoinBolt.Selector.SOURCE; "
                       f"got {selector!r} ({type(selector).__name__}) instead")
                raise TypeError(msg)
        else:
            msg = ("JoinBolt: expects (src_or_stream_id, field_name) or (selector, src_or_stream_id, field_name); "
                   f"got {_SHORT.repr(args)}")
            raise TypeError(msg)
        first = _require_str("JoinBolt", "src_or_stream_id", first)
        field = _require_str("JoinBolt", "field_name", field)
        self._selector = selector
        self._spec = _Spec((_Clause(first, _join_field("JoinBolt", first, field)),))

    # Configuration ------------------------------------------------------------------------------
    @property
    def selector(self) -> JoinBolt.Selector:
        """Whether stream names are stream ids or source components."""
        return self._selector

    @property
    def streams(self) -> tuple[str, ...]:
        """The joined streams, in join order."""
        return tuple(c.stream for c in self._spec.clauses)

    def join(self, new_stream: str, field: str, prior_stream: str) -> Self:
        """Inner join: ``... inner join new_stream on new_stream.field = prior_stream.<its join field>``.

        ``prior_stream`` must already be in the join (given to the constructor or
        to an earlier join); ``new_stream`` must not be. ``field`` may be nested
        (``outer.inner``, through mappings) but names no stream.
        """
        return self._add(_Kind.INNER, new_stream, field, prior_stream)

    def left_join(self, new_stream: str, field: str, prior_stream: str) -> Self:
        """Left join: as :meth:`join`, but a row with no match in ``new_stream`` is kept, its fields null."""
        return self._add(_Kind.LEFT, new_stream, field, prior_stream)

    def _add(self, kind: _Kind, new_stream: str, field: str, prior_stream: str) -> Self:
        method = kind.value
        new_stream = _require_str(method, "new_stream", new_stream)
        field = _require_str(method, "field", field)
        prior_stream = _require_str(method, "prior_stream", prior_stream)
        names = self.streams
        joined = ", ".join(map(repr, names))
        if new_stream in names:
            msg = f"{method}: stream {new_stream!r} is already part of the join ({joined}); join a stream only once"
            raise ValueError(msg)
        same = [s for s in names if s.casefold() == new_stream.casefold()]
        if same:
            msg = (f"{method}: stream {new_stream!r} differs only in case from {same[0]!r}, already in the join; "
                   "'stream:field' names ignore case (as Storm's), so the two could not be told apart")
            raise ValueError(msg)
        if prior_stream not in names:
            msg = (f"{method}: prior stream {prior_stream!r} is not part of the join yet; the join has {joined}; "
                   "a stream must be introduced (by the constructor, join or left_join) before it is joined with")
            raise ValueError(msg)
        clause = _Clause(new_stream, _join_field(method, new_stream, field), names.index(prior_stream), kind)
        self._spec = replace(self._spec, clauses=(*self._spec.clauses, clause))
        return self

    def select(self, comma_separated_keys: str) -> Self:
        """The output fields, comma separated: ``"userId, ads:userId, outer.inner"`` (required).

        A ``stream:field`` reads only that stream's tuples and is named
        ``stream:field`` in the output; a plain ``field`` (or ``outer.inner``)
        reads every stream and is named as written. Names must be distinct and
        non-empty; a stream named here must be part of the join (checked when the
        topology is built).
        """
        if not isinstance(comma_separated_keys, str):
            msg = (f"select: `comma_separated_keys` must be a str like 'userId, ads:userId'; got "
                   f"{_SHORT.repr(comma_separated_keys)} ({type(comma_separated_keys).__name__}) instead")
            raise TypeError(msg)
        items = [item.strip() for item in comma_separated_keys.split(",")]
        for n, item in enumerate(items, 1):
            if not item:
                msg = (f"select: field {n} of {comma_separated_keys!r} is empty; give field names separated by "
                       "commas, like 'userId, ads:userId'")
                raise ValueError(msg)
        fields = tuple(_select_field(item, comma_separated_keys) for item in items)
        names = [f.name for f in fields]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            msg = (f"select: {', '.join(map(repr, twice))} selected more than once in {comma_separated_keys!r}; "
                   "output field names must be distinct (qualify them as 'stream:field')")
            raise ValueError(msg)
        self._spec = replace(self._spec, select=fields)
        return self

    def with_output_stream(self, stream_name: str) -> Self:
        """Emit the joined rows on ``stream_name`` instead of the default stream."""
        self._spec = replace(self._spec, output_stream=_require_str("with_output_stream", "stream_name", stream_name))
        return self

    def _checked_select(self) -> tuple[_FieldRef, ...]:
        """The selected fields, once checked against the joined streams; ``ValueError`` naming ``select``."""
        fields = self._spec.select
        if fields is None:
            msg = (f"select: the JoinBolt of {', '.join(map(repr, self.streams))} has no output fields; call "
                   ".select('field1, stream2:field2, ...') on it (Storm requires it too)")
            raise ValueError(msg)
        for f in fields:
            if f.stream is not None and not any(f.applies_to(s) for s in self.streams):
                msg = (f"select: {f.name!r} names stream {f.stream!r}, which is not part of the join; "
                       f"the joined streams are: {', '.join(map(repr, self.streams))}")
                raise ValueError(msg)
        return fields

    def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
        """Declare the selected fields on the output stream (``default`` unless ``with_output_stream``)."""
        fields = Fields([f.name for f in self._checked_select()])
        declarer.declare_stream(self._spec.output_stream or DEFAULT_STREAM, fields)

    def prepare(self, conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
        """Keep the collector and the bolt's id (for error messages); refuse a bolt with no ``select``."""
        super().prepare(conf, context, collector)
        self._checked_select()
        self._component = context.get_this_component_id() if context is not None else ""

    # Joining ------------------------------------------------------------------------------------
    def execute(self, window: TupleWindow[Any]) -> None:
        """Join the window's tuples and emit each joined row, anchored to the tuples it is made of."""
        stream = self._spec.output_stream or DEFAULT_STREAM
        for row in self._join(self._read_window(window)):
            tuples = [e.tup for e in row if e is not None]
            self.collector.emit(stream, tuples, self._project(row))

    def _stream_of(self, tup: Tuple) -> str:
        if self._selector is JoinBolt.Selector.STREAM:
            return tup.get_source_stream_id()
        return tup.get_source_component()

    def _read_window(self, window: TupleWindow[Any]) -> list[list[_Entry]]:
        """The window's tuples read once, per clause in window order; a tuple that cannot be read is rejected."""
        clauses = self._spec.clauses
        position = {c.stream: i for i, c in enumerate(clauses)}
        entries: list[list[_Entry]] = [[] for _ in clauses]
        new: set[int] | None = None
        for tup in window.get():
            try:
                i = position.get(self._stream_of(tup))
                if i is None:
                    raise TupleError(self._unknown_stream(tup))
                entries[i].append(self._entry(tup, clauses[i], keyed=len(clauses) > 1))
            except TupleError as error:
                if new is None:
                    new = self._new_ids(window)
                self._reject(tup, error, new)
        return entries

    def _entry(self, tup: Tuple, clause: _Clause, keyed: bool) -> _Entry:
        """``tup``'s join key (None: matches nothing) and selected values; ``TupleError`` when one cannot be read."""
        key = None
        if keyed:
            key = self._read(tup, clause.key, "join field")
            if key is not None:
                try:
                    key = _hashable(key)
                except TypeError:
                    msg = (f"JoinBolt: bolt {self._component!r} joins on field {clause.key.name!r}, whose value "
                           f"{_SHORT.repr(key)} ({type(key).__name__}) cannot be compared as a key; "
                           f"tuple: {_SHORT.repr(tup)}")
                    raise TupleError(msg) from None
        fields = self._spec.select or ()
        picked = tuple(self._read(tup, f, "selected field") if f.applies_to(clause.stream) else None for f in fields)
        return _Entry(tup, key, picked)

    def _read(self, tup: Tuple, field: _FieldRef, what: str) -> Any:
        try:
            return _read(tup, field.path)
        except _Unreadable as bad:
            msg = (f"JoinBolt: bolt {self._component!r} reads {what} {'.'.join(field.path)!r}, but {bad.prefix!r} "
                   f"holds {_SHORT.repr(bad.value)} ({type(bad.value).__name__}), which is not a mapping; "
                   f"tuple: {_SHORT.repr(tup)}")
            raise TupleError(msg) from None

    def _unknown_stream(self, tup: Tuple) -> str:
        source = self._selector is JoinBolt.Selector.SOURCE
        what = "source component" if source else "stream"
        hint = ""
        other = tup.get_source_stream_id() if source else tup.get_source_component()
        if other in self.streams:
            hint = f" (its {'stream' if source else 'source component'} is {other!r}: did you mean " \
                   f"JoinBolt.Selector.{'STREAM' if source else 'SOURCE'}?)"
        return (f"JoinBolt: bolt {self._component!r} got a tuple from {what} {self._stream_of(tup)!r}, which is not "
                f"part of the join ({', '.join(map(repr, self.streams))}){hint}; tuple: {_SHORT.repr(tup)}")

    @staticmethod
    def _new_ids(window: TupleWindow[Any]) -> set[int] | None:
        """The ids of the tuples new in this window (None when the window does not track them)."""
        if not getattr(window, "tracks_changes", False):
            return None
        return {id(t) for t in window.get_new()}

    def _reject(self, tup: Tuple, error: TupleError, new: set[int] | None) -> None:
        """Onto the error stream the first time the tuple is in a window; without an error stream, raise."""
        stream = self.error_stream
        if stream is None:
            raise error
        if new is None or id(tup) in new:
            self.collector.emit(stream, [tup, self._component, str(error)])

    def _join(self, entries: list[list[_Entry]]) -> list[list[_Entry | None]]:
        """The joined rows (one slot per clause, None for a left join's miss), in join order."""
        rows: list[list[_Entry | None]] = [[e] for e in entries[0]]
        for i, clause in enumerate(self._spec.clauses[1:], 1):
            table: defaultdict[Hashable, list[_Entry]] = defaultdict(list)
            for e in entries[i]:
                if e.key is not None:
                    table[e.key].append(e)
            joined: list[list[_Entry | None]] = []
            for row in rows:
                prior = row[clause.prior]  # type: ignore[index]
                if prior is None or prior.key is None:
                    continue  # no key to join on: the row is dropped (in a left join too), as in Storm
                matches = table.get(prior.key)
                if matches:
                    joined.extend([*row, m] for m in matches)
                elif clause.kind is _Kind.LEFT:
                    joined.append([*row, None])
            rows = joined
        return rows

    def _project(self, row: Sequence[_Entry | None]) -> list[Any]:
        """Each selected field's first non-null value in join order (None when every tuple lacks it)."""
        present = [e for e in row if e is not None]
        count = len(self._spec.select or ())
        return [next((e.picked[j] for e in present if e.picked[j] is not None), None) for j in range(count)]
