"""Tuple values as bytes (msgpack, never pickle): how they travel between tasks and into a state backend.

Plain values are what :mod:`state_backends.serialization` supports (None, bool,
int, float, str, bytes, lists and dicts). Extension types go further, each
coming back as an equal value of its own type: a :class:`bolts.Tuple` (a late
tuple travels wrapped in the field ``late_tuple``; tuples inside tuples nest),
a ``datetime``/``date`` (Spark timestamp and date columns; the time zone is
kept: a ``zoneinfo.ZoneInfo`` by its key, any other zone as its UTC offset,
``datetime.UTC`` as itself, so a value is the same object in every placement),
a :class:`windowing.panes.PaneInfo` (the ``pane`` field of a windowed
aggregation), an instance of a dataclass, and an instance of a class
registered with :func:`register_class` (Storm's Kryo registration:
``Config.register_serialization``). Other tuples come back as lists. Anything
else raises ``TypeError`` naming the value, unless the topology sets
``topology.fall.back.on.java.serialization``: then it travels as its pickle
(:mod:`bolts.codecs.pickle_fallback`, Storm's fall-back on Java serialization).

Objects travel as their class's name and plain data, never as pickle (but
under the fall-back key): a registered class is rebuilt by its ``from_data`` function (or, registered
without functions, from its ``__dict__``); a dataclass is rebuilt field by
field without calling ``__init__``, as Kryo does, and only if its module is
already imported in the reading process (the module defining the bolts is), so
data read back from a store never makes a process import anything.
"""

from __future__ import annotations

import dataclasses
import struct
import sys
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

import msgpack

from bolts.codecs import pickle_fallback
from bolts.codecs.pickle_fallback import FALL_BACK_KEY, PICKLE_EXT
from bolts.tuples import Fields, Tuple
from windowing.panes import PaneInfo

TUPLE_EXT = 1
DATETIME_EXT = 2
DATE_EXT = 3
PANE_EXT = 4
OBJECT_EXT = 5
UTC_DATETIME_EXT = 7  # 6 is the pickle fall-back's

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_MICROS = struct.Struct(">q")


class Registration(NamedTuple):
    """A class registered to travel: its name, and its functions to and from plain data (None: its ``__dict__``)."""

    cls: type
    name: str
    to_data: Callable[[Any], Any] | None
    from_data: Callable[[Any], Any] | None


_BY_TYPE: dict[type, Registration] = {}
_BY_NAME: dict[str, Registration] = {}


def class_name(cls: type) -> str:
    """The name a class travels under: ``module:qualname``."""
    return f"{cls.__module__}:{cls.__qualname__}"


def register_class(
    cls: type, to_data: Callable[[Any], Any] | None = None, from_data: Callable[[Any], Any] | None = None,
) -> None:
    """Let instances of ``cls`` travel between tasks and into stores, in this process.

    With ``to_data``/``from_data`` (both or neither) an instance travels as
    ``to_data(obj)``, which must be plain data (or other travelling values),
    and comes back as ``from_data(data)``; without them, as its ``__dict__``
    set on a new instance (``__init__`` is not called). Registering the same
    class again replaces its functions; ``TypeError`` for a non-class, one
    function without the other, or a class without ``__dict__`` and no functions.
    """
    who = "register_serialization"
    if not isinstance(cls, type):
        msg = f"{who}: `cls` must be a class; got {cls!r:.120} instead"
        raise TypeError(msg)
    if (to_data is None) != (from_data is None) or any(
        f is not None and not callable(f) for f in (to_data, from_data)
    ):
        msg = (f"{who}: give both functions (to_data, from_data) for {cls.__qualname__}, or neither; "
               f"got {to_data!r:.80}, {from_data!r:.80}")
        raise TypeError(msg)
    if to_data is None and "__dict__" not in dir(cls):
        msg = f"{who}: {cls.__qualname__} has no __dict__ (slots?); give to_data and from_data functions"
        raise TypeError(msg)
    registration = Registration(cls, class_name(cls), to_data, from_data)
    _BY_TYPE[cls] = _BY_NAME[registration.name] = registration


