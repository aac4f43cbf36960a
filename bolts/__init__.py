"""Bolts: the plain bolt, Storm's windowed bolts, and the executor that runs a windowed bolt task."""

from bolts.aggregate.task import AggregateTask
from bolts.aggregate.windowed_aggregate_bolt import WindowedAggregateBolt
from bolts.aggregate.windowed_join_bolt import WindowedJoinBolt
from bolts.base_bolt import BaseBolt, BaseRichBolt
from bolts.collector import OutputCollector, OutputFieldsDeclarer
from bolts.context import TopologyContext
from bolts.errors import ERROR_FIELDS, TupleError
from bolts.event_time_options import LATE_TUPLE_FIELD
from bolts.storm.base_stateful_windowed_bolt import BaseStatefulWindowedBolt
from bolts.storm.base_windowed_bolt import BaseWindowedBolt
from bolts.storm.stateful_windowed_bolt_executor import StatefulWindowedBoltExecutor
from bolts.storm.window_config import WindowConfig
from bolts.storm.windowed_bolt_executor import WindowedBoltExecutor
from bolts.task import BoltTask, PlainBoltTask
from bolts.task_factory import make_task
from bolts.task_store import WindowStore
from bolts.tuples import DEFAULT_STREAM, Fields, Tuple

__all__ = [
    "DEFAULT_STREAM",
    "ERROR_FIELDS",
    "LATE_TUPLE_FIELD",
    "AggregateTask",
    "BaseBolt",
    "BaseRichBolt",
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
