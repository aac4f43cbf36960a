"""Bolts: the plain bolt, Storm's windowed bolts, and the executor that runs a windowed bolt task."""

from bolts.aggregate_task import AggregateTask
from bolts.base_bolt import BaseBolt
from bolts.base_stateful_windowed_bolt import BaseStatefulWindowedBolt
from bolts.base_windowed_bolt import BaseWindowedBolt
from bolts.collector import OutputCollector, OutputFieldsDeclarer
from bolts.context import TopologyContext
from bolts.errors import ERROR_FIELDS, TupleError
from bolts.stateful_windowed_bolt_executor import StatefulWindowedBoltExecutor, WindowStore
from bolts.task import BoltTask, PlainBoltTask, make_task
from bolts.tuples import DEFAULT_STREAM, Fields, Tuple
from bolts.window_config import LATE_TUPLE_FIELD, WindowConfig
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
