"""A bolt's own attributes as stored state: what ``execute`` leaves in them reaches the next batch, wherever it runs.

Every task runs its own copy of the bolt the user configured. When the next
batch of a task may run in another process (distributed mode, or any restart
from a store), the copy there is built afresh: the configured bolt, then
``prepare()``. :class:`InstanceFields` makes the attributes come back as the
last commit left them. At each commit it sorts the bolt's attributes into:

- **plain data** (:func:`encode_field`: None, bool, int, float, str, bytes,
  datetime, date, timedelta, Decimal, ``Tuple``, and lists, tuples, dicts,
  sets, frozensets, deques, ``Counter``, ``OrderedDict`` and ``defaultdict``
  of these, dataclasses and classes registered with
  ``Config.register_serialization`` holding these): written with the task's commit when it differs from what
  ``prepare()`` left, each attribute under its own key and only when its value
  changed, and set again after ``prepare()`` when the task is rebuilt. Types
  are kept exactly (a ``Counter`` comes back a ``Counter``, a tuple a tuple),
  except that ``bytearray`` and ``memoryview`` come back as ``bytes``; sets
  come back equal but may iterate in another order.
- **the objects the task started with**, not plain data: the collector,
  clients and models that ``prepare()`` (or ``init_state``) built, and
  whatever the configured bolt already held (set in ``__init__`` or by the
  ``with_*`` methods). Not
  written: a rebuilt task gets them again from the configured bolt and by
  calling ``prepare()``, as Storm deserialises the bolt and calls ``prepare``
  on a new worker. Changes made *inside* such an object after ``prepare()``
  are not carried (keep that state in plain data or user state).
- anything else, an attribute bound after ``prepare()`` to a value that is not
  plain data: the commit fails with ``TypeError`` naming the bolt and the
  attribute, since no other process could rebuild it.

With ``topology.fall.back.on.java.serialization`` set
(:mod:`bolts.codecs.pickle_fallback`), an object of any other class that pickle
can pickle counts as plain data too, stored as its pickle, when the configured
bolt held it (set in ``__init__``, as a Storm bolt's fields are serialised with
it) or ``execute`` bound it; what ``prepare()`` built stays the task's own, as
without the key, and is never pickled (the collector, clients).
"""

from __future__ import annotations

from collections import Counter, OrderedDict, defaultdict, deque
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import msgpack

from bolts.codecs import pickle_fallback, value_codec
from bolts.tuples import Tuple
from windowing.panes import PaneInfo

#: Key prefix of the attributes in a task's namespace (see topologies.engine.task_store for the other keys).
FIELD_PREFIX = b"f/"

_TUPLE, _SET, _FROZENSET, _DEQUE, _COUNTER, _ORDERED, _DEFAULTDICT, _TIMEDELTA, _DECIMAL, _DELETED_EXT = range(16, 26)
# What the store holds for an attribute prepare() set and execute deleted; no value encodes to it.
_DELETED = msgpack.packb(msgpack.ExtType(_DELETED_EXT, b""))
# The types the value codec packs exactly (subclasses, such as pandas' Timestamp, would come back as their base).
_EXTENSION_TYPES = frozenset({datetime, date, Tuple, PaneInfo})

# defaultdict factories that can be rebuilt from their name: builtins only, never a name looked up at will.
_FACTORIES: dict[str, Callable[[], Any]] = {
    f.__name__: f for f in (int, float, str, bytes, bool, list, dict, set, frozenset, tuple, Counter, OrderedDict)
}

PLAIN_TYPES = (
    "None, bool, int (64 bits), float, str, bytes, datetime, date, timedelta, Decimal, Tuple, and lists, tuples, "
    "dicts, sets, frozensets, deques, Counters, OrderedDicts and defaultdicts (of a builtin type) of these"
)


