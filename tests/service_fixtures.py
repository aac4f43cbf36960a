"""Real servers for the test run: one redis-server and one HBase (with its Thrift server), session-scoped.

Register with ``pytest_plugins = ["tests.service_fixtures"]``. The fixtures start
their server on first use, on a free port bound to 127.0.0.1, and stop it when
the run ends; under pytest-xdist the workers share it (tests/shared_servers.py).
``start_redis`` starts a short-lived ``RedisServer`` of a test's own (to kill it,
or with a password or TLS). A test taking these fixtures is marked ``redis`` or
``hbase`` (tests/markers.py).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from state_backends import Namespace, StateBackend, open_backend
from tests.shared_servers import once_per_run

REPO = Path(__file__).resolve().parent.parent
HBASE_SH = REPO / "scripts" / "hbase.sh"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A redis-server child process on 127.0.0.1; ``args`` are extra command-line options."""

    def __init__(self, *args: str, port: int | None = None, workdir: Path | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed; run scripts/install_services.sh")
        self.port = port or free_port()
        self.args = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.args += ["--dir", str(workdir)] if workdir else []
        self.args += list(args)
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}: {' '.join(self.args)}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not listen on port {self.port} within 10 s")

    def kill(self) -> None:
        """SIGKILL: the server dies without a chance to save anything."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None


@pytest.fixture(scope="session")
def redis_server(request: pytest.FixtureRequest) -> Iterator[str]:
    """``127.0.0.1:<port>`` of the run's shared redis-server (no persistence): one per run, under xdist too."""

    def start() -> tuple[str, list[str]]:
        server = RedisServer()
        assert server.proc is not None
        return f"127.0.0.1:{server.port}", ["kill", "-TERM", str(server.proc.pid)]

    yield from once_per_run(request.config, "redis", start)


@pytest.fixture(scope="session")
def start_redis() -> Iterator[Callable[..., RedisServer]]:
    """Starts a redis-server of the test's own (``RedisServer``'s arguments): one to kill, or with a password or TLS.

    A test taking it is marked ``redis``. Its servers left running are stopped when the run ends.
    """
    started: list[RedisServer] = []

    def start(*args: str, **options: Any) -> RedisServer:
        started.append(RedisServer(*args, **options))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def redis_url(redis_server: str) -> str:
    """``redis://127.0.0.1:<port>/0`` of the run's shared redis-server."""
    return f"redis://{redis_server}/0"


@pytest.fixture(scope="session")
def hbase_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """``hbase://127.0.0.1:<thrift port>/squalltest`` of the run's HBase, started by scripts/hbase.sh (one per run)."""
    home = Path(os.environ.get("SQUALL_HBASE_HOME", REPO / ".cache" / "hbase"))
    if shutil.which("java") is None or not (home / "lib").is_dir():
        pytest.skip(f"no HBase jars in {home}/lib (or no java); run scripts/install_services.sh")

    def start() -> tuple[str, list[str]]:
        port = free_port()
        env = {**os.environ, "SQUALL_PYTHON": sys.executable}  # the script checks readiness with this interpreter
        stop = ["bash", str(HBASE_SH), "stop", str(port)]
        result = subprocess.run(["bash", str(HBASE_SH), "start", str(port)], capture_output=True, text=True,
                                timeout=300, check=False, env=env)
        if result.returncode != 0:
            subprocess.run(stop, capture_output=True, timeout=120, check=False)
            pytest.fail(f"scripts/hbase.sh start {port} failed:\n{result.stdout}\n{result.stderr}")
        return f"hbase://127.0.0.1:{port}/squalltest", stop

    yield from once_per_run(request.config, "hbase", start)


STORE_BACKENDS = [
    pytest.param("memory", id="memory"),
    pytest.param("journaled", id="journaled"),  # memory:// of a Spark Connect run, journaled beside its checkpoint
    pytest.param("redis", id="redis", marks=pytest.mark.needs("redis_url")),  # reached at run time (tests/markers.py)
    pytest.param("hbase", id="hbase", marks=pytest.mark.needs("hbase_url")),
]


@pytest.fixture(params=STORE_BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[StateBackend]:
    """A state backend of each kind in turn (memory, journaled memory, the run's Redis and HBase); fresh namespaces."""
    if request.param == "journaled":
        from topologies.engine.remote.journaled_memory import JournaledMemoryBackend
        from topologies.storage import LocalDir

        directory = request.getfixturevalue("tmp_path") / "journal"
        with JournaledMemoryBackend(LocalDir(directory)) as journaled:
            yield journaled
        return
    url = "memory://" if request.param == "memory" else request.getfixturevalue(f"{request.param}_url")
    with open_backend(url) as opened:
        yield opened


def fresh_namespace(backend: StateBackend) -> Namespace:
    """A namespace no other test uses."""
    return backend.namespace(f"t-{uuid.uuid4().hex[:12]}")
