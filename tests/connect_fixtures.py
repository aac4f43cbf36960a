"""A real Spark Connect server for the test run, started once from the installed PySpark (a pytest plugin).

``ConnectServer`` runs ``spark-submit --class ...SparkConnectServer`` from the
pyspark package (its server jar ships in ``pyspark/jars``) on a free port
bound to 127.0.0.1, with a ``local[2]`` master, and waits until it listens.
The session fixture ``connect_url`` gives ``sc://127.0.0.1:<port>``; a test
runs its client in a process of its own (:func:`run_connect`). Tests that
kill the server start their own (``start_connect_server``). A test taking
these fixtures is marked ``connect`` and ``spark`` (tests/markers.py).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service_fixtures import free_port
from tests.shared_servers import once_per_run

REPO = Path(__file__).resolve().parent.parent
SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


class ConnectServer:
    """A Spark Connect server child process (its own JVM and driver) on 127.0.0.1."""

    def __init__(self, workdir: Path, master: str = "local[2]", port: int | None = None,
                 jars: list[str] | None = None, python: str | None = None) -> None:
        """``python``: the interpreter of the server's Python processes; by default the tests' own, with the
        checkout on their path. Given one, they see neither the checkout nor the tests' site-packages, as on a
        cluster whose Python knows nothing of squall."""
        import pyspark

        self.home = Path(pyspark.__file__).parent
        self.port = port or free_port()
        self.master = master
        self.jars = list(jars or [])
        self.python = python
        self.workdir = workdir
        self.log = workdir / f"connect-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"sc://127.0.0.1:{self.port}"

    def start(self) -> None:
        args = [
            str(self.home / "bin" / "spark-submit"), "--class", SERVER_CLASS, "--master", self.master,
            "--conf", f"spark.connect.grpc.binding.port={self.port}",
            "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
            "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
            "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=2",
            "--conf", "spark.sql.session.timeZone=UTC", "--conf", "spark.sql.streaming.minBatchesToRetain=10",
            # As tests/topologies/distributed_run.py's drivers: C1 only (it starts fast; a larger code cache, so a
            # long run does not fill it), serial GC: on a small machine C2's and G1's threads take the cores.
            "--driver-java-options",
            "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m -XX:+UseSerialGC -XX:-UsePerfData",
            *(["--jars", ",".join(self.jars)] if self.jars else []),
            "spark-internal",
        ]
        env = {**os.environ, "SPARK_HOME": str(self.home)}
        if self.python is None:
            env |= {"PYSPARK_PYTHON": sys.executable,
                    "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
            cwd = REPO
        else:  # python -m pyspark.daemon puts its working directory on sys.path: keep the checkout out of it
            env["PYSPARK_PYTHON"] = self.python
            env.pop("PYTHONPATH", None)
            cwd = self.workdir
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                         start_new_session=True)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the Spark Connect server exited with {self.proc.returncode}; see {self.log}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.5)
        self.kill()
        raise RuntimeError(f"the Spark Connect server did not listen on port {self.port} within 180 s; see {self.log}")

    def kill(self) -> None:
        """SIGKILL the server's process group: its JVM and its Python workers die at once, as in a crash."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None


@pytest.fixture(scope="session")
def start_connect_server() -> Iterator[Callable[..., ConnectServer]]:
    """Starts a :class:`ConnectServer` of the test's own (its arguments): one to kill, or with other jars or Python.

    A test taking it is marked ``connect`` and ``spark``. Servers left running are stopped when the run ends.
    """
    started: list[ConnectServer] = []

    def start(workdir: Path, **options: Any) -> ConnectServer:
        started.append(ConnectServer(workdir, **options))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def connect_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The run's Connect server's ``sc://127.0.0.1:<port>``: one per run, under xdist too."""

    def start() -> tuple[str, list[str]]:
        server = ConnectServer(tmp_path_factory.mktemp("connect"))
        assert server.proc is not None
        return server.url, ["kill", "-s", "TERM", "--", f"-{server.proc.pid}"]  # its group: JVM, workers

    yield from once_per_run(request.config, "connect", start)


@pytest.fixture(scope="session")
def connect_url(connect_server: str) -> str:
    return connect_server


def run_connect(module: str, args: dict, timeout: float = 1500) -> object:
    """Run ``python -m module <args as JSON>`` (a Connect client of its own) and return the JSON its last line prints.

    A Connect client runs in a process of its own: once a Connect session exists,
    pyspark treats every session of the process as remote (``SPARK_CONNECT_MODE_ENABLED``),
    which the shared classic session cannot live with.
    """
    import json

    proc = subprocess.run([sys.executable, "-m", module, json.dumps(args)], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stderr[-8000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
