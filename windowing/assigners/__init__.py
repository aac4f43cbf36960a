"""Window assigners: where in event time each tuple's result is computed (one file per assigner)."""

from windowing.assigners.base import END_OF_TIME, MIN_TIMESTAMP, Window, WindowAssigner
from windowing.assigners.fixed_windows import FixedWindows
from windowing.assigners.global_windows import GLOBAL_WINDOW, GlobalWindows
from windowing.assigners.sessions import Sessions
from windowing.assigners.sliding_windows import SlidingWindows
from windowing.assigners.time_difference_windows import TimeDifferenceWindows

__all__ = [
    "END_OF_TIME",
    "GLOBAL_WINDOW",
    "MIN_TIMESTAMP",
    "FixedWindows",
    "GlobalWindows",
    "Sessions",
    "SlidingWindows",
    "TimeDifferenceWindows",
    "Window",
    "WindowAssigner",
]
