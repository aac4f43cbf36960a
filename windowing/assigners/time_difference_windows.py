"""KIP-450 sliding windows: one window per distinct set of records at most ``time_difference`` apart."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from windowing.assigners.base import Window, WindowAssigner, duration_field
from windowing.duration import Duration


@dataclass(frozen=True)
class TimeDifferenceWindows(WindowAssigner):
    """Kafka Streams' ``SlidingWindows.withTimeDifferenceAndGrace``, per key.

    A window covers ``[start, start + time_difference]`` with *both ends
    inclusive*; as a :class:`Window` it is ``[start, start + time_difference + 1)``.
    For every distinct record timestamp ``t`` of a key there is

    - the *left* window ``[t - d, t]``, which ends at the record, and
    - the *right* window ``[t + 1, t + 1 + d]`` when some record of the key lies in
      ``(t, t + d]`` (a right window with no record would be empty, and one whose
      only records sit at ``t + d + 1`` is the left window of that timestamp).

    So each distinct set of records that fit within ``d`` of each other gets one
    window, whatever order records arrive in. A new record creates its left
    window, its right window and its predecessor's right window when they are
    missing (aggregated from per-timestamp partial aggregates), and updates the
    windows that contain it: windows whose start lies in ``[t - d, t]``. The cost
    per record follows the number of the key's records within ``d``, not
    ``d`` divided by a hop as with :class:`SlidingWindows`.

    ``grace`` is the allowed lateness of these windows (KIP-450 requires it).
    """

    time_difference: Duration
    grace: Duration
    difference_ms: int = field(init=False, repr=False)
    grace_ms: int = field(init=False, repr=False)

    data_driven = True

    def __post_init__(self) -> None:
        d = duration_field(self, "TimeDifferenceWindows", "time_difference")
        g = duration_field(self, "TimeDifferenceWindows", "grace", allow_zero=True)
        object.__setattr__(self, "difference_ms", d)
        object.__setattr__(self, "grace_ms", g)

    def window_at(self, start: int) -> Window:
        """The window starting at ``start``."""
        return Window(start, start + self.difference_ms + 1)

    def assign(self, ts: int) -> list[Window]:
        """The left window of ``ts`` (the one window every record has)."""
        return [self.window_at(ts - self.difference_ms)]

    def start_range(self, ts: int) -> tuple[int, int]:
        """Windows holding ``ts`` start in this inclusive range."""
        return ts - self.difference_ms, ts

    def windows_to_create(self, ts: int, times: Sequence[int]) -> list[Window]:
        """Windows a record at ``ts`` calls for, given the key's sorted distinct earlier record times.

        The caller creates those that do not exist yet: the left window of
        ``ts``, its right window when a later record lies within ``d``, and the
        right window of the latest earlier record when ``ts`` is within ``d`` of it.
        """
        d = self.difference_ms
        wanted = [self.window_at(ts - d)]
        after = bisect_right(times, ts)
        if after < len(times) and times[after] <= ts + d:
            wanted.append(self.window_at(ts + 1))
        before = bisect_left(times, ts) - 1
        if before >= 0 and ts - times[before] <= d:
            wanted.append(self.window_at(times[before] + 1))
        return wanted
