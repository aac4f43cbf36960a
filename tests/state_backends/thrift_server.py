"""A second HBase Thrift server, beside the run's HBase, that a test may kill and start again."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.service_fixtures import REPO, free_port


class ThriftServer:
    """A Thrift1 JVM on a port of its own, in front of the HBase that serves ``hbase_url``.

    It runs the command line scripts/hbase.sh gave the run's Thrift server, on
    another port, so killing it leaves the run's HBase and Thrift server alone.
    """

    def __init__(self, hbase_url: str) -> None:
        thrift_port = hbase_url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1]
        home = Path(os.environ.get("SQUALL_HBASE_HOME", REPO / ".cache" / "hbase"))
        run_dir = Path((home / "instances" / thrift_port).read_text().strip())
        pid = (run_dir / "thrift.pid").read_text().strip()
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]
        self.port = free_port()
        self.args = [str(self.port) if i and args[i - 1] == "-p" else arg for i, arg in enumerate(args)]
        self.log = run_dir / f"thrift-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(self.args, stdout=log, stderr=subprocess.STDOUT)

    def kill(self) -> None:
        """SIGKILL: the server's connections break at once."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)
        self.proc = None
