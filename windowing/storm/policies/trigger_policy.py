"""The trigger policy contract: decides when a window is evaluated."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Protocol

from windowing.clock import PeriodicTimers
from windowing.storm.event import Event
from windowing.storm.policies.eviction_policy import EvictionPolicy


class TriggerHandler(Protocol):
    """What a trigger calls to evaluate the window (the window manager)."""

    def on_trigger(self) -> bool:
        """Evaluate the window for the eviction policy's context; True if it held tuples."""
        ...


class WindowQueries(Protocol):
    """What watermark triggers ask of the held events (the window manager)."""

    def event_count(self, ts: int) -> int:
        """Number of held events at or before ``ts``."""
        ...

    def earliest_event_ts(self, after: int, up_to: int) -> int | None:
        """Smallest held timestamp in ``(after, up_to]``."""
        ...

    def sliding_count_timestamps(self, after: int, up_to: int, count: int) -> list[int]:
        """Window ends for count windows in event time; see ``EvictionPolicy``."""
        ...


class TriggerPolicy(ABC):
    """Calls ``handler.on_trigger()`` when a window is due, after setting the eviction context.

    A trigger does nothing until :meth:`start` (Storm starts it when the bolt is
    prepared). ``state``/``restore`` carry what must survive a restart.
    """

    def __init__(self, handler: TriggerHandler, eviction: EvictionPolicy) -> None:
        self.handler = handler
        self.eviction = eviction
        self.started = False

    def start(self, timers: PeriodicTimers) -> None:
        """Begin triggering; time-based triggers register their timer here."""
        self.started = True

    def track(self, event: Event[Any]) -> None:  # noqa: B027 - most triggers ignore tuples
        """See a tuple that was just added to the window."""

    def track_watermark(self, ts: int) -> None:  # noqa: B027 - most triggers ignore watermarks
        """See a watermark."""

    def reset(self) -> None:  # noqa: B027 - only count triggers keep a count
        """Called by the window manager after each evaluation."""

    @abstractmethod
    def state(self) -> int | None:
        """What must survive a restart (a count or a timestamp), or None."""

    @abstractmethod
    def restore(self, state: int | None) -> None:
        """Restore what :meth:`state` returned."""
