"""A TLS Redis with a test CA and client certificates, the ACL rule docs/state.md gives, and a topology run
against it: shared by tests/state_backends/test_redis_security.py, tests/state_backends/spark and tests/cluster.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from tests.certificates import Authority, Issued
from tests.service_fixtures import RedisServer, free_port

DOCS = Path(__file__).resolve().parents[2] / "docs" / "state.md"
PASSWORD = "Pw-squall-3x4mple"


@dataclass(frozen=True)
class TlsRedis:
    """The server, an admin client on its plain port, and the files a client needs."""

    server: RedisServer
    tls_port: int
    ca: Authority
    client: Issued
    admin: redis.Redis

    def url(self, user: str = "", password: str = "", ca: Path | None = None, client: Issued | None = None,
            db: int = 0) -> str:
        """``rediss://`` to the TLS port, trusting ``ca`` (default: the test CA), sending ``client``'s certificate."""
        auth = f"{user}:{password}@" if password else ""
        query = f"ssl_ca_certs={ca or self.ca.cert}"
        query += f"&ssl_certfile={client.cert}&ssl_keyfile={client.key}" if client else ""
        return f"rediss://{auth}127.0.0.1:{self.tls_port}/{db}?{query}"


@pytest.fixture(scope="module")
def tls_redis(tmp_path_factory: pytest.TempPathFactory, start_redis) -> Iterator[TlsRedis]:
    directory = tmp_path_factory.mktemp("tls")
    ca = Authority(directory / "ca")
    server_cert = ca.issue("server", ip="127.0.0.1")
    tls_port = free_port()
    server = start_redis(
        "--tls-port", str(tls_port), "--tls-cert-file", str(server_cert.cert), "--tls-key-file", str(server_cert.key),
        "--tls-ca-cert-file", str(ca.cert), "--tls-auth-clients", "yes",
    )  # fmt: skip
    admin = redis.Redis(port=server.port)  # the plain port, loopback only: the test's own administration
    try:
        yield TlsRedis(server, tls_port, ca, ca.issue("client"), admin)
    finally:
        admin.close()
        server.stop()


def documented_acl_rule(topology: str) -> list[str]:
    """The ``ACL SETUSER`` line of docs/state.md for ``topology``, as arguments (user ``squall``, its password)."""
    lines = [line for line in DOCS.read_text(encoding="utf-8").splitlines() if line.startswith("ACL SETUSER ")]
    assert len(lines) == 1, "docs/state.md gives one ACL SETUSER line"
    line = lines[0].replace("<password>", PASSWORD).replace("<topology>", topology)
    assert "<" not in line, f"a placeholder docs/state.md's rule does not say how to fill: {line}"
    return shlex.split(line)


def run_topology(spark, data: Path, checkpoint: Path, name: str, state: str) -> list[list]:
    from tests.topologies import distributed_case
    from tests.topologies.helpers import FIELDS, SCHEMA, counting_clock
    from topologies import SparkRunner
    from topologies.spouts import FileSpout

    spout = FileSpout(data, "json", FIELDS, schema=SCHEMA, max_files_per_trigger=1)
    runner = SparkRunner(spark, state=state, checkpoint_location=checkpoint, clock=counting_clock())
    handle = runner.submit(name, distributed_case.build(spout, small=True), available_now=True)
    try:
        assert handle.await_termination(300)
    finally:
        handle.stop()
    return distributed_case.as_json(handle.outputs())
