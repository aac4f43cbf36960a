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
    was before the window's end. ``pane_ts``/``all_ts``: smallest and largest
    timestamps since the last pane and overall, for the timestamp combiner.
    ``last``: the last pane emitted, ``[value, timestamp, pane]``. ``retractions``:
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
    pane_ts: list[int] | None = None
    all_ts: list[int] | None = None
    history: PaneHistory = field(default_factory=PaneHistory)
    last: list[Any] | None = None
    retractions: list[list[Any]] = field(default_factory=list)
    closed: bool = False

    @property
    def wid(self) -> tuple[Key, int, int]:
        """The window's identity: key, start, end."""
        return (self.key, self.window.start, self.window.end)

    def note_timestamp(self, ts: int) -> None:
        """Widen the timestamp ranges with ``ts``."""
        self.note_timestamps(ts, ts)

    def note_timestamps(self, low: int, high: int) -> None:
        """Widen the timestamp ranges with timestamps from ``low`` to ``high``."""
        self.pane_ts = _widen(self.pane_ts, low, high)
        self.all_ts = _widen(self.all_ts, low, high)

    def to_data(self) -> list[Any]:
        """Plain lists and dicts."""
        return [
            list(self.key), self.window.start, self.window.end, self.acc, self.seq, dict(self.trigger),
            list(self.timers), self.has_new, self.on_time_data, self.pane_ts, self.all_ts, list(self.history),
            self.last, self.retractions, self.closed,
        ]

    @classmethod
    def from_data(cls, data: list[Any]) -> WindowState:
        """Rebuild from :meth:`to_data`."""
        (key, start, end, acc, seq, trigger, timers, has_new, on_time, pane_ts, all_ts, history, last,
         retractions, closed) = data
        return cls(
            tuple(key), Window(start, end), acc, seq, dict(trigger), list(timers), has_new, on_time,
            pane_ts, all_ts, PaneHistory(*history), last, [list(r) for r in retractions], closed,
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
