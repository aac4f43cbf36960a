"""Bolts: the plain bolt, Storm's windowed bolts, ready-made bolts, and the tasks that run one instance of each."""

from bolts.aggregate.task import AggregateTask
from bolts.aggregate.windowed_aggregate_bolt import WindowedAggregateBolt
from bolts.aggregate.windowed_join_bolt import WindowedJoinBolt
from bolts.base_bolt import BaseBolt, BaseRichBolt
from bolts.collector import OutputCollector, OutputFieldsDeclarer, TupleFailedError
from bolts.context import TopologyContext, TopologyLayout
from bolts.errors import ERROR_FIELDS, TupleError
from bolts.event_time_options import LATE_TUPLE_FIELD
from bolts.storm.base_basic_bolt import BaseBasicBolt, BasicOutputCollector, FailedException, ReportedFailedException
from bolts.storm.base_stateful_bolt import BaseStatefulBolt
from bolts.storm.base_stateful_windowed_bolt import BaseStatefulWindowedBolt
from bolts.storm.base_windowed_bolt import BaseWindowedBolt
from bolts.storm.join_bolt import JoinBolt
from bolts.storm.stored_windowed_bolt_task import StoredWindowedBoltTask
from bolts.storm.tick import TupleUtils
from bolts.storm.window_config import WindowConfig
from bolts.storm.windowed_bolt_task import WindowedBoltTask
from bolts.task import BoltTask, PlainBoltTask, TaskOptions
from bolts.task_factory import make_task
from bolts.task_input import TupleTable
from bolts.task_store import WindowStore
from bolts.tuples import DEFAULT_STREAM, Fields, Tuple

__all__ = [
    "DEFAULT_STREAM",
    "ERROR_FIELDS",
    "LATE_TUPLE_FIELD",
    "AggregateTask",
    "BaseBasicBolt",
    "BaseBolt",
    "BaseRichBolt",
    "BaseStatefulBolt",
    "BaseStatefulWindowedBolt",
    "BaseWindowedBolt",
    "BasicOutputCollector",
    "BoltTask",
    "FailedException",
    "Fields",
    "JoinBolt",
    "OutputCollector",
    "OutputFieldsDeclarer",
    "PlainBoltTask",
    "ReportedFailedException",
    "StoredWindowedBoltTask",
    "TaskOptions",
    "TopologyContext",
    "TopologyLayout",
    "Tuple",
    "TupleError",
    "TupleFailedError",
    "TupleTable",
    "TupleUtils",
    "WindowConfig",
    "WindowStore",
    "WindowedAggregateBolt",
    "WindowedBoltTask",
    "WindowedJoinBolt",
    "make_task",
]
