"""One window for all of time."""

from __future__ import annotations

from dataclasses import dataclass

from windowing.assigners.base import END_OF_TIME, MIN_TIMESTAMP, Window, WindowAssigner

GLOBAL_WINDOW = Window(MIN_TIMESTAMP, END_OF_TIME)


@dataclass(frozen=True)
class GlobalWindows(WindowAssigner):
    """Every tuple goes to the single window ``[MIN_TIMESTAMP, END_OF_TIME)``.

    The watermark reaches the window's end only when the input ends (``close``),
    so a global window needs a trigger other than the default to emit earlier.
    """

    def assign(self, ts: int) -> list[Window]:
        """The global window."""
        return [GLOBAL_WINDOW]
