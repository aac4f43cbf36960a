"""Every test's time in the last run, written to ``.cache/test-times.json`` (a pytest plugin).

pytest prints the 25 slowest tests (``--durations=25`` in pyproject.toml);
this keeps them all, to see where a run's time goes and what a change made
slower: ``{"total": seconds, "tests": {nodeid: seconds}}``, the setup, call
and teardown of each test summed, slowest first. A run of a subset writes the
subset's times (the file is the last run's, whatever it selected); ``SQUALL_TEST_TIMES`` names another file
(scripts/test_lowest_pyspark.sh writes its own, so CI keeps the main run's).
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from pathlib import Path

import pytest

DEFAULT_TIMES = Path(__file__).resolve().parent.parent / ".cache" / "test-times.json"
TIMES = Path(os.environ.get("SQUALL_TEST_TIMES") or DEFAULT_TIMES)

_seconds: defaultdict[str, float] = defaultdict(float)
_started = time.monotonic()


def pytest_sessionstart(session: pytest.Session) -> None:
    global _started
    _started = time.monotonic()
    _seconds.clear()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _seconds[report.nodeid] += report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not _seconds or hasattr(session.config, "workerinput"):  # nothing ran, or an xdist worker
        return
    tests = dict(sorted(_seconds.items(), key=lambda item: -item[1]))
    TIMES.parent.mkdir(parents=True, exist_ok=True)
    TIMES.write_text(json.dumps({"total": round(time.monotonic() - _started, 1),
                                 "tests": {k: round(v, 2) for k, v in tests.items()}}, indent=1))


def main() -> None:
    """Print the last run's time per test folder, slowest first (``python -m tests.timings``)."""
    times = json.loads(TIMES.read_text())
    folders: defaultdict[str, float] = defaultdict(float)
    for nodeid, seconds in times["tests"].items():
        folders[nodeid.split("::")[0].rsplit("/", 1)[0]] += seconds
    print(f"test time per folder (run took {times['total']:.0f} s, {len(times['tests'])} tests):")
    for folder, seconds in sorted(folders.items(), key=lambda item: -item[1]):
        print(f"{seconds:8.0f} s  {folder}")


if __name__ == "__main__":
    main()
