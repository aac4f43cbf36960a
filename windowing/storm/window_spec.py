"""A window configuration as a value, and the window manager built from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from windowing.clock import ManualClock
from windowing.duration import Count, Duration
from windowing.storm.block_buffer import BlockBuffer
from windowing.storm.event_buffer import BufferFactory, EventBuffer
from windowing.storm.exact.watermark_count_eviction_policy import StormWatermarkCountEvictionPolicy
from windowing.storm.exact.watermark_time_eviction_policy import StormWatermarkTimeEvictionPolicy
from windowing.storm.exact.watermark_time_trigger_policy import StormWatermarkTimeTriggerPolicy
from windowing.storm.exact.window_manager import StormWindowManager
from windowing.storm.policies.count_eviction_policy import CountEvictionPolicy
from windowing.storm.policies.count_trigger_policy import CountTriggerPolicy
from windowing.storm.policies.eviction_policy import EvictionPolicy
from windowing.storm.policies.time_eviction_policy import TimeEvictionPolicy
from windowing.storm.policies.time_trigger_policy import TimeTriggerPolicy
from windowing.storm.policies.trigger_policy import TriggerPolicy
from windowing.storm.policies.watermark_count_eviction_policy import WatermarkCountEvictionPolicy
from windowing.storm.policies.watermark_count_trigger_policy import WatermarkCountTriggerPolicy
from windowing.storm.policies.watermark_time_eviction_policy import WatermarkTimeEvictionPolicy
from windowing.storm.policies.watermark_time_trigger_policy import WatermarkTimeTriggerPolicy
from windowing.storm.window_manager import WindowLifecycleListener, WindowManager

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class WindowSpec:
    """Window length and sliding interval, and whether time is event time.

    The policies follow Storm's choice: the length picks the eviction policy
    (count or time, watermark-driven in event time) and the sliding interval
    picks the trigger policy the same way.

    With ``storm_semantics`` an event-time window gets Storm 2.x's exact
    policies instead of squall's (see docs/storm-differences.md): the
    arrival-order queue scan that stops beyond ``lag_ms``, counting in arrival
    order, firing when the watermark reaches a window's end, and the queue
    compaction every 100 tuples. Processing-time windows are the same either way.
    """

    length: Count | Duration
    slide: Count | Duration
    event_time: bool
    storm_semantics: bool = False
    lag_ms: int = 0

    @property
    def storm_exact(self) -> bool:
        """Whether the window is built from Storm's own event-time policies."""
        return self.storm_semantics and self.event_time

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
        keeps a persistent window's older tuples in the state backend); the
        default, ``EventBuffer``, becomes a ``BlockBuffer`` (rows as arrays beside
        their blocks) for duration and processing-time count windows where no
        tuple fires a window; Storm-exact windows keep their arrival queue in
        memory and refuse any other buffer.
        """
        if self.storm_exact and buffer_factory is not EventBuffer:
            msg = (
                "with_storm_semantics: Storm's event-time windows scan their whole queue in arrival order, "
                "so they cannot page it (with_max_events_in_memory); drop one of the two"
            )
            raise ValueError(msg)
        length_ms = self.length.value if isinstance(self.length, Duration) else None
        manager: WindowManager[T] = (
            StormWindowManager(listener, length_ms) if self.storm_exact else WindowManager(listener, length_ms)
        )
        eviction = self._eviction(buffer_factory)
        trigger = self._trigger(manager, eviction, clock)
        manager.set_policies(eviction, trigger)
        return manager

    def _eviction(self, buffer_factory: BufferFactory) -> EvictionPolicy:
        if self.storm_exact:
            if isinstance(self.length, Count):
                return StormWatermarkCountEvictionPolicy(self.length.value)
            return StormWatermarkTimeEvictionPolicy(self.length.value, self.lag_ms)
        if isinstance(self.length, Count) and self.event_time:
            return WatermarkCountEvictionPolicy(self.length.value, buffer_factory)
        # In memory, rows held as arrays beside their blocks; not where a tuple can fire a window (each is
        # added alone, and a list of events is cheaper to add to one at a time).
        if buffer_factory is EventBuffer and not self.fires_on_arrival:
            buffer_factory = BlockBuffer
        if isinstance(self.length, Count):
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
        if self.storm_exact:
            return StormWatermarkTimeTriggerPolicy(self.slide.value, manager, eviction, manager)
        if self.event_time:
            return WatermarkTimeTriggerPolicy(self.slide.value, manager, eviction, manager)
        return TimeTriggerPolicy(self.slide.value, manager, eviction)
