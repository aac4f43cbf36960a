"""Event-time count trigger: on each watermark, evaluate a window for every N tuples it passed."""

from __future__ import annotations

from windowing.storm.policies.eviction_context import EvictionContext
from windowing.storm.policies.eviction_policy import EvictionPolicy
from windowing.storm.policies.trigger_policy import TriggerHandler, TriggerPolicy, WindowQueries


class WatermarkCountTriggerPolicy(TriggerPolicy):
    """Storm's ``WatermarkCountTriggerPolicy``.

    On a watermark W, walk the held tuples with a timestamp in ``(last, W]`` in
    arrival order and fire once after every N-th, the window ending at the
    largest timestamp seen so far; ``last`` becomes that end. Fewer than N such
    tuples fire nothing yet.
    """

    def __init__(
        self, count: int, handler: TriggerHandler, eviction: EvictionPolicy, queries: WindowQueries
    ) -> None:
        super().__init__(handler, eviction)
        self.count = count
        self.queries = queries
        self.last_processed_ts = 0

    def track_watermark(self, ts: int) -> None:
        """Fire every window the watermark completes."""
        if not self.started:
            return
        for end in self.queries.sliding_count_timestamps(self.last_processed_ts, ts, self.count):
            self.eviction.set_context(EvictionContext(end, sliding_count=self.count))
            self.handler.on_trigger()
            self.last_processed_ts = end

    def state(self) -> int | None:
        """The end of the last evaluated window."""
        return self.last_processed_ts

    def restore(self, state: int | None) -> None:
        """Restore the end of the last evaluated window."""
        self.last_processed_ts = state or 0
