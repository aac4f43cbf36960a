"""Tick tuples: what a plain bolt gets every n seconds of processing time when it asks for them."""

from __future__ import annotations

import math
from typing import Any

from bolts.tuples import Fields, Tuple

#: Storm's ``Config.TOPOLOGY_TICK_TUPLE_FREQ_SECS``.
TICK_FREQ_KEY = "topology.tick.tuple.freq.secs"
SYSTEM_COMPONENT_ID = "__system"
SYSTEM_TICK_STREAM_ID = "__tick"
SYSTEM_TASK_ID = -1
TICK_FIELDS = Fields("rate_secs")


def tick_interval_ms(conf: dict[str, Any], who: str) -> int | None:
    """The tick interval a bolt's merged configuration asks for, in ms (None when it asks for none).

    ``TypeError`` naming ``who`` and the value unless it is an int or a float
    (a bool is refused), ``ValueError`` unless it is positive and finite.
    """
    value = conf.get(TICK_FREQ_KEY)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"{TICK_FREQ_KEY}: {who} asks for tick tuples every {value!r} seconds; give a number of seconds"
        raise TypeError(msg)
    if not 0 < value < math.inf:
        msg = f"{TICK_FREQ_KEY}: {who} asks for tick tuples every {value!r} seconds; give a positive number of seconds"
        raise ValueError(msg)
    return max(1, round(value * 1000))


def tick_tuple(freq_secs: Any) -> Tuple:
    """A tick tuple: from component ``__system`` (task -1) on stream ``__tick``, with the frequency as ``rate_secs``."""
    return Tuple([freq_secs], TICK_FIELDS, SYSTEM_TICK_STREAM_ID, SYSTEM_COMPONENT_ID, SYSTEM_TASK_ID)


class TupleUtils:
    """Storm's ``TupleUtils``, for what a ported bolt asks of a tuple."""

    @staticmethod
    def is_tick(tuple: Tuple) -> bool:
        """Whether ``tuple`` is a tick tuple (from ``__system`` on ``__tick``)."""
        return tuple.source_component == SYSTEM_COMPONENT_ID and tuple.stream == SYSTEM_TICK_STREAM_ID


class TickSchedule:
    """When a bolt's next tick is due: every ``interval_ms`` from ``first_due``, keeping the phase.

    :meth:`take` answers whether a tick fires at ``now_ms``; one fires however
    many intervals passed (a downtime's ticks do not pile up). The harness
    steps through :meth:`next_due` to fire each tick at its instant.
    """

    def __init__(self, interval_ms: int, first_due: int, freq_secs: Any) -> None:
        self.interval_ms = interval_ms
        self.due = first_due
        self.freq_secs = freq_secs

    def next_due(self) -> int:
        """The time the next tick is due."""
        return self.due

    def take(self, now_ms: int) -> bool:
        """Whether a tick is due at ``now_ms``; if so, the next is scheduled after ``now_ms``."""
        if now_ms < self.due:
            return False
        self.due += ((now_ms - self.due) // self.interval_ms + 1) * self.interval_ms
        return True
