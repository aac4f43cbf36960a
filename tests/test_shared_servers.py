"""tests/shared_servers.py: one server per run under pytest-xdist too, stopped after every worker; heaviest files first.

Each test runs pytest on a small suite of its own (pytester, in a child
process) whose "server" is a line in a log file, so none of it needs a JVM or
a server.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("xdist")

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent

CONFTEST = '''
import os
import sys
from pathlib import Path

import pytest

from tests.shared_servers import once_per_run

pytest_plugins = ["tests.shared_servers", "tests.markers"]
LOG = Path(os.environ["SHARED_LOG"])


def write(line):
    with LOG.open("a") as log:
        log.write(line + "\\n")


@pytest.fixture(scope="session")
def server(request):
    def start():
        write(f"started in {os.getpid()}")
        return f"address-{os.getpid()}", [sys.executable, "-c", f"open({str(LOG)!r}, 'a').write('stopped\\\\n')"]

    yield from once_per_run(request.config, "server", start)


@pytest.fixture(scope="session")
def local_cluster():  # a stand-in with the real fixture's name: tests/markers.py marks its tests `cluster`
    return "local-cluster[2,1,1024]"


def pytest_collection_finish(session):
    if hasattr(session.config, "workerinput"):
        write("order " + " ".join(dict.fromkeys(item.nodeid.split("::")[0] for item in session.items)))
'''

USES_THE_SERVER = '''
import os

def test_reaches_it(server):
    with open(os.environ["SHARED_LOG"], "a") as log:
        log.write(f"used {os.environ.get('PYTEST_XDIST_WORKER', 'main')} {server}\\n")
'''


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nmarkers =\n" + "".join(f"    {name}: a marker\n" for name in (
        "spark", "redis", "hbase", "kafka", "connect", "cluster", "faults", "packaging")))
    monkeypatch.setenv("SHARED_LOG", str(pytester.path / "log.txt"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return pytester


def log_of(suite: pytest.Pytester) -> list[str]:
    return (suite.path / "log.txt").read_text().splitlines()


def test_two_workers_share_one_server_which_stops_once_after_both(suite):
    suite.makepyfile(test_a=USES_THE_SERVER, test_b=USES_THE_SERVER)
    result = suite.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    log = [line for line in log_of(suite) if not line.startswith("order")]
    started = [line for line in log if line.startswith("started")]
    used = sorted(line.split() for line in log if line.startswith("used"))
    assert len(started) == 1, log
    assert [worker for _, worker, _ in used] == ["gw0", "gw1"], log  # each file went to a worker of its own
    assert {address for *_, address in used} == {f"address-{started[0].split()[-1]}"}
    assert log[-1] == "stopped" and log.count("stopped") == 1, log  # by the controller, after both workers


def test_without_xdist_the_session_starts_and_stops_the_server_itself(suite):
    suite.makepyfile(test_a=USES_THE_SERVER, test_b=USES_THE_SERVER)
    result = suite.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    log = log_of(suite)
    assert [line.split()[0] for line in log] == ["started", "used", "used", "stopped"], log


def test_workers_take_the_files_of_heavier_environments_first(suite):
    suite.makepyfile(
        test_a_light="def test_pure(): pass",
        test_b_middle="def test_pure(): pass\ndef test_pure_too(): pass",
        test_c_heavy="def test_on_a_cluster(local_cluster): pass",
    )
    result = suite.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
    orders = {line for line in log_of(suite) if line.startswith("order")}
    # Both workers alike, not the collection's (alphabetical) order: the cluster file, then two in-process tests, one
    assert orders == {"order test_c_heavy.py test_b_middle.py test_a_light.py"}
