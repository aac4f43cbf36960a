"""Storm-style windows in pure Python: lengths, policies, the window manager and watermarks.

Nothing here imports Spark; the package is unit-tested without a JVM.
"""

from windowing import aggregators
from windowing.accumulation import AccumulationMode
from windowing.aggregators import Aggregator, ColumnarAggregator
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
from windowing.duration import Count, Duration
from windowing.panes import PaneInfo, Timing
from windowing.storm.event import Event
from windowing.storm.exact.arrival_queue_eviction_policy import ArrivalQueueEvictionPolicy
from windowing.storm.exact.watermark_count_eviction_policy import StormWatermarkCountEvictionPolicy
from windowing.storm.exact.watermark_time_eviction_policy import StormWatermarkTimeEvictionPolicy
from windowing.storm.exact.watermark_time_trigger_policy import StormWatermarkTimeTriggerPolicy
from windowing.storm.exact.window_manager import StormWindowManager
from windowing.storm.policies.count_eviction_policy import CountEvictionPolicy
from windowing.storm.policies.count_trigger_policy import CountTriggerPolicy
from windowing.storm.policies.eviction_action import Action
from windowing.storm.policies.eviction_context import EvictionContext
from windowing.storm.policies.eviction_policy import EvictionPolicy, WindowScan
from windowing.storm.policies.time_eviction_policy import TimeEvictionPolicy
from windowing.storm.policies.time_trigger_policy import TimeTriggerPolicy
from windowing.storm.policies.trigger_policy import TriggerPolicy
from windowing.storm.policies.watermark_count_eviction_policy import WatermarkCountEvictionPolicy
from windowing.storm.policies.watermark_count_trigger_policy import WatermarkCountTriggerPolicy
from windowing.storm.policies.watermark_time_eviction_policy import WatermarkTimeEvictionPolicy
from windowing.storm.policies.watermark_time_trigger_policy import WatermarkTimeTriggerPolicy
from windowing.storm.tuple_window import TupleWindow
from windowing.storm.window_manager import WindowLifecycleListener, WindowManager
from windowing.storm.window_spec import WindowSpec
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
from windowing.watermark_generator import WatermarkGenerator

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
    "Aggregator",
    "ArrivalQueueEvictionPolicy",
    "ColumnarAggregator",
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
