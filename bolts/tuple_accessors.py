"""Storm's typed tuple getters in Python spelling: ``get_string(i)``, ``get_long_by_field("n")`` and the rest.

Java's getters cast, and a value of another type is a ``ClassCastException``;
here it is a ``TypeError`` naming the getter, the field and the value. The
integer getters take Python ints (not bools); ``get_short`` and ``get_byte``
also check Java's range. ``get_double`` and ``get_float`` take ints as well
as floats and return a float, since JSON and CSV sources give a whole number
as an int. ``None`` (a null column) passes every getter, as a null passes
Java's casts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any


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

    def _typed(self, kind: str, where: str | int) -> Any:
        value = self[where]
        if value is None:
            return None
        expected, check, convert = _GETTERS[kind]
        if not check(value):
            by = "_by_field" if isinstance(where, str) else ""
            msg = (f"Tuple.get_{kind}{by}({where!r}): the value {value!r} ({type(value).__name__}) is not {expected}; "
                   f"the tuple: {self!r}")
            raise TypeError(msg)
        return value if convert is None else convert(value)

    def get_values(self) -> list[Any]:
        """Storm's ``getValues``: the values as a list."""
        return list(self.values)

    def size(self) -> int:
        """Storm's ``size``: how many values the tuple has."""
        return len(self.values)

    def select(self, selector: Iterable[str]) -> list[Any]:
        """Storm's ``select``: the values of ``selector``'s fields, in its order."""
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
        return self._typed("string", i)

    def get_integer(self, i: int) -> int | None:
        """Storm's ``getInteger``."""
        return self._typed("integer", i)

    def get_long(self, i: int) -> int | None:
        """Storm's ``getLong``."""
        return self._typed("long", i)

    def get_short(self, i: int) -> int | None:
        """Storm's ``getShort``."""
        return self._typed("short", i)

    def get_byte(self, i: int) -> int | None:
        """Storm's ``getByte``."""
        return self._typed("byte", i)

    def get_double(self, i: int) -> float | None:
        """Storm's ``getDouble``."""
        return self._typed("double", i)

    def get_float(self, i: int) -> float | None:
        """Storm's ``getFloat``."""
        return self._typed("float", i)

    def get_boolean(self, i: int) -> bool | None:
        """Storm's ``getBoolean``."""
        return self._typed("boolean", i)

    def get_binary(self, i: int) -> bytes | None:
        """Storm's ``getBinary``."""
        return self._typed("binary", i)

    def get_string_by_field(self, field: str) -> str | None:
        """Storm's ``getStringByField``."""
        return self._typed("string", field)

    def get_integer_by_field(self, field: str) -> int | None:
        """Storm's ``getIntegerByField``."""
        return self._typed("integer", field)

    def get_long_by_field(self, field: str) -> int | None:
        """Storm's ``getLongByField``."""
        return self._typed("long", field)

    def get_short_by_field(self, field: str) -> int | None:
        """Storm's ``getShortByField``."""
        return self._typed("short", field)

    def get_byte_by_field(self, field: str) -> int | None:
        """Storm's ``getByteByField``."""
        return self._typed("byte", field)

    def get_double_by_field(self, field: str) -> float | None:
        """Storm's ``getDoubleByField``."""
        return self._typed("double", field)

    def get_float_by_field(self, field: str) -> float | None:
        """Storm's ``getFloatByField``."""
        return self._typed("float", field)

    def get_boolean_by_field(self, field: str) -> bool | None:
        """Storm's ``getBooleanByField``."""
        return self._typed("boolean", field)

    def get_binary_by_field(self, field: str) -> bytes | None:
        """Storm's ``getBinaryByField``."""
        return self._typed("binary", field)
