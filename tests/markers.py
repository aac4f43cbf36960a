"""Markers from what a test uses, tiers by name, and a loud failure for Spark started without its fixture.

A pytest plugin (registered by tests/conftest.py). Nobody writes ``spark``,
``redis``, ``hbase``, ``kafka``, ``connect``, ``cluster`` or ``packaging`` on a
test: :func:`pytest_collection_modifyitems` adds them from the fixtures the
test uses (``item.fixturenames``, the transitive closure), by
:data:`FIXTURE_MARKERS`. A test that reaches a fixture only at run time
(``request.getfixturevalue``, as a parametrized backend does) names it in a
``pytest.mark.needs("fixture", ...)`` mark, expanded the same way. After a
test, every fixture it really set up is checked against its markers: a
missing one fails the test instead of leaving it in the wrong tier. ``faults`` is the one marker a
module states itself: it says what the test does (kill a driver, a store, a
broker), not what it needs.

``--tier NAME`` runs one named tier (:data:`TIERS`: each is a ``-m``
expression over those markers; every test is in exactly one tier, ``all``
is every test and the default).

A test without the ``spark`` marker cannot start Spark: in its process
``SparkSession.Builder.getOrCreate`` fails it, and ``SPARK_HOME`` points at a
directory whose ``bin/spark-submit`` and ``bin/spark-class`` print why and exit
1, so a child process (a driver, the CLI, spark-submit) fails too. Both are
restored after the test.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

#: The markers a fixture gives every test that uses it (directly or through other fixtures).
FIXTURE_MARKERS: dict[str, frozenset[str]] = {
    name: frozenset(markers)
    for name, markers in {
        "spark": {"spark"},  # the run's local[2] session (tests/spark_fixtures.py)
        "spark_process": {"spark"},  # child processes that start Spark drivers (tests/spark_fixtures.py)
        "local_cluster": {"spark", "cluster"},  # the local-cluster master: two executor processes
        "standalone_cluster": {"spark", "cluster"},  # a Spark standalone master and workers (tests/cluster)
        "connect_server": {"spark", "connect"},  # the run's Spark Connect server (tests/connect_fixtures.py)
        "start_connect_server": {"spark", "connect"},  # a Connect server of the test's own
        "redis_server": {"redis"},  # the run's redis-server (tests/service_fixtures.py)
        "start_redis": {"redis"},  # a redis-server of the test's own
        "hbase_url": {"hbase"},  # the run's HBase and its Thrift server
        "kafka_bootstrap": {"kafka"},  # the run's broker (tests/kafka_fixtures.py)
        "kafka": {"kafka"},  # reaches kafka_bootstrap at run time, so it is named too
        "start_kafka_broker": {"kafka"},  # a broker of the test's own
        "kafka_spark": {"spark", "kafka"},  # the session with Spark's Kafka connector jars
        "clean_copy": {"packaging"},  # a clean copy of the checkout to build from (tests/packaging)
        "wheel": {"packaging"},
    }.items()
}

#: Every marker this plugin derives or checks, as pyproject.toml registers them.
MARKERS = ("spark", "redis", "hbase", "kafka", "connect", "cluster", "faults", "packaging")

#: Each tier's ``-m`` expression. Checked in order, a test is in the first tier whose markers it has: packaging,
#: then faults, then cluster (local-cluster or Connect), then services, then spark; fast has none of them.
TIERS: dict[str, str] = {
    "fast": "not (spark or redis or hbase or kafka or connect or cluster or faults or packaging)",
    "spark": "spark and not (redis or hbase or kafka or connect or cluster or faults or packaging)",
    "services": "(redis or hbase or kafka) and not (connect or cluster or faults or packaging)",
    "cluster": "(connect or cluster) and not (faults or packaging)",
    "faults": "faults and not packaging",
    "packaging": "packaging",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--tier``: one tier of the suite by name."""
    tiers = ", ".join(f"{name}: -m '{expr}'" for name, expr in TIERS.items())
    parser.addoption("--tier", choices=[*TIERS, "all"], default="all",
                     help=f"run one tier of the suite (default all); {tiers}")
    parser.addoption("--show-markers", action="store_true",
                     help="with --collect-only: print each selected test's id and its markers (tests/test_layout.py "
                          "checks them against the test's folder)")


def pytest_configure(config: pytest.Config) -> None:
    """Register ``needs`` and turn ``--tier`` into the ``-m`` expression pytest selects by (and-ed with any -m)."""
    config.addinivalue_line("markers", "needs(*fixtures): fixtures a test reaches at run time (tests/markers.py)")
    tier = config.getoption("--tier")
    if tier != "all":
        given = config.option.markexpr
        config.option.markexpr = f"({given}) and ({TIERS[tier]})" if given else TIERS[tier]


