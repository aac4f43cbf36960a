"""Bolts: the plain bolt, Storm's windowed bolts, and the executor that runs a windowed bolt task."""

from bolts.aggregate_task import AggregateTask
from bolts.base_bolt import BaseBolt
from bolts.base_stateful_windowed_bolt import BaseStatefulWindowedBolt
from bolts.base_windowed_bolt import BaseWindowedBolt
from bolts.collector import OutputCollector, OutputFieldsDeclarer
from bolts.context import TopologyContext
from bolts.errors import ERROR_FIELDS, TupleError
from bolts.event_time_options import LATE_TUPLE_FIELD
from bolts.stateful_windowed_bolt_executor import StatefulWindowedBoltExecutor
from bolts.task import BoltTask, PlainBoltTask
from bolts.task_factory import make_task
from bolts.task_store import WindowStore
from bolts.tuples import DEFAULT_STREAM, Fields, Tuple
from bolts.window_config import WindowConfig
from bolts.windowed_aggregate_bolt import WindowedAggregateBolt
from bolts.windowed_bolt_executor import WindowedBoltExecutor
from bolts.windowed_join_bolt import WindowedJoinBolt

__all__ = [
    "DEFAULT_STREAM",
    "ERROR_FIELDS",
    "LATE_TUPLE_FIELD",
    "AggregateTask",
    "BaseBolt",
    "BaseStatefulWindowedBolt",
    "BaseWindowedBolt",
    "BoltTask",
    "Fields",
    "OutputCollector",
    "OutputFieldsDeclarer",
    "PlainBoltTask",
    "StatefulWindowedBoltExecutor",
    "TopologyContext",
    "Tuple",
    "TupleError",
    "WindowConfig",
    "WindowStore",
    "WindowedAggregateBolt",
    "WindowedBoltExecutor",
    "WindowedJoinBolt",
    "make_task",
]
