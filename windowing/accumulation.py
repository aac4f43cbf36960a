"""Accumulation modes: *how* the panes of one window relate to each other."""

from __future__ import annotations

from enum import Enum


class AccumulationMode(Enum):
    """What a window keeps after a pane fires.

    - ``DISCARDING``: the state is cleared; each pane holds only what arrived
      since the previous one, so a window's panes add up to its whole result.
    - ``ACCUMULATING``: the state is kept; each pane holds everything so far.
    - ``ACCUMULATING_AND_RETRACTING``: as ``ACCUMULATING``, and before each new
      pane the window first emits a retraction of its previous pane (and of the
      last panes of any windows merged into it), so that a downstream sum that
      subtracts retractions always holds the latest result.
    """

    DISCARDING = "discarding"
    ACCUMULATING = "accumulating"
    ACCUMULATING_AND_RETRACTING = "accumulating_and_retracting"

    @property
    def discards(self) -> bool:
        """Whether the state is cleared when a pane fires."""
        return self is AccumulationMode.DISCARDING

    @property
    def retracts(self) -> bool:
        """Whether previous panes are retracted."""
        return self is AccumulationMode.ACCUMULATING_AND_RETRACTING