#: Storm's ``TOPOLOGY_KRYO_REGISTER``: ``Config.register_serialization`` lists ``[cls, to_data, from_data]`` there.
REGISTER_KEY = "topology.kryo.register"


def register_from_conf(conf: Any) -> None:
    """Register, in this process, the classes ``conf`` lists under :data:`REGISTER_KEY` (Java class names are skipped).

    Every process that runs tasks or reads their emissions calls it with the
    topology's conf, so a class registered on the driver travels to and from
    Spark's executors. It also sets this process's pickle fall-back from
    :data:`~bolts.codecs.pickle_fallback.FALL_BACK_KEY`: on when ``conf`` sets
    the key to True, off otherwise (a conf without it turns it off again).
    """
    pickle_fallback.set_fall_back(pickle_fallback.wants_fall_back(conf))
    for entry in (conf or {}).get(REGISTER_KEY) or ():
        if isinstance(entry, list | tuple) and len(entry) == 3 and isinstance(entry[0], type):
            register_class(*entry)


def object_extension(value: Any, pack: Callable[[Any], bytes] | None = None) -> msgpack.ExtType | None:
    """The extension of an instance of a registered class or a dataclass (its body packed by ``pack``); else None."""
    kind = type(value)
    pack = pack or pack_value
    registration = _BY_TYPE.get(kind)
    if registration is not None:
        to_data = registration.to_data
        body = to_data(value) if to_data is not None else dict(vars(value))
        return msgpack.ExtType(OBJECT_EXT, pack([registration.name, body]))
    if dataclasses.is_dataclass(kind):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(kind)}
        return msgpack.ExtType(OBJECT_EXT, pack([class_name(kind), fields]))
    return None


def object_from(data: bytes, unpack: Callable[[bytes], Any] | None = None) -> Any:
    """The object :func:`object_extension` packed; ``TypeError`` naming a class this process cannot rebuild."""
    name, body = (unpack or unpack_value)(data)
    registration = _BY_NAME.get(name)
    if registration is not None:
        if registration.from_data is not None:
            return registration.from_data(body)
        return _with_attributes(registration.cls, body)
    cls = _imported_class(name)
    if cls is None or not dataclasses.is_dataclass(cls):
        msg = (
            f"cannot rebuild an object of class {name!r}: it is neither registered in this process "
            "(Config.register_serialization) nor a dataclass of an imported module"
        )
        raise TypeError(msg)
    return _with_attributes(cls, body)


def _with_attributes(cls: type, attributes: dict[str, Any]) -> Any:
    obj = cls.__new__(cls)
    for key, value in attributes.items():
        object.__setattr__(obj, key, value)  # frozen dataclasses too
    return obj


def _imported_class(name: str) -> type | None:
    """The class ``module:qualname`` names, from an already imported module only (never importing)."""
    module_name, _, qualname = name.partition(":")
    found: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found if isinstance(found, type) else None


