"""tests/markers.py: markers come from fixtures, tiers partition the suite, Spark without its fixture fails loudly.

Each test here runs pytest on a small suite of its own (pytester) whose
fixtures have the real fixtures' names but start nothing, so none of it needs
a JVM or a server.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from pathlib import Path

import pytest

from tests.markers import FIXTURE_MARKERS, MARKERS, TIERS

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent

# Stand-ins for the real fixtures, with their names and dependencies: only the names matter to the plugin.
CONFTEST = '''
import pytest

pytest_plugins = ["tests.markers"]


@pytest.fixture(scope="session")
def spark(): return "a session"
@pytest.fixture(scope="session")
def spark_process(): return "a process runner"
@pytest.fixture(scope="session")
def local_cluster(spark_process): return "local-cluster[2,1,1024]"
@pytest.fixture(scope="session")
def redis_server(): return "a server"
@pytest.fixture(scope="session")
def redis_url(redis_server): return "redis://"
@pytest.fixture(scope="session")
def hbase_url(): return "hbase://"
@pytest.fixture(scope="session")
def connect_server(): return "a server"
@pytest.fixture(scope="session")
def connect_url(connect_server): return "sc://"
@pytest.fixture(scope="session")
def kafka_bootstrap(): return "127.0.0.1:9092"
@pytest.fixture(scope="session")
def wheel(): return "a wheel"


@pytest.fixture
def store(redis_url):  # a fixture of the suite's own, which uses a server
    return redis_url


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.needs("redis_url"))])
def backend(request):
    return request.getfixturevalue("redis_url") if request.param == "redis" else "memory://"
'''

INI = "[pytest]\nmarkers =\n" + "".join(f"    {name}: a marker\n" for name in MARKERS)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makeini(INI)
    return pytester


def markers_of(pytester: pytest.Pytester, *args: str) -> dict[str, set[str]]:
    """Each selected test's name and its markers of :data:`MARKERS` (``--collect-only`` with ``args``)."""
    recorder = pytester.inline_run("--collect-only", "-p", "no:cacheprovider", *args)
    (finished,) = recorder.getcalls("pytest_collection_finish")
    return {item.name: {m.name for m in item.iter_markers()} & set(MARKERS) for item in finished.session.items}


def test_a_test_is_marked_by_the_fixtures_it_uses_directly_or_through_others(suite):
    suite.makepyfile(test_uses="""
        def test_pure(): pass
        def test_session(spark): pass
        def test_driver_process(spark_process): pass
        def test_local_cluster(local_cluster): pass
        def test_through_a_fixture_of_its_own(store): pass
        def test_connect(connect_url, redis_url, hbase_url): pass
        def test_kafka(kafka_bootstrap, spark): pass
        def test_wheel(wheel): pass
        def test_backend(backend): pass
    """)
    assert markers_of(suite) == {
        "test_pure": set(),
        "test_session": {"spark"},
        "test_driver_process": {"spark"},
        "test_local_cluster": {"spark", "cluster"},
        "test_through_a_fixture_of_its_own": {"redis"},
        "test_connect": {"spark", "connect", "redis", "hbase"},
        "test_kafka": {"kafka", "spark"},
        "test_wheel": {"packaging"},
        "test_backend[memory]": set(),
        "test_backend[redis]": {"redis"},  # named by its parameter's needs(...) mark
    }


def test_a_fixture_reached_at_run_time_without_its_marker_fails_the_test_naming_it(suite):
    suite.makepyfile(test_late="""
        def test_reaches_redis(request):
            request.getfixturevalue("redis_url")
    """)
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*test_reaches_redis used redis_server (redis) at run time without the marker(s)*"])


def test_spark_started_in_process_without_the_fixture_fails_naming_the_test_and_the_fixtures(suite):
    suite.makepyfile(test_sneaky="""
        def test_starts_a_session():
            from pyspark.sql import SparkSession

            SparkSession.builder.master("local[1]").getOrCreate()
    """)
    pytest.importorskip("pyspark")
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*test_sneaky.py::test_starts_a_session started Spark without a Spark fixture*"
                                 "take `spark`*`spark_process`*`local_cluster`*"])


def test_spark_started_in_a_child_process_without_the_fixture_fails_there_with_the_message(suite):
    pytest.importorskip("pyspark")
    suite.makepyfile(test_child="""
        import subprocess, sys

        CODE = "from pyspark.sql import SparkSession; SparkSession.builder.master('local[1]').getOrCreate()"

        def test_a_child_driver():
            proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, proc.stderr
    """)
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*test_child.py::test_a_child_driver started Spark without a Spark fixture*"
                                 "(it ran bin/spark-submit*"])


def test_the_guards_are_lifted_for_a_spark_test_and_restored_after_each_test(suite):
    suite.makepyfile(test_env="""
        import os

        HOME = os.environ.get("SPARK_HOME")

        def test_spark_sees_the_real_home(spark):
            assert os.environ.get("SPARK_HOME") == HOME

        def test_pure_sees_the_refusing_home():
            assert os.environ["SPARK_HOME"].endswith("spark-home-refusing")
    """)
    suite.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_the_tiers_partition_every_combination_of_markers(suite):
    """Each of the 256 combinations of markers is in exactly one tier, and ``--tier all`` runs them all."""
    combos = [c for n in range(len(MARKERS) + 1) for c in itertools.combinations(MARKERS, n)]
    params = ", ".join(f"pytest.param({i}, marks=[{', '.join(f'pytest.mark.{m}' for m in combo)}])"
                       for i, combo in enumerate(combos))
    suite.makepyfile(test_combos=f"import pytest\n\n@pytest.mark.parametrize('i', [{params}])\ndef test_c(i): pass\n")
    everything = set(markers_of(suite, "--tier", "all"))
    assert len(everything) == len(combos) == 256
    tiers = {tier: set(markers_of(suite, "--tier", tier)) for tier in TIERS}
    assert sum(len(ids) for ids in tiers.values()) == len(everything)
    assert set().union(*tiers.values()) == everything
    assert tiers["fast"] == {"test_c[0]"}  # no marker at all
    assert len(tiers["packaging"]) == 128  # everything with packaging, whatever else


def test_a_tier_and_a_marker_expression_select_together(suite):
    suite.makepyfile(test_both="""
        def test_spark_only(spark): pass
        def test_spark_and_redis(spark, redis_url): pass
        def test_redis(redis_url): pass
    """)
    assert set(markers_of(suite, "--tier", "services", "-m", "not spark")) == {"test_redis"}


def test_every_fixture_named_by_the_plugin_exists_and_every_marker_is_registered():
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    defined = set(re.findall(r"@pytest\.fixture[^\n]*\n(?:@[^\n]*\n)*def (\w+)\(", sources))
    assert set(FIXTURE_MARKERS) <= defined, set(FIXTURE_MARKERS) - defined
    registered = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    assert {line.split(":")[0] for line in registered} == set(MARKERS)


def test_no_test_writes_a_marker_the_plugin_derives():
    """Only ``faults`` is written by hand; tests/test_docs.py computes its files' markers from what their blocks
    read (and the run-time check holds them to the fixtures they reach)."""
    derived = "|".join(m for m in MARKERS if m != "faults")
    written = re.compile(rf"pytest\.mark\.({derived})\b")
    skip = {"markers.py", "test_markers.py", "test_docs.py"}
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sorted((ROOT / "tests").rglob("*.py")) if p.name not in skip
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if written.search(line)]
    assert not found, f"markers written by hand (take the fixture instead, tests/markers.py): {found}"