def _extension(value: Any, pack: Callable[[Any], bytes], fall_back: bool) -> msgpack.ExtType:
    # msgpack packs the exact plain types itself (strict types) and asks here for everything else,
    # subclasses of dict and tuple included, so each comes back as its own type.
    kind = type(value)
    if kind is tuple:
        return msgpack.ExtType(_TUPLE, pack(list(value)))
    if kind is set or kind is frozenset:
        return msgpack.ExtType(_SET if kind is set else _FROZENSET, pack(list(value)))
    if kind is deque:
        return msgpack.ExtType(_DEQUE, pack([value.maxlen, list(value)]))
    if kind is Counter or kind is OrderedDict:
        return msgpack.ExtType(_COUNTER if kind is Counter else _ORDERED, pack(list(value.items())))
    if kind is defaultdict:
        factory = value.default_factory
        name = None if factory is None else getattr(factory, "__name__", None)
        if factory is not None and _FACTORIES.get(name or "") is not factory:
            msg = f"a defaultdict whose default_factory is {factory!r}; only builtin types can be rebuilt"
            raise TypeError(msg)
        return msgpack.ExtType(_DEFAULTDICT, pack([name, list(value.items())]))
    if kind is timedelta:
        return msgpack.ExtType(_TIMEDELTA, pack([value.days, value.seconds, value.microseconds]))
    if kind is Decimal:
        return msgpack.ExtType(_DECIMAL, str(value).encode("ascii"))
    if kind in _EXTENSION_TYPES and not (kind is datetime and not _zone_comes_back(value)):
        return value_codec.extension(value)
    if kind is datetime:
        msg = (
            f"{value!r:.120} has the time zone {value.tzinfo!r}; only fixed offsets (datetime.timezone) and "
            "zoneinfo.ZoneInfo zones come back"
        )
        raise TypeError(msg)
    obj = value_codec.object_extension(value, pack)  # a dataclass, or a class registered to travel
    if obj is not None:
        return obj
    if fall_back:
        return pickle_fallback.pickled_extension(value)
    msg = f"{value!r:.120} ({kind.__name__})"
    raise TypeError(msg)


def _encoder(fall_back: bool) -> Callable[[Any], bytes]:
    """The function packing a value: plain data only, or with objects of other classes pickled (``fall_back``)."""

    def default(value: Any) -> msgpack.ExtType:
        return _extension(value, pack, fall_back)

    def pack(value: Any) -> bytes:
        return msgpack.packb(value, default=default, use_bin_type=True, strict_types=True)

    return pack


_pack = _encoder(False)
_pack_or_pickle = _encoder(True)




def _zone_comes_back(value: datetime) -> bool:
    """Whether the codec rebuilds the zone itself (``value_codec``: a fixed offset, or a ``ZoneInfo`` by key)."""
    return value.tzinfo is None or type(value.tzinfo) in (timezone, ZoneInfo)


def _ext_hook(code: int, data: bytes) -> Any:
    if code == _TUPLE:
        return tuple(_unpack(data))
    if code == _SET:
        return set(_unpack(data))
    if code == _FROZENSET:
        return frozenset(_unpack(data))
    if code == _DEQUE:
        maxlen, items = _unpack(data)
        return deque(items, maxlen)
    if code == _COUNTER:
        return Counter(dict(_unpack(data)))
    if code == _ORDERED:
        return OrderedDict(_unpack(data))
    if code == _DEFAULTDICT:
        name, items = _unpack(data)
        if name is not None and name not in _FACTORIES:
            msg = f"a stored defaultdict names the factory {name!r}, which is not one squall writes"
            raise ValueError(msg)
        return defaultdict(None if name is None else _FACTORIES[name], items)
    if code == _TIMEDELTA:
        return timedelta(*_unpack(data))
    if code == _DECIMAL:
        return Decimal(data.decode("ascii"))
    if code == value_codec.OBJECT_EXT:
        return value_codec.object_from(data, _unpack)
    return value_codec.from_extension(code, data)  # a pickled object too, when the fall-back is on


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, use_list=True, strict_map_key=False)


def encode_field(value: Any, fall_back: bool = False) -> bytes:
    """The bytes of an attribute's value; ``TypeError`` naming the part that is not plain data.

    With ``fall_back`` (and the process's pickle fall-back on) an object of a
    class that is neither plain data, a dataclass nor registered is pickled
    instead of refused; ``TypeError`` still when pickle cannot pickle it.
    """
    try:
        return (_pack_or_pickle if fall_back else _pack)(value)
    except OverflowError:
        msg = f"{value!r:.120} holds an int beyond 64 bits"
        raise TypeError(msg) from None
    except (ValueError, RecursionError) as exc:  # msgpack's limits: nesting depth, sizes
        msg = f"{type(value).__name__} value nested too deeply, or holding itself, or too large ({exc})"
        raise TypeError(msg) from None


def decode_field(data: bytes) -> Any:
    """The value :func:`encode_field` made ``data`` from (an equal value of the same types)."""
    return _unpack(data)


