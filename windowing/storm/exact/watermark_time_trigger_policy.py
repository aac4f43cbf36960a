"""Storm-exact event-time trigger: a window fires as soon as the watermark reaches its end."""

from __future__ import annotations

from windowing.storm.policies.watermark_time_trigger_policy import WatermarkTimeTriggerPolicy


class StormWatermarkTimeTriggerPolicy(WatermarkTimeTriggerPolicy):
    """Storm 2.x's ``WatermarkTimeTriggerPolicy``: windows with ``end <= watermark`` fire.

    A tuple exactly at the watermark is on time, so it can arrive after the
    window ending at its own timestamp fired, as in Storm (squall's default
    trigger waits until the watermark is beyond the end).
    """

    def is_due(self, window_end: int, watermark: int) -> bool:
        """Whether the window ending at ``window_end`` fires at ``watermark``: once the watermark reaches it."""
        return window_end <= watermark
