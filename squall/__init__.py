"""squall: Apache Storm-style windowed bolts on Apache Spark, under one import root.

Everything a topology needs is importable from here::

    from squall import BaseWindowedBolt, Duration, Fields, FileSpout, SparkRunner, TopologyBuilder

    class SlidingSum(BaseWindowedBolt):
        def execute(self, window):
            self.collector.emit([sum(t["value"] for t in window.get())])

        def declare_output_fields(self, declarer):
            declarer.declare(Fields("sum"))

    bolt = SlidingSum().with_window(Duration.seconds(20), Duration.seconds(10)).with_timestamp_field("ts")

Test a bolt without Spark with :class:`BoltHarness`; run a topology with :class:`SparkRunner`.

The names are the same objects as in the packages they come from (``squall.Duration is
windowing.Duration``), which stay importable: ``windowing`` (window sizes, ``TupleWindow``,
assigners, triggers, accumulation modes, ``aggregators``), ``bolts`` (bolt bases, ready-made
bolts, ``Tuple``, ``Fields``), ``topologies`` (``TopologyBuilder``, spouts, ``SparkRunner``,
``topologies.testing.BoltHarness``) and ``state_backends`` (``open_backend``, ``KeyValueState``).
Lower-level pieces (Storm's trigger and eviction policies, the window manager, the executors)
are imported from those packages.

Importing squall does not import pyspark; Spark is needed only to run a topology
(``pip install "squall[spark]"``).
"""

from bolts import (
    DEFAULT_STREAM,
    LATE_TUPLE_FIELD,
    BaseBasicBolt,
    BaseBolt,
    BaseRichBolt,
    BaseStatefulBolt,
    BaseStatefulWindowedBolt,
    BaseWindowedBolt,
    BasicOutputCollector,
    FailedException,
    Fields,
    JoinBolt,
    OutputCollector,
    OutputFieldsDeclarer,
    ReportedFailedException,
    TopologyContext,
    Tuple,
    TupleError,
    TupleFailedError,
    TupleTable,
    TupleUtils,
    WindowedAggregateBolt,
    WindowedJoinBolt,
)
from state_backends import KeyValueState, StateBackend, StateBackendError, open_backend
from topologies import (
    BoltDeclarer,
    Config,
    CustomStreamGrouping,
    DataFrameSpout,
    FileSpout,
    KafkaSpout,
    LambdaSpout,
    Output,
    Progress,
    RateSpout,
    SparkRunner,
    Spout,
    Topology,
    TopologyBuilder,
    TopologyHandle,
)
from topologies.sinks import KafkaSink, OutputBatch, Sink, TableSink
from topologies.spouts import MalformedRecordError
from topologies.testing import Activation, BoltHarness
from windowing import (
    AccumulationMode,
    AfterAll,
    AfterAny,
    AfterCount,
    AfterEach,
    AfterProcessingTime,
    AfterWatermark,
    Aggregator,
    ColumnarAggregator,
    Count,
    DefaultTrigger,
    Duration,
    FixedWindows,
    GlobalWindows,
    Never,
    OrFinally,
    PaneInfo,
    Repeatedly,
    Sessions,
    SlidingWindows,
    TimeDifferenceWindows,
    Timing,
    Trigger,
    TriggerContext,
    TriggerResult,
    TupleWindow,
    Window,
    WindowAssigner,
    aggregators,
)

__all__ = [
    "DEFAULT_STREAM",
    "LATE_TUPLE_FIELD",
    "AccumulationMode",
    "Activation",
    "AfterAll",
    "AfterAny",
    "AfterCount",
    "AfterEach",
    "AfterProcessingTime",
    "AfterWatermark",
    "Aggregator",
    "BaseBasicBolt",
    "BaseBolt",
    "BaseRichBolt",
    "BaseStatefulBolt",
    "BaseStatefulWindowedBolt",
    "BaseWindowedBolt",
    "BasicOutputCollector",
    "BoltDeclarer",
    "BoltHarness",
    "ColumnarAggregator",
    "Config",
    "Count",
    "CustomStreamGrouping",
    "DataFrameSpout",
    "DefaultTrigger",
    "Duration",
    "FailedException",
    "Fields",
    "FileSpout",
    "FixedWindows",
    "GlobalWindows",
    "JoinBolt",
    "KafkaSink",
    "KafkaSpout",
    "KeyValueState",
    "LambdaSpout",
    "MalformedRecordError",
    "Never",
    "OrFinally",
    "Output",
    "OutputBatch",
    "OutputCollector",
    "OutputFieldsDeclarer",
    "PaneInfo",
    "Progress",
    "RateSpout",
    "Repeatedly",
    "ReportedFailedException",
    "Sessions",
    "Sink",
    "SlidingWindows",
    "SparkRunner",
    "Spout",
    "StateBackend",
    "StateBackendError",
    "TableSink",
    "TimeDifferenceWindows",
    "Timing",
    "Topology",
    "TopologyBuilder",
    "TopologyContext",
    "TopologyHandle",
    "Trigger",
    "TriggerContext",
    "TriggerResult",
    "Tuple",
    "TupleError",
    "TupleFailedError",
    "TupleTable",
    "TupleUtils",
    "TupleWindow",
    "Window",
    "WindowAssigner",
    "WindowedAggregateBolt",
    "WindowedJoinBolt",
    "aggregators",
    "open_backend",
]
