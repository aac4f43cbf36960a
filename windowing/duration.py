"""Window lengths and sliding intervals: a number of tuples (`Count`) or of milliseconds (`Duration`).

Both are plain immutable values. They accept any integer so that a bad value can be
reported by the method it was given to (``with_window: ...``); the bolt's
configuration methods check the sign.
"""

from __future__ import annotations

from dataclasses import dataclass


def _require_int(cls_name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        msg = f"{cls_name}: `value` must be an int; got {value!r} ({type(value).__name__}) instead"
        raise TypeError(msg)
    return value


@dataclass(frozen=True, slots=True)
class Count:
    """A number of tuples, as in Storm's ``BaseWindowedBolt.Count``."""

    value: int

    def __post_init__(self) -> None:
        _require_int("Count", self.value)

    @classmethod
    def of(cls, value: int) -> Count:
        """Return ``Count(value)`` (Storm's ``Count.of``)."""
        return cls(value)

    def __repr__(self) -> str:
        return f"Count({self.value})"


_MS_PER_UNIT = {"ms": 1, "seconds": 1000, "minutes": 60_000, "hours": 3_600_000, "days": 86_400_000}


@dataclass(frozen=True, slots=True)
class Duration:
    """A span of time in whole milliseconds, as in Storm's ``BaseWindowedBolt.Duration``.

    ``Duration(1500)`` is 1.5 seconds; the helpers accept fractions as long as the
    result is a whole number of milliseconds (``Duration.seconds(0.25)`` is 250 ms,
    ``Duration.seconds(0.0005)`` is refused).
    """

    value: int

    def __post_init__(self) -> None:
        _require_int("Duration", self.value)

    @property
    def ms(self) -> int:
        """The length in milliseconds."""
        return self.value

    @classmethod
    def _of(cls, amount: float, unit: str) -> Duration:
        if isinstance(amount, bool) or not isinstance(amount, int | float):
            msg = f"Duration.{unit}: `amount` must be a number; got {amount!r} instead"
            raise TypeError(msg)
        ms = amount * _MS_PER_UNIT[unit]
        if ms != int(ms):
            msg = f"Duration.{unit}: {amount!r} {unit} is not a whole number of milliseconds"
            raise ValueError(msg)
        return cls(int(ms))

    @classmethod
    def milliseconds(cls, amount: int) -> Duration:
        """Return a duration of ``amount`` milliseconds."""
        return cls._of(amount, "ms")

    @classmethod
    def seconds(cls, amount: float) -> Duration:
        """Return a duration of ``amount`` seconds."""
        return cls._of(amount, "seconds")

    @classmethod
    def minutes(cls, amount: float) -> Duration:
        """Return a duration of ``amount`` minutes."""
        return cls._of(amount, "minutes")

    @classmethod
    def hours(cls, amount: float) -> Duration:
        """Return a duration of ``amount`` hours."""
        return cls._of(amount, "hours")

    @classmethod
    def days(cls, amount: float) -> Duration:
        """Return a duration of ``amount`` days."""
        return cls._of(amount, "days")

    def __repr__(self) -> str:
        return f"Duration({self.value})"
