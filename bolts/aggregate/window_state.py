"""The runtime state of one window of one key, as plain data that snapshots with msgpack."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from windowing.assigners import Window
from windowing.panes import PaneHistory

Key = tuple[Any, ...]
NO_PANES = PaneHistory()  # immutable, so every new window shares it


@dataclass(slots=True)  # many are made and dropped per batch: slots make that cheaper
class WindowState:
    """Everything a window needs between micro-batches.

    ``acc``: the aggregator's accumulator (cleared after a pane in DISCARDING
    mode). ``trigger``: the trigger's namespaced state. ``timers``: processing
    times at which to consult the trigger again. ``has_new``: tuples arrived
    since the last pane. ``hold``: smallest and largest timestamps of the
    tuples added since the last pane that held the output timestamp (see
    :meth:`hold_timestamps`), or None. ``extra_hold``: Beam's garbage-collection
    hold, or None (see :mod:`bolts.aggregate.holds`). ``last``: the last pane
    emitted, ``[value, timestamp, pane]``. ``retractions``: last panes of
    windows merged into this one, ``[start, end, value, timestamp, pane]``,
    retracted before this window's next pane. ``closed``: the trigger finished.
    ``seq``: creation order, for deterministic ordering. ``batch_tuples``:
    tuples added since the window was last consulted (those a merge into a
    closed session drops).
    """

    key: Key
    window: Window
    acc: Any
    seq: int
    trigger: dict[str, Any] = field(default_factory=dict)
    timers: list[int] = field(default_factory=list)
    has_new: bool = False
    hold: list[int] | None = None
    extra_hold: int | None = None
    history: PaneHistory = NO_PANES
    last: list[Any] | None = None
    retractions: list[list[Any]] = field(default_factory=list)
    closed: bool = False
    batch_tuples: int = 0

    @property
    def wid(self) -> tuple[Key, int, int]:
        """The window's identity: key, start, end."""
        return (self.key, self.window.start, self.window.end)

    def hold_timestamps(self, low: int, high: int) -> None:
        """Tuples with timestamps from ``low`` to ``high``, none behind the watermark, joined the pane.

        Beam's element hold (``WatermarkHold.addElementHold``), added by
        :func:`bolts.aggregate.holds.add_holds`: a tuple holds only when its timestamp
        is not behind the key's output watermark and the input watermark has not
        passed the window's last timestamp. The pane takes the earliest or latest
        of them; a pane without any is stamped ``max_timestamp``.
        """
        self.hold = _widen(self.hold, low, high)

    def to_data(self) -> list[Any]:
        """Plain lists and dicts: every field, or the short form when it is enough.

        The short form, ``[key, start, end, acc, seq, has_new, hold]``, is for a
        window whose other fields are a new window's (no trigger state, timers,
        GC hold, panes, retractions; open; no tuples since the last
        consultation), which most live windows are.
        """
        if ((self.history is NO_PANES or self.history == NO_PANES) and not (
                self.trigger or self.timers or self.retractions or self.batch_tuples or self.closed
                or self.last is not None or self.extra_hold is not None)):
            window = self.window
            return [list(self.key), window.start, window.end, self.acc, self.seq, self.has_new, self.hold]
        return [
            list(self.key),
            self.window.start,
            self.window.end,
            self.acc,
            self.seq,
            dict(self.trigger),
            list(self.timers),
            self.has_new,
            self.hold,
            self.extra_hold,
            list(self.history),
            self.last,
            self.retractions,
            self.closed,
            self.batch_tuples,
        ]

    @classmethod
    def from_data(cls, data: list[Any]) -> WindowState:
        """Rebuild from :meth:`to_data` (either of its forms)."""
        if len(data) == len(_SHORT_FIELDS):
            key, start, end, acc, seq, has_new, hold = data
            return cls(tuple(key), Window(start, end), acc, seq, has_new=has_new, hold=hold)
        key, start, end, acc, seq, trigger, timers, has_new, hold, extra, history, last, *rest = data
        retractions, closed, batch = rest
        return cls(
            tuple(key),
            Window(start, end),
            acc,
            seq,
            dict(trigger),
            list(timers),
            has_new,
            hold,
            extra,
            PaneHistory(*history),
            last,
            [list(r) for r in retractions],
            closed,
            batch,
        )


_SHORT_FIELDS = ("key", "start", "end", "acc", "seq", "has_new", "hold")  # to_data's short form


def _widen(span: list[int] | None, low: int, high: int) -> list[int]:
    if span is None:
        return [low, high]
    return [min(span[0], low), max(span[1], high)]

