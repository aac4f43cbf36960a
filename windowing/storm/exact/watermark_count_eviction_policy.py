"""Storm-exact event-time count windows: eligible tuples counted in arrival order."""

from __future__ import annotations

from typing import Any

from windowing.storm.event import Event
from windowing.storm.exact.arrival_queue_eviction_policy import ArrivalQueueEvictionPolicy
from windowing.storm.membership import Membership, TimeRange
from windowing.storm.policies.eviction_action import Action
from windowing.storm.policies.watermark_count_eviction_policy import CountFromContext

_BEFORE_ALL_TIME = -(2**63)


class StormWatermarkCountEvictionPolicy(CountFromContext, ArrivalQueueEvictionPolicy):
    """Storm 2.x's ``WatermarkCountEvictionPolicy``, decision for decision.

    A context sets ``current_count`` C (the context's count, or for count
    triggers the number processed at the last scan plus the sliding count) and
    resets ``processed``. Walking the queue in arrival order, an event at or
    before the window end R while ``processed < C`` expires if ``C > N``
    (decrementing C) and is processed otherwise; every other event is kept.
    Before any context a compaction stops at once. Compactions between
    evaluations use the same rule, so they can expire events and move
    ``processed``, as in Storm.
    """

    def __init__(self, threshold: int) -> None:
        super().__init__()
        self.threshold = threshold
        self._current_count = 0
        self._processed = 0

    def evict(self, event: Event[Any]) -> Action:
        """Storm's decision for ``event``; updates the count and the number processed."""
        if self.context is None:
            return Action.STOP
        if event.ts <= self.context.reference_time and self._processed < self._current_count:
            if self._current_count > self.threshold:
                self._current_count -= 1
                return Action.EXPIRE
            self._processed += 1
            return Action.PROCESS
        return Action.KEEP

    def _membership(self, window: list[Event[Any]], stopped_at: int | None) -> Membership:
        # The processed events are a run of the eligible ones (ts <= R) in arrival order; the eligible ones
        # before it expired, so a held event was in the window iff it arrived by the run's end with ts <= R.
        ref = self._require_context().reference_time
        end_seq = window[-1].seq + 1 if window else 0
        return TimeRange(end_seq, _BEFORE_ALL_TIME, ref)

    def _own_state(self) -> dict[str, Any]:
        return {"current_count": self._current_count, "processed": self._processed}

    def _restore_own_state(self, state: dict[str, Any]) -> None:
        self._current_count = state["current_count"]
        self._processed = state["processed"]