class InstanceFields:
    """The attributes of one task's bolt: which to commit, and setting them again on a rebuilt task.

    Call :meth:`track_prepare` with the task's prepare step, then
    :meth:`restore` with the stored attributes (if any), then :meth:`writes` at
    every commit and :meth:`committed` once the commit is applied.

    Only what differs from the state ``prepare()`` leaves is stored: a value
    ``prepare()`` builds and ``execute`` never changes (a pid, a table loaded
    at start) is built again by the rebuilt task's own ``prepare()``, never
    overwritten by another process's; an attribute deleted since is stored as
    deleted.
    """

    def __init__(self, bolt: Any, component: str) -> None:
        self.bolt = bolt
        self.component = component
        self._opaque: dict[str, Any] = {}  # the attributes that were not plain data right after prepare()
        self._initial: dict[str, bytes] = {}  # the encodings of the plain ones right after prepare()
        self._stored: dict[str, bytes] = {}  # what the store holds, by attribute
        self._pending: dict[str, bytes] = {}  # what it will hold once the last writes() are committed

    def track_prepare(self, prepare: Callable[[], None]) -> None:
        """Run ``prepare`` and remember what each attribute holds after it.

        With the pickle fall-back on, an object that is not plain data but that
        the configured bolt already held before ``prepare`` (the same object)
        is tracked by its pickle when pickle can pickle it; any other object
        that is not plain data is the task's own (never written).
        """
        configured = dict(vars(self.bolt))
        prepare()
        fall_back = pickle_fallback.fall_back_enabled()
        for name, value in vars(self.bolt).items():
            try:
                self._initial[name] = encode_field(value)
                continue
            except TypeError:
                pass
            if fall_back and name in configured and configured[name] is value:
                try:
                    self._initial[name] = encode_field(value, fall_back=True)
                    continue
                except TypeError:
                    pass
            self._opaque[name] = value

    def restore(self, stored: Iterable[tuple[bytes, bytes]]) -> None:
        """Set the attributes of the last commit (``(key, value)`` pairs under :data:`FIELD_PREFIX`) on the bolt."""
        for key, data in stored:
            name = key[len(FIELD_PREFIX) :].decode("utf-8")
            if data == _DELETED:
                self.bolt.__dict__.pop(name, None)
            else:
                setattr(self.bolt, name, decode_field(data))
            self._stored[name] = data

    def writes(self) -> tuple[dict[bytes, bytes], list[bytes]]:
        """The puts and deletes that bring the stored attributes up to date with the bolt's.

        ``TypeError`` naming the bolt and the attribute when one holds a value
        that is not plain data and is not the object (itself not plain data)
        that it held right after ``prepare()``; with the pickle fall-back on,
        only when pickle cannot pickle it either.
        """
        attributes = vars(self.bolt)
        differ: dict[str, bytes] = {name: _DELETED for name in self._initial if name not in attributes}
        for name, value in attributes.items():
            try:
                data = self._encode(name, value)
            except TypeError as exc:
                raise TypeError(self._refusal(name, value, exc)) from None
            if data is None:
                continue  # the task gets it again from the configured bolt and prepare()
            if data != self._initial.get(name):
                differ[name] = data
        puts = {_key(name): data for name, data in differ.items() if self._stored.get(name) != data}
        deletes = [_key(name) for name in self._stored if name not in differ]
        self._pending = differ
        return puts, deletes

    def committed(self) -> None:
        """The writes of the last :meth:`writes` are in the store."""
        self._stored = self._pending

    def _encode(self, name: str, value: Any) -> bytes | None:
        """The bytes of attribute ``name``; None for the object it held right after ``prepare()`` (not written)."""
        try:
            return encode_field(value)
        except TypeError:
            if name in self._opaque and self._opaque[name] is value:
                return None
            if not pickle_fallback.fall_back_enabled():
                raise
        return encode_field(value, fall_back=True)

    def _refusal(self, name: str, value: Any, exc: TypeError) -> str:
        return (
            f"commit: bolt {self.component!r} ({type(self.bolt).__name__}): attribute {name!r} holds "
            f"{value!r:.120} ({type(value).__name__}), which is neither plain data nor the object prepare() "
            f"built ({exc}). A task's next batch may run in another process, rebuilt from the state store: "
            f"its attributes must be plain data ({PLAIN_TYPES}, dataclasses and classes registered with "
            f"Config.register_serialization), or objects that prepare() builds (they are built again there). "
            f"Build it in prepare(), keep plain data in {name!r}, register its classes, or set "
            f"{pickle_fallback.FALL_BACK_KEY} to store it by pickle"
        )


def _key(name: str) -> bytes:
    return FIELD_PREFIX + name.encode("utf-8")


__all__ = ["FIELD_PREFIX", "PLAIN_TYPES", "InstanceFields", "decode_field", "encode_field"]