def fixture_closure(item: pytest.Item, names: list[str]) -> set[str]:
    """``names`` and every fixture they use, as visible from ``item``."""
    manager = item.session._fixturemanager
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for definition in manager.getfixturedefs(name, item) or ():
            todo.extend(definition.argnames)
    return seen


def derived_markers(item: pytest.Item) -> set[str]:
    """The markers of the fixtures ``item`` uses: its fixture closure and the fixtures its ``needs`` marks name."""
    names = set(getattr(item, "fixturenames", ()))
    named = [name for mark in item.iter_markers("needs") for name in mark.args]
    if named:
        names |= fixture_closure(item, named)
    return {marker for name in names for marker in FIXTURE_MARKERS.get(name, ())}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test from its fixtures, before ``-m`` (and so ``--tier``) selects."""
    for item in items:
        have = {mark.name for mark in item.iter_markers()}
        for marker in sorted(derived_markers(item) - have):
            item.add_marker(marker)


def pytest_collection_finish(session: pytest.Session) -> None:
    """``--show-markers``: a line per selected test, ``<nodeid> <marker,marker,...>`` (``-`` for none)."""
    if not session.config.getoption("--show-markers"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for item in session.items:
        markers = sorted({mark.name for mark in item.iter_markers() if mark.name in MARKERS})
        reporter.write_line(f"{item.nodeid} {','.join(markers) or '-'}")


def _fixtures_set_up(item: pytest.Item) -> set[str]:
    request = getattr(item, "_request", None)
    return set(getattr(request, "_fixture_defs", {}))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After a passing test: the fixtures it set up at run time gave no marker it lacks."""
    result = yield
    have = {mark.name for mark in item.iter_markers()}
    missing = {
        name: sorted(FIXTURE_MARKERS[name] - have)
        for name in _fixtures_set_up(item)
        if name in FIXTURE_MARKERS and FIXTURE_MARKERS[name] - have
    }
    if missing:
        used = ", ".join(f"{name} ({', '.join(markers)})" for name, markers in sorted(missing.items()))
        pytest.fail(f"{item.nodeid} used {used} at run time without the marker(s): take the fixture as an argument "
                    f"or name it in pytest.mark.needs(...) on the test or its parameter", pytrace=False)
    return result


def spark_refusal(nodeid: str) -> str:
    """What a test without the ``spark`` marker is told when it starts Spark."""
    return (f"{nodeid} started Spark without a Spark fixture, so it is not marked `spark` and runs in the fast "
            f"tier: take `spark` (the session of the run), `spark_process` (a driver in a child process) or "
            f"`local_cluster` as an argument (tests/spark_fixtures.py)")


def _fake_spark_home(root: Path) -> Path:
    """A SPARK_HOME under ``root`` whose launchers print :func:`spark_refusal` for ``$SQUALL_TEST_ID`` and exit 1."""
    home = root / "spark-home-refusing"
    if home.is_dir():
        return home
    (home / "bin").mkdir(parents=True)
    # A single-quoted printf format: the message's backquotes stay text; the test's id comes from the environment.
    message = spark_refusal("%s")
    for launcher in ("spark-submit", "spark-class", "pyspark", "spark-shell"):
        script = home / "bin" / launcher
        script.write_text(f"#!/bin/sh\nprintf '{message} (it ran bin/{launcher} %s)\\n' "
                          f'"${{SQUALL_TEST_ID:-a test}}" "$*" >&2\nexit 1\n')
        script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return home


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Around a test without the ``spark`` marker: Spark cannot start, in this process or a child."""
    if item.get_closest_marker("spark") is not None:
        return (yield)
    home = _fake_spark_home(item.config._tmp_path_factory.getbasetemp())
    saved = {name: os.environ.get(name) for name in ("SPARK_HOME", "SQUALL_TEST_ID")}
    os.environ.update(SPARK_HOME=str(home), SQUALL_TEST_ID=item.nodeid)
    builder = _session_builder()
    original = builder.__dict__["getOrCreate"] if builder is not None else None

    def refuse(self, *args, **kwargs):
        pytest.fail(spark_refusal(item.nodeid), pytrace=False)

    if builder is not None:
        builder.getOrCreate = refuse
    try:
        return (yield)
    finally:
        if builder is not None:
            builder.getOrCreate = original
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _session_builder() -> type | None:
    """pyspark's ``SparkSession.Builder``, or None where pyspark is not installed (nothing can start Spark then)."""
    try:
        from pyspark.sql.session import SparkSession
    except ImportError:
        return None
    return SparkSession.Builder
