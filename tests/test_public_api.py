"""The ``squall`` import root: its names are pinned, and each is the object its home package exports."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import squall

ROOT = Path(__file__).resolve().parents[1]
OPTIONAL = ("pyspark", "py4j", "pandas", "redis", "happybase", "confluent_kafka")
# name -> the module it comes from; adding or removing a public name is a deliberate change to this table.
HOME = {
    "DEFAULT_STREAM": "bolts",
    "LATE_TUPLE_FIELD": "bolts",
    "BaseBolt": "bolts",
    "BaseBasicBolt": "bolts",
    "BaseStatefulBolt": "bolts",
    "BasicOutputCollector": "bolts",
    "FailedException": "bolts",
    "JoinBolt": "bolts",
    "ReportedFailedException": "bolts",
    "TupleFailedError": "bolts",
    "TupleTable": "bolts",
    "TupleUtils": "bolts",
    "Config": "topologies",
    "CustomStreamGrouping": "topologies",
    "BaseRichBolt": "bolts",
    "BaseStatefulWindowedBolt": "bolts",
    "BaseWindowedBolt": "bolts",
    "Fields": "bolts",
    "OutputCollector": "bolts",
    "OutputFieldsDeclarer": "bolts",
    "TopologyContext": "bolts",
    "Tuple": "bolts",
    "TupleError": "bolts",
    "WindowedAggregateBolt": "bolts",
    "WindowedJoinBolt": "bolts",
    "KeyValueState": "state_backends",
    "StateBackend": "state_backends",
    "StateBackendError": "state_backends",
    "open_backend": "state_backends",
    "BoltDeclarer": "topologies",
    "DataFrameSpout": "topologies.spouts",
    "FileSpout": "topologies.spouts",
    "KafkaSink": "topologies.sinks",
    "TableSink": "topologies.sinks",
    "Sink": "topologies.sinks",
    "OutputBatch": "topologies.sinks",
    "KafkaSpout": "topologies.spouts",
    "LambdaSpout": "topologies.spouts",
    "MalformedRecordError": "topologies.spouts",
    "Output": "topologies",
    "Progress": "topologies",
    "RateSpout": "topologies.spouts",
    "SparkRunner": "topologies",
    "Spout": "topologies.spouts",
    "Topology": "topologies",
    "TopologyBuilder": "topologies",
    "TopologyHandle": "topologies",
    "Activation": "topologies.testing",
    "BoltHarness": "topologies.testing",
    "AccumulationMode": "windowing",
    "AfterAll": "windowing",
    "AfterAny": "windowing",
    "AfterCount": "windowing",
    "AfterEach": "windowing",
    "AfterProcessingTime": "windowing",
    "AfterWatermark": "windowing",
    "Aggregator": "windowing",
    "ColumnarAggregator": "windowing",
    "Count": "windowing",
    "DefaultTrigger": "windowing",
    "Duration": "windowing",
    "FixedWindows": "windowing",
    "GlobalWindows": "windowing",
    "Never": "windowing",
    "OrFinally": "windowing",
    "PaneInfo": "windowing",
    "Repeatedly": "windowing",
    "Sessions": "windowing",
    "SlidingWindows": "windowing",
    "TimeDifferenceWindows": "windowing",
    "Timing": "windowing",
    "Trigger": "windowing",
    "TriggerContext": "windowing",
    "TriggerResult": "windowing",
    "TupleWindow": "windowing",
    "Window": "windowing",
    "WindowAssigner": "windowing",
    "aggregators": "windowing",
}


def test_all_is_pinned_sorted_and_unique():
    names = list(squall.__all__)
    assert len(names) == len(set(names)), f"duplicates in squall.__all__: {names}"
    missing, extra = sorted(set(HOME) - set(names)), sorted(set(names) - set(HOME))
    assert not missing and not extra, f"squall.__all__ changed: missing {missing}, unexpected {extra}"

    # ruff's RUF022 order: SCREAMING_CASE constants, then CamelCase, then the rest.
    def kind(name: str) -> int:
        return 0 if name.isupper() else 1 if name[0].isupper() else 2

    assert names == sorted(names, key=lambda n: (kind(n), n)), "squall.__all__ is not sorted"


@pytest.mark.parametrize("name", sorted(HOME))
def test_name_is_the_home_package_object(name):
    home = importlib.import_module(HOME[name])
    assert getattr(squall, name) is getattr(home, name), f"squall.{name} is not {HOME[name]}.{name}"


def test_star_import_gives_exactly_all():
    namespace: dict[str, object] = {}
    exec("from squall import *", namespace)
    assert sorted(set(namespace) - {"__builtins__"}) == sorted(squall.__all__)


def test_aggregators_is_the_module():
    assert squall.aggregators.__name__ == "windowing.aggregators"
    assert not hasattr(squall.aggregators, "Count"), "squall.Count is the window size; the aggregator is TupleCount"
    assert squall.aggregators.count() == squall.aggregators.TupleCount()


def test_import_does_not_load_pyspark():
    code = f"import sys, squall\nprint(','.join(sorted(m for m in sys.modules if m.split('.')[0] in {OPTIONAL!r})))\n"
    # cwd is the repo root, so this finds ./squall even where an older editable install does not map it.
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, f"import squall failed:\n{result.stderr}"
    assert result.stdout.strip() == "", f"import squall loaded optional dependencies: {result.stdout.strip()}"
