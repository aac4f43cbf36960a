"""Window lengths and sliding intervals: a number of tuples (`Count`) or of milliseconds (`Duration`).

Both are plain immutable values. They accept any integer so that a bad value can be
reported by the method it was given to (``with_window: ...``); the bolt's
configuration methods check the sign.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta


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


_ONE_MS = timedelta(milliseconds=1)
_MS_PER_UNIT = {"ms": 1, "seconds": 1000, "minutes": 60_000, "hours": 3_600_000, "days": 86_400_000}


@dataclass(frozen=True, slots=True)
class Duration:
    """A span of time in whole milliseconds, as in Storm's ``BaseWindowedBolt.Duration``.

    Wherever squall takes a Duration it also takes a ``datetime.timedelta`` of
    whole milliseconds (:func:`as_duration`).

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

    @classmethod
    def from_timedelta(cls, delta: timedelta) -> Duration:
        """The duration of a ``datetime.timedelta``; ``ValueError`` when it is not a whole number of milliseconds."""
        return as_duration("Duration.from_timedelta", "delta", delta)  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"Duration({self.value})"


def as_duration(method: str, name: str, value: object) -> object:
    """``value`` as a :class:`Duration` when it is a ``timedelta`` (whole milliseconds), else unchanged.

    Every method that takes a Duration takes a ``timedelta`` through this, so
    ``with_lag(timedelta(seconds=5))`` is ``with_lag(Duration.seconds(5))``. A
    ``timedelta`` with a sub-millisecond part raises ``ValueError`` naming
    ``method`` and ``name``; anything else is returned for the caller's own
    type check.
    """
    if not isinstance(value, timedelta):
        return value
    ms, rest = divmod(value, _ONE_MS)
    if rest:
        msg = f"{method}: `{name}` must be a whole number of milliseconds; got {value!r}"
        raise ValueError(msg)
    return Duration(ms)
