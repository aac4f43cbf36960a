"""Processing-time trigger: evaluate the window every sliding interval."""

from __future__ import annotations

from windowing.clock import PeriodicTimers
from windowing.storm.policies.eviction_context import EvictionContext
from windowing.storm.policies.eviction_policy import EvictionPolicy
from windowing.storm.policies.trigger_policy import TriggerHandler, TriggerPolicy


class TimeTriggerPolicy(TriggerPolicy):
    """Fires every ``interval`` ms from the start; a window fired at time t ends at ``t - 1``.

    As in Storm, the tuples of the firing millisecond itself wait for the next
    window (Storm does this because tuples may arrive while the trigger runs).
    """

    def __init__(self, interval_ms: int, handler: TriggerHandler, eviction: EvictionPolicy) -> None:
        super().__init__(handler, eviction)
        self.interval = interval_ms

    def start(self, timers: PeriodicTimers) -> None:
        """Fire every interval from now on."""
        super().start(timers)
        timers.every(self.interval, self.fire)

    def fire(self, now: int) -> None:
        """Evaluate the window that ends just before ``now``."""
        self.eviction.set_context(EvictionContext(now - 1, sliding_interval=self.interval))
        self.handler.on_trigger()

    def state(self) -> int | None:
        """Nothing: the schedule restarts with the bolt."""
        return None

    def restore(self, state: int | None) -> None:
        """Nothing to restore."""
