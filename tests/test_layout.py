"""The trees as docs/architecture.md describes them.

The package tree: public names pinned, no import cycles, small rooms. The test tree ("Tests by tier"): each test in
the folder its markers give, by the rule of :func:`misplaced`.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
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
        "ReportedFailedException", "TopologyLayout", "TupleFailedError", "TupleTable", "TupleUtils", "BaseBolt",
        "BaseRichBolt", "BaseStatefulWindowedBolt", "BaseWindowedBolt", "BoltTask",
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


# --- the test tree ---------------------------------------------------------------------------------------------------

#: Folders of a subject (a package, or a part of its meaning): their tests run in this process, with at most a store
#: server (``redis``, ``hbase``); the ones that need Spark sit in the folder's ``spark/`` subfolder.
SUBJECTS = ("benchmarks", "bolts", "event_time", "sinks", "state_backends", "storm_api", "topologies", "windowing")
#: Folders whose subject is a run on Spark (storm-starter's ports; squall against Spark's own operators): no subfolder.
SPARK_SUITES = ("porting", "spark_semantics")
#: An environment's marker and the folders of a test that has it, whatever its subject (with two markers, a folder of
#: either); a folder holds anything else about its environment too. tests/cluster runs the placements side by side,
#: Connect's among them.
ENVIRONMENTS = {"cluster": ("cluster",), "connect": ("connect", "cluster"), "faults": ("faults",),
                "kafka": ("kafka",), "packaging": ("packaging",)}
IN_PROCESS = frozenset({"redis", "hbase"})
ON_SPARK = IN_PROCESS | {"spark"}


def misplaced(path: str, markers: set[str]) -> str | None:
    """Why a test of file ``path`` (``tests/...``) with ``markers`` is in the wrong folder, or None.

    Files at the top of tests/ check the whole repository (docs, markers, this layout, the public API): any tier.
    """
    parts = path.split("/")
    if len(parts) == 2:
        return None
    folder = parts[1]
    needed = sorted(markers & set(ENVIRONMENTS))
    homes = sorted({home for marker in needed for home in ENVIRONMENTS[marker]})
    if needed and folder not in homes:
        return f"needs {' and '.join(needed)}: belongs in " + " or ".join(f"tests/{name}/" for name in homes)
    if folder in ENVIRONMENTS:
        return None
    if folder in SPARK_SUITES:
        allowed, where = ON_SPARK, None
    elif folder in SUBJECTS:
        spark_folder = len(parts) > 3 and parts[2] == "spark"
        allowed, where = (ON_SPARK, None) if spark_folder else (IN_PROCESS, f"tests/{folder}/spark/")
    else:
        return f"tests/{folder}/ is in no list of tests/test_layout.py: add it to one (docs/architecture.md)"
    extra = sorted(markers & {"spark", "cluster", "connect", "faults", "kafka", "packaging"} - allowed)
    return f"needs {', '.join(extra)}: belongs in {where}" if extra else None


def collected_markers() -> dict[str, set[str]]:
    """Every test of the suite and its markers, as a collection in a child process sees them (no test runs)."""
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                             "--show-markers", "tests"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    found = {}
    for line in result.stdout.splitlines():
        nodeid, _, markers = line.partition(" ")
        if "::" in nodeid and markers:
            found[nodeid] = set(markers.split(",")) - {"-"}
    assert len(found) > 1000, result.stdout[-3000:]
    return found


def test_every_test_is_in_the_folder_its_markers_give():
    tests = collected_markers()
    wrong = {}
    spark_files: dict[str, bool] = {}
    for nodeid, markers in tests.items():
        path = nodeid.split("::")[0]
        reason = misplaced(path, markers)
        if reason:
            wrong.setdefault(f"{path} ({reason})", []).append(nodeid.split("::", 1)[1])
        if "/spark/" in path:
            spark_files[path] = spark_files.get(path, False) or "spark" in markers
    assert not wrong, "tests in the wrong folder (docs/architecture.md#tests-by-tier):\n" + "\n".join(
        f"{where}: {', '.join(names[:3])}{' ...' if len(names) > 3 else ''}" for where, names in sorted(wrong.items()))
    light = sorted(path for path, has_spark in spark_files.items() if not has_spark)
    assert not light, f"files in a spark/ folder with no test that needs Spark (they belong one folder up): {light}"


@pytest.mark.parametrize(("path", "markers", "reason"), [
    ("tests/test_docs.py", {"spark", "connect"}, None),
    ("tests/topologies/test_builder.py", set(), None),
    ("tests/state_backends/test_commit.py", {"redis"}, None),
    ("tests/topologies/test_builder.py", {"spark"}, "needs spark: belongs in tests/topologies/spark/"),
    ("tests/topologies/spark/test_spark_hash.py", {"spark"}, None),
    ("tests/porting/test_stateful_topology.py", {"spark", "redis"}, None),
    ("tests/state_backends/test_x.py", {"spark", "cluster", "redis"}, "needs cluster: belongs in tests/cluster/"),
    ("tests/topologies/spark/test_x.py", {"spark", "connect"}, "needs connect: belongs in tests/cluster/ or "
                                                               "tests/connect/"),
    ("tests/cluster/test_every_placement.py", {"spark", "connect"}, None),
    ("tests/faults/test_x.py", {"spark", "kafka"}, "needs kafka: belongs in tests/kafka/"),
    ("tests/kafka/test_connect_kafka.py", {"spark", "kafka", "connect"}, None),
    ("tests/connect/test_connect_stop.py", {"spark", "connect", "faults"}, None),
    ("tests/faults/test_bad_input.py", {"spark"}, None),
    ("tests/newfolder/test_x.py", set(), "tests/newfolder/ is in no list of tests/test_layout.py: add it to one "
                                         "(docs/architecture.md)"),
])
def test_the_folder_rule(path, markers, reason):
    assert misplaced(path, markers) == reason
