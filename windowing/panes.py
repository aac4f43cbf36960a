"""Panes: each emission of a window's result, and where it stands against the watermark.

:func:`describe_pane` follows Beam's Java runner (``PaneInfoTracker.describePane``):
a pane is LATE once a non-early pane was emitted or when the *output* watermark
(the input watermark held back by the key's watermark holds, see
:mod:`bolts.aggregate.holds`) has passed the window's end; EARLY while the
*input* watermark is before the window's end; otherwise it is the window's one
ON_TIME pane. ``index`` counts every pane
of the window from 0; ``nonspeculative_index`` counts the ON_TIME and LATE
panes from 0 and is -1 for EARLY panes. A window made by merging sessions
starts afresh at index 0, as Beam's runner clears the merged windows' pane
info.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple


class Timing(StrEnum):
    """When a pane fired relative to the watermark (compares equal to its name: ``Timing.EARLY == "EARLY"``)."""

    EARLY = "EARLY"
    ON_TIME = "ON_TIME"
    LATE = "LATE"


class PaneInfo(NamedTuple):
    """One pane: ``timing``, ``index``, ``nonspeculative_index`` (-1 when early) and ``is_last``.

    A named tuple, so it travels as a plain list (msgpack, Arrow) and reads by name.
    """

    timing: str
    index: int
    nonspeculative_index: int
    is_last: bool

    @property
    def is_first(self) -> bool:
        """Whether this is the window's first pane."""
        return self.index == 0

    @classmethod
    def from_data(cls, data: Any) -> PaneInfo:
        """Rebuild a pane from its list form."""
        timing, index, nonspeculative_index, is_last = data
        return cls(str(timing), int(index), int(nonspeculative_index), bool(is_last))


class PaneHistory(NamedTuple):
    """What a window remembers of its panes to describe the next one."""

    next_index: int = 0
    last_nonspeculative: int = -1
    last_timing: str | None = None


def describe_pane(
    history: PaneHistory, *, input_wm: int, output_wm: int, window_end: int, is_last: bool
) -> tuple[PaneInfo, PaneHistory]:
    """The next pane of a window and the history after it.

    ``output_wm`` is the key's held output watermark: once it reached the
    window's end, no pane of the window can be on time any more.
    """
    pane = next_pane(history, input_wm=input_wm, output_wm=output_wm, window_end=window_end, is_last=is_last)
    last_nonspec = history.last_nonspeculative if pane.nonspeculative_index == -1 else pane.nonspeculative_index
    return pane, PaneHistory(history.next_index + 1, last_nonspec, pane.timing)


def next_pane(history: PaneHistory, *, input_wm: int, output_wm: int, window_end: int, is_last: bool) -> PaneInfo:
    """The next pane of a window (:func:`describe_pane` without the history after it).

    Panes are immutable and few differ (most windows emit one pane, ``ON_TIME``
    index 0): equal panes are one shared object, made once.
    """
    nonspeculative = history.last_nonspeculative + 1
    if (history.last_timing is not None and history.last_timing != _EARLY) or output_wm >= window_end:
        timing = _LATE
    elif input_wm < window_end:
        timing, nonspeculative = _EARLY, -1
    else:
        timing = _ON_TIME
    wanted = (timing, history.next_index, nonspeculative, is_last)
    pane = _PANES.get(wanted)
    if pane is None:
        if len(_PANES) >= _MOST_PANES:
            _PANES.clear()
        pane = _PANES[wanted] = PaneInfo(*wanted)
    return pane


# The timings as plain strs (what panes hold and msgpack packs), made once.
_EARLY, _ON_TIME, _LATE = str(Timing.EARLY), str(Timing.ON_TIME), str(Timing.LATE)
_PANES: dict[tuple[str, int, int, bool], PaneInfo] = {}  # the panes made so far (next_pane), by their fields
_MOST_PANES = 4096

