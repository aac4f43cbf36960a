"""Processing-time count trigger: evaluate the window every N tuples."""

from __future__ import annotations

from typing import Any

from windowing.clock import ManualClock
from windowing.storm.event import Event
from windowing.storm.policies.eviction_context import EvictionContext
from windowing.storm.policies.eviction_policy import EvictionPolicy
from windowing.storm.policies.trigger_policy import TriggerHandler, TriggerPolicy


class CountTriggerPolicy(TriggerPolicy):
    """Fires as the N-th tuple since the last evaluation arrives; the window ends at the current time."""

    def __init__(self, count: int, handler: TriggerHandler, eviction: EvictionPolicy, clock: ManualClock):
        super().__init__(handler, eviction)
        self.count = count
        self.clock = clock
        self.current = 0

    def track(self, event: Event[Any]) -> None:
        """Count the tuple and fire on the N-th."""
        if not self.started:
            return
        self.current += 1
        if self.current >= self.count:
            self.eviction.set_context(EvictionContext(self.clock.now()))
            self.handler.on_trigger()

    def reset(self) -> None:
        """Start counting again."""
        self.current = 0

    def state(self) -> int | None:
        """Tuples counted since the last evaluation."""
        return self.current

    def restore(self, state: int | None) -> None:
        """Restore the count."""
        self.current = state or 0
