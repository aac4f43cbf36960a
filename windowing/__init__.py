"""Storm-style windows in pure Python: lengths, policies, the window manager and watermarks.

Nothing here imports Spark; the package is unit-tested without a JVM.
"""

from windowing.clock import ManualClock, PeriodicTimers
from windowing.count_eviction_policy import CountEvictionPolicy
from windowing.count_trigger_policy import CountTriggerPolicy
from windowing.duration import Count, Duration
from windowing.event import Event
from windowing.eviction_context import EvictionContext
from windowing.eviction_policy import EvictionPolicy, WindowScan
from windowing.time_eviction_policy import TimeEvictionPolicy
from windowing.time_trigger_policy import TimeTriggerPolicy
from windowing.trigger_policy import TriggerPolicy
from windowing.tuple_window import TupleWindow
from windowing.watermark_count_eviction_policy import WatermarkCountEvictionPolicy
from windowing.watermark_count_trigger_policy import WatermarkCountTriggerPolicy
from windowing.watermark_generator import WatermarkGenerator
from windowing.watermark_time_eviction_policy import WatermarkTimeEvictionPolicy
from windowing.watermark_time_trigger_policy import WatermarkTimeTriggerPolicy
from windowing.window_manager import WindowLifecycleListener, WindowManager
from windowing.window_spec import WindowSpec

__all__ = [
    "Count",
    "CountEvictionPolicy",
    "CountTriggerPolicy",
    "Duration",
    "Event",
    "EvictionContext",
    "EvictionPolicy",
    "ManualClock",
    "PeriodicTimers",
    "TimeEvictionPolicy",
    "TimeTriggerPolicy",
    "TriggerPolicy",
    "TupleWindow",
    "WatermarkCountEvictionPolicy",
    "WatermarkCountTriggerPolicy",
    "WatermarkGenerator",
    "WatermarkTimeEvictionPolicy",
    "WatermarkTimeTriggerPolicy",
    "WindowLifecycleListener",
    "WindowManager",
    "WindowScan",
    "WindowSpec",
]
