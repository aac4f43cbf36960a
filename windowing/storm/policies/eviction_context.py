"""What a trigger tells the eviction policy before a window is evaluated."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EvictionContext:
    """The reference time of a window evaluation and, for count windows, counts.

    ``reference_time`` becomes the window's end timestamp. ``current_count`` is the
    number of events at or before the reference time (watermark time triggers);
    ``sliding_count`` is the count trigger's step (watermark count triggers);
    ``sliding_interval`` is set by processing-time triggers so that the eviction
    policy can correct for timer drift, as Storm's ``TimeEvictionPolicy`` does.
    """

    reference_time: int
    current_count: int | None = None
    sliding_count: int | None = None
    sliding_interval: int | None = None
