"""Event-time trigger: on each watermark, evaluate every window that ends at or before it."""

from __future__ import annotations

from windowing.storm.policies.eviction_context import EvictionContext
from windowing.storm.policies.eviction_policy import EvictionPolicy
from windowing.storm.policies.trigger_policy import TriggerHandler, TriggerPolicy, WindowQueries


class WatermarkTimeTriggerPolicy(TriggerPolicy):
    """Storm's ``WatermarkTimeTriggerPolicy``.

    Window ends are multiples of the sliding interval (aligned to the epoch).
    While the next end is before the watermark, the window ending there is
    evaluated; when it is empty, the next end jumps to the first multiple of the
    interval at or after the earliest held timestamp beyond it, so gaps in event
    time cost nothing. The first end is found the same way from time 0.

    Deviation from Storm: Storm evaluates a window once the watermark reaches
    its end; squall waits until the watermark passes it. A window holds its end
    timestamp, and a tuple exactly at the watermark is on time, so in Storm such
    a tuple can arrive after the window ending at its own timestamp fired, and a
    tumbling window then never evaluates it. The only visible change is that a
    window whose end equals the watermark fires at the next watermark instead.
    """

    def __init__(
        self, interval_ms: int, handler: TriggerHandler, eviction: EvictionPolicy, queries: WindowQueries
    ) -> None:
        super().__init__(handler, eviction)
        self.interval = interval_ms
        self.queries = queries
        self.next_window_end = 0

    def track_watermark(self, ts: int) -> None:
        """Fire every window that ends before the watermark ``ts``."""
        if not self.started:
            return
        end = self.next_window_end
        while self.is_due(end, ts):
            count = self.queries.event_count(end)
            self.eviction.set_context(EvictionContext(end, current_count=count))
            if self.handler.on_trigger():
                end += self.interval
                continue
            earliest = self.queries.earliest_event_ts(end, ts)
            if earliest is None:
                break
            end = -(-earliest // self.interval) * self.interval  # ceiling to the interval
        self.next_window_end = end

    def is_due(self, window_end: int, watermark: int) -> bool:
        """Whether the window ending at ``window_end`` fires at ``watermark``: once the watermark is past it."""
        return window_end < watermark

    def state(self) -> int | None:
        """The end of the next window to evaluate."""
        return self.next_window_end

    def restore(self, state: int | None) -> None:
        """Restore the end of the next window."""
        self.next_window_end = state or 0
