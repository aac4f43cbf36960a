"""Every ```python block in README.md and docs/*.md runs as written.

A file's blocks run in order in one namespace (later blocks build on earlier ones), in a
temporary working directory. ``SparkSession.builder.getOrCreate()`` in a block returns the
test run's session. Every block runs: a block marked ``<!-- not run: <reason> -->`` on the
line before its fence fails :func:`test_every_block_runs`.

Blocks that need a service read its address from an environment variable, with the default
the docs give (``os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")``): a file whose
blocks name one of :data:`SERVICES` runs with that variable set to the test run's own server
(started by its fixture, the session's Kafka connector loaded for Kafka) and carries the
service's marker; it skips, saying why, when the service cannot be started here. Files that
need Kafka run in tests/kafka/test_docs_kafka.py, beside the other Kafka tests and their one
broker; the others run here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(?P<reason>.+?)\s*-->$")
NEEDS_SPARK = re.compile(r"\bspark\b|SparkSession|SparkRunner|FileSpout|DataFrameSpout|RateSpout|run_bounded")
CLUSTER = "local-cluster["  # a block that starts executor processes: marked `cluster`


@dataclass(frozen=True)
class Service:
    """A server a doc block reaches through ``variable``: its pytest marker and how the test run provides it."""

    marker: str
    fixture: str  # the fixture that starts it (skipping when it cannot)
    address: Callable[[pytest.FixtureRequest], str]  # the value ``variable`` gets, once the fixture is up


#: Environment variables the docs read service addresses from, as the docs document them.
SERVICES = {
    "KAFKA_BOOTSTRAP_SERVERS": Service("kafka", "kafka_spark",  # the broker, and the connector in the session
                                       lambda request: request.getfixturevalue("kafka").bootstrap),
    "REDIS_URL": Service("redis", "redis_url", lambda request: request.getfixturevalue("redis_url")),
    # A file that reads it runs in a process of its own (run_elsewhere): a Connect session and the test
    # run's classic session cannot share one process.
    "SPARK_CONNECT_URL": Service("connect", "connect_url", lambda request: request.getfixturevalue("connect_url")),
}


@dataclass(frozen=True)
class Block:
    """One fenced python block: its first code line (1-based), its source, and why it is not run (if so)."""

    line: int
    source: str
    not_run: str | None


def doc_files() -> list[Path]:
    """README.md, then docs/*.md by name."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """The top-level ```python blocks of ``path``, with the ``not run`` marker on the line before each fence."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    previous = ""
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if lines[i].startswith("```python"):
            start = i + 1
            end = start
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            marker = NOT_RUN.match(previous)
            found.append(Block(start + 1, "\n".join(lines[start:end]) + "\n", marker and marker["reason"]))
            i = end + 1
            previous = ""
            continue
        if stripped:
            previous = stripped
        i += 1
    return found


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def services(path: Path) -> list[str]:
    """The :data:`SERVICES` variables that the runnable blocks of ``path`` read."""
    sources = [b.source for b in blocks(path) if b.not_run is None]
    return [variable for variable in SERVICES if any(variable in source for source in sources)]


def needs_spark(path: Path) -> bool:
    """Whether a runnable block of ``path`` uses Spark (or a service, which the docs reach through Spark)."""
    return bool(services(path)) or any(NEEDS_SPARK.search(b.source) for b in blocks(path) if b.not_run is None)


def marks(path: Path) -> list[pytest.MarkDecorator]:
    """``spark`` if its blocks use it, and the marker of each service (and ``cluster``) the runnable blocks of
    ``path`` need: the fixtures :func:`run_file` reaches at run time (tests/markers.py checks them)."""
    found = [pytest.mark.spark] if needs_spark(path) else []
    found += [getattr(pytest.mark, SERVICES[v].marker) for v in services(path)]
    if any(CLUSTER in b.source for b in blocks(path) if b.not_run is None):
        found.append(pytest.mark.cluster)
    return found


RUNNABLE = [p for p in doc_files() if any(b.not_run is None for b in blocks(p))]
KAFKA_FILES = [p for p in RUNNABLE if "KAFKA_BOOTSTRAP_SERVERS" in services(p)]  # tests/kafka/test_docs_kafka.py
FILES = [p for p in RUNNABLE if p not in KAFKA_FILES]
NOT_RUN_BLOCKS = [(p, b) for p in doc_files() for b in blocks(p) if b.not_run is not None]


def test_some_blocks_are_found():
    assert RUNNABLE, "no ```python block found in README.md or docs/"


def test_service_blocks_carry_their_markers():
    """docs/spark.md's Kafka and Redis examples run, and CI's markers select them."""
    spark_md = ROOT / "docs" / "spark.md"
    assert services(spark_md) == ["KAFKA_BOOTSTRAP_SERVERS", "REDIS_URL"]
    assert {m.name for m in marks(spark_md)} == {"spark", "kafka", "redis"}
    assert spark_md in KAFKA_FILES and spark_md not in FILES
    assert not [b.line for b in blocks(spark_md) if b.not_run]  # every python block of spark.md runs


@pytest.mark.parametrize("path", [pytest.param(p, marks=marks(p), id=rel(p)) for p in FILES])
def test_blocks_run_as_written(path, request, tmp_path, monkeypatch):
    run_file(path, request, tmp_path, monkeypatch)


def run_file(path: Path, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the runnable blocks of ``path`` in order in one namespace, in ``tmp_path``; fail at the first that raises."""
    runnable = [b for b in blocks(path) if b.not_run is None]
    for variable in services(path):  # the test run's servers, where the docs' defaults would be
        service = SERVICES[variable]
        request.getfixturevalue(service.fixture)
        monkeypatch.setenv(variable, service.address(request))
    monkeypatch.chdir(tmp_path)
    if "SPARK_CONNECT_URL" in services(path):
        error = run_elsewhere(path)
        if error is not None:
            pytest.fail(f"{rel(path)}: {error}", pytrace=False)
        return
    if needs_spark(path):
        request.getfixturevalue("spark")  # getOrCreate() in a block now returns the test run's session
    namespace: dict[str, object] = {"__name__": f"docs_{path.stem.replace('-', '_')}"}
    try:
        for block in runnable:
            # Pad with newlines so a traceback's line numbers are the doc file's.
            code = compile("\n" * (block.line - 1) + block.source, rel(path), "exec")
            error = run_block(code, namespace)
            if error is not None:
                pytest.fail(f"{rel(path)}: the block at line {block.line} does not run as written:\n{error}",
                            pytrace=False)
    finally:
        # The blocks' functions hold the namespace (a cycle): clear it so that what the blocks made (a Kafka
        # producer, say) goes now, not after the run's broker stopped, where it would log reconnect failures.
        namespace.clear()


def run_blocks(path: Path) -> str | None:
    """Run the runnable blocks of ``path`` in order in one namespace; what the first that raises says, else None."""
    namespace: dict[str, object] = {"__name__": f"docs_{path.stem.replace('-', '_')}"}
    for block in (b for b in blocks(path) if b.not_run is None):
        code = compile("\n" * (block.line - 1) + block.source, rel(path), "exec")
        error = run_block(code, namespace)
        if error is not None:
            return f"the block at line {block.line} does not run as written:\n{error}"
    return None


def run_elsewhere(path: Path) -> str | None:
    """:func:`run_blocks` of ``path`` in a new Python process (with this one's environment); its error or None."""
    proc = subprocess.run([sys.executable, "-m", "tests.test_docs", str(path)], capture_output=True, text=True,
                          timeout=1200, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode != 0:
        return proc.stdout[-6000:] + proc.stderr[-3000:]
    return None


def run_block(code, namespace) -> str | None:
    """Run ``code`` in ``namespace``; the end of its traceback when it raises, else None."""
    try:
        exec(code, namespace)
    except Exception as exc:
        return "".join(traceback.format_exception(exc)[-6:])
    return None


def test_every_block_runs():
    """Every Python block of README.md and docs/ runs as written: none is marked ``not run``."""
    marked = [f"{rel(p)}:{b.line} ({b.not_run})" for p, b in NOT_RUN_BLOCKS]
    assert not marked, f"blocks marked not run: {marked}"


def test_markers_precede_a_block():
    """A ``not run`` comment that is not right before a python block is a mistake (it would not skip anything)."""
    stray = []
    for path in doc_files():
        lines = path.read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines):
            if NOT_RUN.match(line.strip()):
                following = next((x for x in lines[n + 1:] if x.strip()), "")
                if not following.startswith("```python"):
                    stray.append(f"{rel(path)}:{n + 1}")
    assert not stray, f"`<!-- not run: ... -->` must be followed by a ```python block: {', '.join(stray)}"


if __name__ == "__main__":  # run_elsewhere: one file's blocks in this process
    failure = run_blocks(Path(sys.argv[1]))
    if failure is not None:
        print(failure)
        sys.exit(1)
