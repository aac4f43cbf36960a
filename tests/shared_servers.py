"""One server of each kind per test run, when pytest-xdist spreads the tests over worker processes too (a plugin).

Without xdist a session fixture starts its server on first use and stops it
when the run ends. Under ``pytest -n 2`` each worker is a pytest session of its
own, so a session fixture would start one server per worker. :func:`once_per_run`
keeps it at one: the controller gives every worker one directory; the first
worker that needs a server starts it under that directory's lock and writes
its address and a command that stops it; the other workers read them. The
controller runs the stop commands once every worker has finished, so a server
outlives the worker that started it.

The plugin also makes xdist hand out whole files, heaviest first:

* A worker runs a file's tests together, so a module-scoped fixture (a set of
  runs made side by side, a wheel, a venv) is set up once, not once per worker.
* Files are ordered by the environments their tests use (the markers that
  tests/markers.py derives from fixtures), the fault and cluster suites first and
  the in-process tests last. A long file handed out last would otherwise run
  alone while the other worker sits idle.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

SHARED_DIR = "squall_shared_servers"  # the key of the directory in each worker's workerinput
SHARED_DIR_KEY = pytest.StashKey[str]()  # the controller's directory, made when it configures its first worker

# A test's share of a worker's time, by the heaviest environment it uses: the order in which xdist hands out files.
WEIGHTS = {"faults": 40.0, "cluster": 30.0, "packaging": 30.0, "connect": 20.0, "kafka": 8.0, "hbase": 2.0,
           "spark": 2.0, "redis": 0.2}
IN_PROCESS_WEIGHT = 0.05


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` (created if missing), held for the block: one process at a time."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def once_per_run(config: pytest.Config, name: str, start: Callable[[], tuple[str, list[str]]]) -> Iterator[str]:
    """Yield the address of the run's server called ``name``, starting it if no process of this run has.

    ``start()`` starts it and returns ``(address, stop command)``; the command
    (an argv) must stop the server from any process. Use it as the body of a
    session fixture: ``yield from once_per_run(request.config, "redis", start)``.
    Without xdist the server stops when this generator is closed, at the
    end of the session; under xdist the controller stops it after every worker.
    """
    shared = getattr(config, "workerinput", {}).get(SHARED_DIR)
    if shared is None:
        address, stop = start()
        try:
            yield address
        finally:
            subprocess.run(stop, capture_output=True, timeout=180, check=False)
        return
    record = Path(shared) / f"{name}.json"
    with locked(Path(shared) / f"{name}.lock"):
        if not record.exists():
            address, stop = start()
            record.write_text(json.dumps({"address": address, "stop": stop}))
    yield json.loads(record.read_text())["address"]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Controller side of xdist: every worker gets the run's one directory of shared servers."""
    stash = node.config.stash
    if SHARED_DIR_KEY not in stash:
        stash[SHARED_DIR_KEY] = tempfile.mkdtemp(prefix="squall-shared-servers-")
    node.workerinput[SHARED_DIR] = stash[SHARED_DIR_KEY]


def pytest_unconfigure(config: pytest.Config) -> None:
    """Controller side of xdist, after every worker has ended: stop the servers the workers shared."""
    shared = config.stash.get(SHARED_DIR_KEY, None)
    if shared is None:
        return
    for record in sorted(Path(shared).glob("*.json")):
        subprocess.run(json.loads(record.read_text())["stop"], capture_output=True, timeout=180, check=False)
    shutil.rmtree(shared, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Whole files per worker, in the order of the collection (heaviest first, below)."""
    from xdist.scheduler import LoadFileScheduling

    config.option.loadscopereorder = False
    return LoadFileScheduling(config, log)


@pytest.hookimpl(trylast=True)  # after tests/markers.py has marked each test from its fixtures
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In an xdist worker, order the files heaviest first (every worker sorts alike, so the collections match)."""
    if not hasattr(config, "workerinput"):
        return
    weight: defaultdict[str, float] = defaultdict(float)
    for item in items:
        names = {mark.name for mark in item.iter_markers()}
        weight[item.nodeid.split("::")[0]] += max((WEIGHTS[n] for n in names if n in WEIGHTS),
                                                  default=IN_PROCESS_WEIGHT)
    order = {path: rank for rank, path in enumerate(sorted(weight, key=lambda path: -weight[path]))}
    items.sort(key=lambda item: order[item.nodeid.split("::")[0]])
