"""Storm's typed tuple getters in Python spelling: ``get_string(i)``, ``get_long_by_field("n")`` and the rest.

Java's getters cast, and a value of another type is a ``ClassCastException``;
here it is a ``TypeError`` naming the getter, the field and the value. The
integer getters take Python ints (not bools) within their Java type's range.
A position must be an int from 0 to ``size() - 1`` (Java's getters take no
negative index and no name), a field a str. ``get_double`` and ``get_float`` take ints as well
as floats and return a float, since JSON and CSV sources give a whole number
as an int. ``None`` (a null column) passes every getter, as a null passes
Java's casts.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

_SHORT = reprlib.Repr()  # a value or a tuple in an error message, cut short
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict = 60, 200, 8, 8


def _string(value: Any) -> bool:
    return isinstance(value, str)


def _integer(low: int, high: int) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _boolean(value: Any) -> bool:
    return isinstance(value, bool)


def _binary(value: Any) -> bool:
    return isinstance(value, bytes | bytearray)


# getter name (Storm's, spelled) -> (what the value must be, its check, a conversion or None)
_GETTERS: dict[str, tuple[str, Callable[[Any], bool], Callable[[Any], Any] | None]] = {
    "string": ("a str", _string, None),
    "integer": ("an int within Java's int range", _integer(-(2**31), 2**31 - 1), None),
    "long": ("an int within Java's long range", _integer(-(2**63), 2**63 - 1), None),
    "short": ("an int within Java's short range", _integer(-(2**15), 2**15 - 1), None),
    "byte": ("an int within Java's byte range", _integer(-(2**7), 2**7 - 1), None),
    "double": ("a float or an int", _number, float),
    "float": ("a float or an int", _number, float),
    "boolean": ("a bool", _boolean, None),
    "binary": ("bytes", _binary, bytes),
}


class StormAccessors:
    """The getters of Storm's ``ITuple`` and ``Tuple``; mixed into :class:`bolts.Tuple`."""

    __slots__ = ()
    values: tuple[Any, ...]

    if TYPE_CHECKING:

        @property
        def stream(self) -> str:
            """The stream the tuple was emitted on (:class:`bolts.Tuple` gives it)."""

        @property
        def source_component(self) -> str:
            """The component that emitted the tuple."""

        @property
        def source_task(self) -> int:
            """The index of the task that emitted the tuple."""

        def __getitem__(self, key: str | int) -> Any: ...

    def _typed(self, kind: str, where: str | int, by_field: bool) -> Any:
        method = f"Tuple.get_{kind}{'_by_field' if by_field else ''}({where!r})"
        if by_field and not isinstance(where, str):
            msg = f"{method}: a field name must be a str; got {type(where).__name__}"
            raise TypeError(msg)
        if not by_field:
            if not isinstance(where, int) or isinstance(where, bool):
                msg = f"{method}: a position must be an int; got {type(where).__name__} (a field name goes to the " \
                      f"get_{kind}_by_field getter)"
                raise TypeError(msg)
            if not 0 <= where < len(self.values):
                msg = f"{method}: no position {where}; the tuple has {len(self.values)} values"
                raise IndexError(msg)
        value = self[where]
        if value is None:
            return None
        expected, check, convert = _GETTERS[kind]
        if not check(value):
            msg = (f"{method}: the value {_SHORT.repr(value)} ({type(value).__name__}) is not {expected}; the tuple: "
                   f"{_SHORT.repr(self)}")
            raise TypeError(msg)
        return value if convert is None else convert(value)

    def get_values(self) -> list[Any]:
        """Storm's ``getValues``: the values as a list."""
        return list(self.values)

    def size(self) -> int:
        """Storm's ``size``: how many values the tuple has."""
        return len(self.values)

    def select(self, selector: Iterable[str]) -> list[Any]:
        """Storm's ``select``: the values of ``selector``'s fields (a :class:`bolts.Fields`), in its order."""
        if isinstance(selector, str):
            msg = f"Tuple.select({selector!r}): give the fields as Fields({selector!r}), not a str"
            raise TypeError(msg)
        return [self[name] for name in selector]

    def get_source_component(self) -> str:
        """Storm's ``getSourceComponent``: the component that emitted the tuple."""
        return self.source_component

    def get_source_stream_id(self) -> str:
        """Storm's ``getSourceStreamId``: the stream the tuple was emitted on."""
        return self.stream

    def get_source_task(self) -> int:
        """Storm's ``getSourceTask``: the index of the task that emitted the tuple."""
        return self.source_task

    def get_source_global_stream_id(self) -> tuple[str, str]:
        """Storm's ``getSourceGlobalStreamId``: ``(component, stream)``."""
        return (self.source_component, self.stream)

    def get_string(self, i: int) -> str | None:
        """Storm's ``getString``."""
        return self._typed("string", i, by_field=False)

    def get_integer(self, i: int) -> int | None:
        """Storm's ``getInteger``."""
        return self._typed("integer", i, by_field=False)

    def get_long(self, i: int) -> int | None:
        """Storm's ``getLong``."""
        return self._typed("long", i, by_field=False)

    def get_short(self, i: int) -> int | None:
        """Storm's ``getShort``."""
        return self._typed("short", i, by_field=False)

    def get_byte(self, i: int) -> int | None:
        """Storm's ``getByte``."""
        return self._typed("byte", i, by_field=False)

    def get_double(self, i: int) -> float | None:
        """Storm's ``getDouble``."""
        return self._typed("double", i, by_field=False)

    def get_float(self, i: int) -> float | None:
        """Storm's ``getFloat``."""
        return self._typed("float", i, by_field=False)

    def get_boolean(self, i: int) -> bool | None:
        """Storm's ``getBoolean``."""
        return self._typed("boolean", i, by_field=False)

    def get_binary(self, i: int) -> bytes | None:
        """Storm's ``getBinary``."""
        return self._typed("binary", i, by_field=False)

    def get_string_by_field(self, field: str) -> str | None:
        """Storm's ``getStringByField``."""
        return self._typed("string", field, by_field=True)

    def get_integer_by_field(self, field: str) -> int | None:
        """Storm's ``getIntegerByField``."""
        return self._typed("integer", field, by_field=True)

    def get_long_by_field(self, field: str) -> int | None:
        """Storm's ``getLongByField``."""
        return self._typed("long", field, by_field=True)

    def get_short_by_field(self, field: str) -> int | None:
        """Storm's ``getShortByField``."""
        return self._typed("short", field, by_field=True)

    def get_byte_by_field(self, field: str) -> int | None:
        """Storm's ``getByteByField``."""
        return self._typed("byte", field, by_field=True)

    def get_double_by_field(self, field: str) -> float | None:
        """Storm's ``getDoubleByField``."""
        return self._typed("double", field, by_field=True)

    def get_float_by_field(self, field: str) -> float | None:
        """Storm's ``getFloatByField``."""
        return self._typed("float", field, by_field=True)

    def get_boolean_by_field(self, field: str) -> bool | None:
        """Storm's ``getBooleanByField``."""
        return self._typed("boolean", field, by_field=True)

    def get_binary_by_field(self, field: str) -> bytes | None:
        """Storm's ``getBinaryByField``."""
        return self._typed("binary", field, by_field=True)
