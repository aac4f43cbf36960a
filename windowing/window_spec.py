"""A window configuration as a value, and the window manager built from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from windowing.clock import ManualClock
from windowing.count_eviction_policy import CountEvictionPolicy
from windowing.count_trigger_policy import CountTriggerPolicy
from windowing.duration import Count, Duration
from windowing.event_buffer import BufferFactory, EventBuffer
from windowing.eviction_policy import EvictionPolicy
from windowing.time_eviction_policy import TimeEvictionPolicy
from windowing.time_trigger_policy import TimeTriggerPolicy
from windowing.trigger_policy import TriggerPolicy
from windowing.watermark_count_eviction_policy import WatermarkCountEvictionPolicy
from windowing.watermark_count_trigger_policy import WatermarkCountTriggerPolicy
from windowing.watermark_time_eviction_policy import WatermarkTimeEvictionPolicy
from windowing.watermark_time_trigger_policy import WatermarkTimeTriggerPolicy
from windowing.window_manager import WindowLifecycleListener, WindowManager

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class WindowSpec:
    """Window length and sliding interval, and whether time is event time.

    The policies follow Storm's choice: the length picks the eviction policy
    (count or time, watermark-driven in event time) and the sliding interval
    picks the trigger policy the same way.
    """

    length: Count | Duration
    slide: Count | Duration
    event_time: bool

    @property
    def fires_on_arrival(self) -> bool:
        """Whether a window can fire as a tuple arrives (a count slide in processing time).

        Every other trigger waits for processing time or a watermark, neither of
        which moves while a batch's tuples are added, so a batch can be added at once.
        """
        return isinstance(self.slide, Count) and not self.event_time

    def build(
        self, listener: WindowLifecycleListener[T], clock: ManualClock, buffer_factory: BufferFactory = EventBuffer
    ) -> WindowManager[T]:
        """A window manager with this configuration's policies (not yet started).

        ``buffer_factory`` builds the eviction policy's event buffer (a paged one
        keeps a persistent window's older tuples in the state backend).
        """
        length_ms = self.length.value if isinstance(self.length, Duration) else None
        manager: WindowManager[T] = WindowManager(listener, length_ms)
        eviction = self._eviction(buffer_factory)
        trigger = self._trigger(manager, eviction, clock)
        manager.set_policies(eviction, trigger)
        return manager

    def _eviction(self, buffer_factory: BufferFactory) -> EvictionPolicy:
        if isinstance(self.length, Count):
            if self.event_time:
                return WatermarkCountEvictionPolicy(self.length.value, buffer_factory)
            return CountEvictionPolicy(self.length.value, buffer_factory)
        if self.event_time:
            return WatermarkTimeEvictionPolicy(self.length.value, buffer_factory)
        return TimeEvictionPolicy(self.length.value, buffer_factory)

    def _trigger(
        self, manager: WindowManager[T], eviction: EvictionPolicy, clock: ManualClock
    ) -> TriggerPolicy:
        if isinstance(self.slide, Count):
            if self.event_time:
                return WatermarkCountTriggerPolicy(self.slide.value, manager, eviction, manager)
            return CountTriggerPolicy(self.slide.value, manager, eviction, clock)
        if self.event_time:
            return WatermarkTimeTriggerPolicy(self.slide.value, manager, eviction, manager)
        return TimeTriggerPolicy(self.slide.value, manager, eviction)
