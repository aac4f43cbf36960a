"""Event-time duration windows: the tuples whose timestamps fall in ``(end - L, end]``."""

from __future__ import annotations

from windowing.storm.policies.time_eviction_policy import TimeEvictionPolicy


class WatermarkTimeEvictionPolicy(TimeEvictionPolicy):
    """Event-time twin of :class:`TimeEvictionPolicy`; the reference time is the window end.

    Tuples are held in timestamp order, so the window is found by two binary
    searches whatever order tuples arrived in.

    Deviation from Storm: Storm scans its queue in arrival order and stops at the
    first tuple whose timestamp is beyond the window end plus the lag. An on-time
    tuple queued behind that one is then skipped by the window, and when input
    streams are skewed by more than the lag the slower stream's tuples are lost.
    squall evaluates every held tuple, so no on-time tuple misses its windows.
    """