def extension(value: Any) -> msgpack.ExtType | None:
    """The extension type of a ``Tuple``, ``PaneInfo``, ``datetime`` or ``date``; None for any other value.

    A ``datetime`` in ``datetime.UTC`` (what a Spark timestamp column gives, the
    most common by far) is its microseconds since the epoch in 8 bytes; any
    other ``datetime`` is its text (:func:`_datetime_text`), which keeps its zone.
    """
    if type(value) is datetime and value.tzinfo is UTC:  # fold means nothing in UTC (nor does ISO text keep it)
        return msgpack.ExtType(UTC_DATETIME_EXT, _MICROS.pack((value - _EPOCH) // _MICROSECOND))
    if isinstance(value, Tuple):
        body = [list(value.values), value.fields.to_list(), value.stream, value.source_component, value.source_task]
        return msgpack.ExtType(TUPLE_EXT, pack_value(body))
    if isinstance(value, PaneInfo):
        return _pane_extension(value)
    if isinstance(value, datetime):
        return msgpack.ExtType(DATETIME_EXT, _datetime_text(value).encode("utf-8"))
    if isinstance(value, date):
        return msgpack.ExtType(DATE_EXT, value.isoformat().encode("utf-8"))
    return object_extension(value)


def _datetime_text(value: datetime) -> str:
    """ISO 8601 with the offset, then ``[key]`` (RFC 9557's zone suffix) for a ``ZoneInfo`` zone.

    The offset alone would bring a ``ZoneInfo`` back as a fixed offset: a
    datetime a bolt made with ``ZoneInfo("Europe/Paris")`` would then differ
    between driver mode (the object itself) and distributed mode (sent between
    tasks), and an hour's arithmetic on it across a DST change would too.
    """
    text = value.isoformat()
    zone = value.tzinfo
    return f"{text}[{zone.key}]" if isinstance(zone, ZoneInfo) else text


def _datetime_of(text: str) -> datetime:
    """What :func:`_datetime_text` wrote: in its ``ZoneInfo`` zone when it names one, the same wall time and fold.

    The wall time is put back in the zone as it was (not the instant moved into
    it), so a time a DST gap skips comes back as it was made; of the two folds,
    the one whose offset is the written one.
    """
    if not text.endswith("]"):
        return datetime.fromisoformat(text)
    text, key = text[:-1].split("[", 1)
    written = datetime.fromisoformat(text)
    value = written.replace(tzinfo=ZoneInfo(key))
    return value if value.utcoffset() == written.utcoffset() else value.replace(fold=1)


_PANE_EXTS: dict[PaneInfo, msgpack.ExtType] = {}  # few panes differ: each one's extension is packed once
_MOST_PANE_EXTS = 4096


def _pane_extension(pane: PaneInfo) -> msgpack.ExtType:
    """The extension type of a ``PaneInfo`` (equal panes share one, packed once)."""
    ext = _PANE_EXTS.get(pane)
    if ext is None:
        if len(_PANE_EXTS) >= _MOST_PANE_EXTS:
            _PANE_EXTS.clear()
        ext = _PANE_EXTS[pane] = msgpack.ExtType(PANE_EXT, pack_value(list(pane)))
    return ext


def _default(value: Any) -> Any:
    """What msgpack cannot pack as it is; with strict types this includes every subclass of a plain type."""
    if type(value) is PaneInfo:  # every pane a windowed bolt emits: the most common by far
        return _pane_extension(value)
    ext = extension(value)
    if ext is not None:
        return ext
    for plain, convert in _PLAIN:
        if isinstance(value, plain):
            return convert(value)
    if pickle_fallback.fall_back_enabled():
        return pickle_fallback.pickled_extension(value)
    msg = (
        f"cannot send {value!r:.200} ({type(value).__name__}) between tasks or store it: values must be "
        "None, bool, int, float, str, bytes, datetime, date, Tuple, PaneInfo, dataclasses, classes registered "
        f"with Config.register_serialization, or lists and dicts of these; or set {FALL_BACK_KEY} "
        "(Config.set_fall_back_on_java_serialization(True)) to send other objects by pickle"
    )
    raise TypeError(msg)


# Tuples and subclasses of plain types (named tuples, str and int enums, ...) travel as their plain value.
_PLAIN: tuple[tuple[type | tuple[type, ...], Any], ...] = (
    ((tuple, list), list),
    (dict, dict),
    (str, str.__str__),
    (int, int),
    (float, float),
    ((bytes, bytearray, memoryview), bytes),
)


def from_extension(code: int, data: bytes) -> Any:
    """The value :func:`extension` (or the pickle fall-back) packed as ``(code, data)``.

    A pickled object is unpickled only when this process's fall-back is on
    (``TypeError`` naming the key otherwise); other codes come back as an
    inert ``ExtType``.
    """
    if code == TUPLE_EXT:
        values, fields, stream, source, source_task = unpack_value(data)
        return Tuple(values, Fields(fields), stream, source, source_task)
    if code == UTC_DATETIME_EXT:
        return _EPOCH + timedelta(microseconds=_MICROS.unpack(data)[0])
    if code == DATETIME_EXT:
        return _datetime_of(data.decode("utf-8"))
    if code == DATE_EXT:
        return date.fromisoformat(data.decode("utf-8"))
    if code == PANE_EXT:
        return PaneInfo.from_data(unpack_value(data))
    if code == OBJECT_EXT:
        return object_from(data)
    if code == PICKLE_EXT:
        return pickle_fallback.unpickled(data)
    return msgpack.ExtType(code, data)


def untravelled_arrow_type(kind: Any) -> Any:
    """The first type in Arrow type ``kind`` (nested ones searched) whose values cannot be packed; None if all can.

    Numbers, strings, binaries, booleans, nulls, timestamps of microseconds or
    coarser and dates always can, and lists, structs, maps and dictionaries of
    them. A decimal, a time of day or a duration can when its Python value can
    (a registered class, or the pickle fall-back). Nanosecond timestamps,
    times and durations cannot (their Python values drop the nanoseconds, or
    are pandas' own classes), nor can any other type (intervals, unions, views,
    extension types).
    """
    import pyarrow as pa

    t = pa.types
    if (t.is_timestamp(kind) or t.is_time(kind) or t.is_duration(kind)) and kind.unit == "ns":
        return kind
    if (t.is_null(kind) or t.is_boolean(kind) or t.is_integer(kind) or t.is_floating(kind) or t.is_string(kind)
            or t.is_large_string(kind) or t.is_binary(kind) or t.is_large_binary(kind)
            or t.is_fixed_size_binary(kind) or t.is_timestamp(kind) or t.is_date(kind)):
        return None
    if t.is_list(kind) or t.is_large_list(kind) or t.is_fixed_size_list(kind):
        return untravelled_arrow_type(kind.value_type)
    if t.is_map(kind):
        return untravelled_arrow_type(kind.key_type) or untravelled_arrow_type(kind.item_type)
    if t.is_struct(kind):
        return next((bad for i in range(kind.num_fields) if (bad := untravelled_arrow_type(kind.field(i).type))), None)
    if t.is_dictionary(kind):
        return untravelled_arrow_type(kind.value_type)
    sample = (Decimal(0) if t.is_decimal(kind) else time(0) if t.is_time(kind)
              else timedelta(0) if t.is_duration(kind) else None)
    if sample is None:
        return kind
    try:
        pack_value(sample)
    except TypeError:
        return kind
    return None


def pack_value(value: Any) -> bytes:
    """The bytes of ``value``; ``TypeError`` naming a value of an unsupported type."""
    try:
        return msgpack.packb(value, default=_default, use_bin_type=True, strict_types=True)
    except (OverflowError, ValueError) as exc:
        msg = f"cannot send {value!r:.200} between tasks or store it: {exc}"
        raise TypeError(msg) from None


def value_pack_function() -> Callable[[Any], bytes]:
    """A function that packs as :func:`pack_value` does, with one ``Packer`` for its many calls.

    For a run of values packed one after another in one thread (a commit's
    windows): it saves building a packer per value. Not re-entrant: an
    extension that packs values inside uses :func:`pack_value`, never this.
    """
    packer = msgpack.Packer(default=_default, use_bin_type=True, strict_types=True)

    def pack(value: Any) -> bytes:
        try:
            return packer.pack(value)  # type: ignore[no-any-return]  # a failed value leaves nothing behind
        except (OverflowError, ValueError) as exc:
            msg = f"cannot send {value!r:.200} between tasks or store it: {exc}"
            raise TypeError(msg) from None

    return pack


def value_packer() -> msgpack.Packer:
    """A msgpack ``Packer`` that writes what :func:`pack_value` writes, one value at a time.

    ``autoreset`` is off: read ``bytes()`` at the end. For records built from
    many values without a list of them all.
    """
    return msgpack.Packer(default=_default, use_bin_type=True, strict_types=True, autoreset=False)


def unpack_value(data: bytes) -> Any:
    """The value :func:`pack_value` made ``data`` from."""
    return msgpack.unpackb(data, ext_hook=from_extension, raw=False, use_list=True, strict_map_key=False)
