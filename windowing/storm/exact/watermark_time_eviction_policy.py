"""Storm-exact event-time duration windows: the arrival-order scan that stops beyond the lag."""

from __future__ import annotations

from typing import Any

from windowing.storm.event import Event
from windowing.storm.exact.arrival_queue_eviction_policy import ArrivalQueueEvictionPolicy
from windowing.storm.membership import Membership, TimeRange
from windowing.storm.policies.eviction_action import Action


class StormWatermarkTimeEvictionPolicy(ArrivalQueueEvictionPolicy):
    """Storm 2.x's ``WatermarkTimeEvictionPolicy`` (with ``TimeEvictionPolicy.evict``), decision for decision.

    With R the window end and L the window length, an event with timestamp ts is:
    ``STOP`` when there is no context yet or ``ts > R + lag``; ``KEEP`` when
    ``R < ts <= R + lag``; ``EXPIRE`` when ``ts <= R - L``; else ``PROCESS``.
    The scan stops at the first ``STOP`` in arrival order, so an on-time tuple
    queued behind a tuple beyond ``R + lag`` is not in the window (squall's
    default policy evaluates every held tuple instead).
    """

    def __init__(self, window_length_ms: int, lag_ms: int) -> None:
        super().__init__()
        self.window_length = window_length_ms
        self.lag = lag_ms
        self._next_seq = 0

    def add(self, event: Event[Any]) -> None:
        """Queue ``event``."""
        super().add(event)
        self._next_seq = event.seq + 1

    def evict(self, event: Event[Any]) -> Action:
        """Storm's decision for ``event`` against the current window end."""
        if self.context is None:
            return Action.STOP  # a compaction before the first watermark keeps everything
        diff = self.context.reference_time - event.ts
        if diff < -self.lag:
            return Action.STOP
        if diff < 0:
            return Action.KEEP
        if diff >= self.window_length:  # watermark contexts carry no sliding interval: no drift term
            return Action.EXPIRE
        return Action.PROCESS

    def _membership(self, window: list[Event[Any]], stopped_at: int | None) -> Membership:
        # Held events that arrived before the stop with R - L < ts <= R are exactly the window.
        ref = self._require_context().reference_time
        end_seq = stopped_at if stopped_at is not None else self._next_seq
        return TimeRange(end_seq, ref - self.window_length, ref)

    def _own_state(self) -> dict[str, Any]:
        return {"next_seq": self._next_seq}

    def _restore_own_state(self, state: dict[str, Any]) -> None:
        self._next_seq = state["next_seq"]
