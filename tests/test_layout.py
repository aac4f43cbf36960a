"""The package tree as docs/architecture.md describes it: public names pinned, no import cycles, small rooms."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("squall", "windowing", "bolts", "state_backends", "topologies")

# The documented imports (``from windowing import ...``, ``from bolts import ...``): changing them is deliberate.
PUBLIC = {
    "windowing": {
        "AccumulationMode", "Action", "AfterAll", "AfterAny", "AfterCount", "AfterEach", "AfterProcessingTime",
        "AfterWatermark", "Aggregator", "ArrivalQueueEvictionPolicy", "ColumnarAggregator", "Count",
        "CountEvictionPolicy", "CountTriggerPolicy",
        "DefaultTrigger", "Duration", "END_OF_TIME", "Event", "EvictionContext", "EvictionPolicy", "FixedWindows",
        "GlobalWindows", "MIN_TIMESTAMP", "ManualClock", "Never", "OrFinally", "PaneInfo", "PeriodicTimers",
        "Repeatedly", "Sessions", "SlidingWindows", "StormWatermarkCountEvictionPolicy",
        "StormWatermarkTimeEvictionPolicy", "StormWatermarkTimeTriggerPolicy", "StormWindowManager",
        "TimeDifferenceWindows", "TimeEvictionPolicy", "TimeTriggerPolicy", "Timing", "Trigger", "TriggerContext",
        "TriggerPolicy", "TriggerResult", "TupleWindow", "WatermarkCountEvictionPolicy", "WatermarkCountTriggerPolicy",
        "WatermarkGenerator", "WatermarkTimeEvictionPolicy", "WatermarkTimeTriggerPolicy", "Window", "WindowAssigner",
        "WindowLifecycleListener", "WindowManager", "WindowScan", "WindowSpec", "aggregators",
    },
    "bolts": {
        "AggregateTask", "BaseBasicBolt", "BaseStatefulBolt", "BasicOutputCollector", "FailedException", "JoinBolt",
        "ReportedFailedException", "TopologyLayout", "TupleFailedError", "TupleUtils", "BaseBolt", "BaseRichBolt",
        "BaseStatefulWindowedBolt", "BaseWindowedBolt", "BoltTask",
        "DEFAULT_STREAM", "ERROR_FIELDS", "Fields", "LATE_TUPLE_FIELD", "OutputCollector", "OutputFieldsDeclarer",
        "PlainBoltTask", "StoredWindowedBoltTask", "TaskOptions", "TopologyContext", "Tuple", "TupleError",
        "WindowConfig", "WindowStore", "WindowedAggregateBolt", "WindowedBoltTask", "WindowedJoinBolt", "make_task",
    },
    "windowing.triggers": {
        "AfterAll", "AfterAny", "AfterCount", "AfterEach", "AfterProcessingTime", "AfterWatermark", "DefaultTrigger",
        "Never", "OrFinally", "Repeatedly", "Trigger", "TriggerContext", "TriggerResult", "evaluate",
    },
}
MOST_MODULES = 15


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """squall modules ``path`` imports: at the top, inside functions and under TYPE_CHECKING alike."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {name for name in out if name in modules}


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_public_names_are_pinned(package):
    module = importlib.import_module(package)
    assert set(module.__all__) == PUBLIC[package]
    for name in module.__all__:
        assert getattr(module, name) is not None


def test_no_import_cycles():
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            cycle = [*path[path.index(name) :], name]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if name in done:
            return
        for dep in sorted(graph[name]):
            visit(dep, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_no_package_directory_is_crowded():
    crowded = {}
    for package in PACKAGES:
        for directory in [ROOT / package, *(p.parent for p in (ROOT / package).rglob("*/__init__.py"))]:
            count = len(list(directory.glob("*.py")))
            if count > MOST_MODULES + 1:  # __init__.py is not a module of its own
                crowded[str(directory.relative_to(ROOT))] = count
    assert not crowded, f"directories with more than {MOST_MODULES} modules: {crowded}"
