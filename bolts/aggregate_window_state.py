"""The runtime state of one window of one key, as plain data that snapshots with msgpack."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from windowing.assigners import Window
from windowing.panes import PaneHistory

Key = tuple[Any, ...]


@dataclass
class WindowState:
    """Everything a window needs between micro-batches.

    ``acc``: the aggregator's accumulator (cleared after a pane in DISCARDING
    mode). ``trigger``: the trigger's namespaced state. ``timers``: processing
    times at which to consult the trigger again. ``has_new``: tuples arrived
    since the last pane. ``on_time_data``: a tuple arrived while the watermark
    was before the window's end. ``hold``: smallest and largest timestamps of
    the tuples added since the last pane that held the output timestamp (see
    :meth:`hold_timestamps`), or None. ``last``: the last pane emitted, ``[value, timestamp, pane]``. ``retractions``:
    last panes of windows merged into this one, ``[start, end, value, timestamp,
    pane]``, retracted before this window's next pane. ``closed``: the trigger
    finished. ``seq``: creation order, for deterministic ordering.
    """

    key: Key
    window: Window
    acc: Any
    seq: int
    trigger: dict[str, Any] = field(default_factory=dict)
    timers: list[int] = field(default_factory=list)
    has_new: bool = False
    on_time_data: bool = False
    hold: list[int] | None = None
    history: PaneHistory = field(default_factory=PaneHistory)
    last: list[Any] | None = None
    retractions: list[list[Any]] = field(default_factory=list)
    closed: bool = False

    @property
    def wid(self) -> tuple[Key, int, int]:
        """The window's identity: key, start, end."""
        return (self.key, self.window.start, self.window.end)

    def hold_timestamps(self, low: int, high: int) -> None:
        """Tuples with timestamps from ``low`` to ``high``, none behind the watermark, joined the pane.

        Beam's element hold (``WatermarkHold.addElementHold``): a tuple holds the
        output timestamp only when its timestamp is not behind the output watermark
        and the input watermark has not passed the window's last timestamp. squall
        does not hold its forwarded watermark, so both are its one watermark, and
        the caller adds only tuples with ``ts >= watermark`` (such a tuple lies in a
        window whose end is after the watermark). The pane takes the earliest or
        latest of them; a pane without any is stamped ``max_timestamp``.
        """
        self.hold = _widen(self.hold, low, high)

    def to_data(self) -> list[Any]:
        """Plain lists and dicts."""
        return [
            list(self.key),
            self.window.start,
            self.window.end,
            self.acc,
            self.seq,
            dict(self.trigger),
            list(self.timers),
            self.has_new,
            self.on_time_data,
            self.hold,
            list(self.history),
            self.last,
            self.retractions,
            self.closed,
        ]

    @classmethod
    def from_data(cls, data: list[Any]) -> WindowState:
        """Rebuild from :meth:`to_data`."""
        (key, start, end, acc, seq, trigger, timers, has_new, on_time, hold, history, last, retractions, closed) = data
        return cls(
            tuple(key),
            Window(start, end),
            acc,
            seq,
            dict(trigger),
            list(timers),
            has_new,
            on_time,
            hold,
            PaneHistory(*history),
            last,
            [list(r) for r in retractions],
            closed,
        )


def _widen(span: list[int] | None, low: int, high: int) -> list[int]:
    if span is None:
        return [low, high]
    return [min(span[0], low), max(span[1], high)]


def merge_spans(spans: list[list[int] | None]) -> list[int] | None:
    """The range covering every given range (None when none is given)."""
    out: list[int] | None = None
    for span in spans:
        if span is not None:
            out = _widen(out, span[0], span[1])
    return out
