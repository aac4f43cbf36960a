"""Storm-style windows in pure Python: lengths, policies, the window manager and watermarks.

Nothing here imports Spark; the package is unit-tested without a JVM.
"""

from windowing import aggregators
from windowing.accumulation import AccumulationMode
from windowing.arrival_queue_eviction_policy import ArrivalQueueEvictionPolicy
from windowing.assigners import (
    END_OF_TIME,
    MIN_TIMESTAMP,
    FixedWindows,
    GlobalWindows,
    Sessions,
    SlidingWindows,
    TimeDifferenceWindows,
    Window,
    WindowAssigner,
)
from windowing.clock import ManualClock, PeriodicTimers
from windowing.count_eviction_policy import CountEvictionPolicy
from windowing.count_trigger_policy import CountTriggerPolicy
from windowing.duration import Count, Duration
from windowing.event import Event
from windowing.eviction_action import Action
from windowing.eviction_context import EvictionContext
from windowing.eviction_policy import EvictionPolicy, WindowScan
from windowing.panes import PaneInfo, Timing
from windowing.storm_watermark_count_eviction_policy import StormWatermarkCountEvictionPolicy
from windowing.storm_watermark_time_eviction_policy import StormWatermarkTimeEvictionPolicy
from windowing.storm_watermark_time_trigger_policy import StormWatermarkTimeTriggerPolicy
from windowing.storm_window_manager import StormWindowManager
from windowing.time_eviction_policy import TimeEvictionPolicy
from windowing.time_trigger_policy import TimeTriggerPolicy
from windowing.trigger_policy import TriggerPolicy
from windowing.triggers import (
    AfterAll,
    AfterAny,
    AfterCount,
    AfterEach,
    AfterProcessingTime,
    AfterWatermark,
    DefaultTrigger,
    Never,
    OrFinally,
    Repeatedly,
    Trigger,
    TriggerContext,
    TriggerResult,
)
from windowing.tuple_window import TupleWindow
from windowing.watermark_count_eviction_policy import WatermarkCountEvictionPolicy
from windowing.watermark_count_trigger_policy import WatermarkCountTriggerPolicy
from windowing.watermark_generator import WatermarkGenerator
from windowing.watermark_time_eviction_policy import WatermarkTimeEvictionPolicy
from windowing.watermark_time_trigger_policy import WatermarkTimeTriggerPolicy
from windowing.window_manager import WindowLifecycleListener, WindowManager
from windowing.window_spec import WindowSpec

__all__ = [
    "END_OF_TIME",
    "MIN_TIMESTAMP",
    "AccumulationMode",
    "Action",
    "AfterAll",
    "AfterAny",
    "AfterCount",
    "AfterEach",
    "AfterProcessingTime",
    "AfterWatermark",
    "ArrivalQueueEvictionPolicy",
    "Count",
    "CountEvictionPolicy",
    "CountTriggerPolicy",
    "DefaultTrigger",
    "Duration",
    "Event",
    "EvictionContext",
    "EvictionPolicy",
    "FixedWindows",
    "GlobalWindows",
    "ManualClock",
    "Never",
    "OrFinally",
    "PaneInfo",
    "PeriodicTimers",
    "Repeatedly",
    "Sessions",
    "SlidingWindows",
    "StormWatermarkCountEvictionPolicy",
    "StormWatermarkTimeEvictionPolicy",
    "StormWatermarkTimeTriggerPolicy",
    "StormWindowManager",
    "TimeDifferenceWindows",
    "TimeEvictionPolicy",
    "TimeTriggerPolicy",
    "Timing",
    "Trigger",
    "TriggerContext",
    "TriggerPolicy",
    "TriggerResult",
    "TupleWindow",
    "WatermarkCountEvictionPolicy",
    "WatermarkCountTriggerPolicy",
    "WatermarkGenerator",
    "WatermarkTimeEvictionPolicy",
    "WatermarkTimeTriggerPolicy",
    "Window",
    "WindowAssigner",
    "WindowLifecycleListener",
    "WindowManager",
    "WindowScan",
    "WindowSpec",
    "aggregators",
]
