"""Shared pieces of the fault suite: the input, a driver process (:mod:`tests.faults.fault_run`), its outputs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.cluster.cases import keyed_rows
from tests.service_fixtures import REPO
from tests.spark_fixtures import SparkProcess
from topologies.examples._run import write_json_files

KILLED = -9  # a return code: the process died by SIGKILL


def write_input(directory: Path) -> Path:
    """The ``mixed`` case's input: five files, one per batch."""
    write_json_files(directory, keyed_rows())
    return directory


TABLE_STREAMS = ("tally_all", "agg_total")  # the mixed case's streams a Query with tables writes to Parquet


DELTA_JARS = REPO / ".cache" / "delta" / "jars"  # scripts/install_services.sh puts them there
DELTA_SPARK = "4.2"  # the Spark version those jars (scripts/delta/pom.xml) are built for


def delta_jars() -> str | None:
    """Delta's jars for ``spark.jars`` (comma-separated), or None when the installed pyspark is not theirs.

    ``FileNotFoundError`` when it is and they are missing: ``scripts/install_services.sh`` fetches them.
    """
    import pyspark

    if not pyspark.__version__.startswith(DELTA_SPARK):
        return None
    jars = sorted(DELTA_JARS.glob("*.jar")) if DELTA_JARS.is_dir() else []
    if not jars:
        msg = f"no Delta jars in {DELTA_JARS}; run scripts/install_services.sh"
        raise FileNotFoundError(msg)
    return ",".join(str(j) for j in jars)


def table_rows(path: Path) -> Counter[str]:
    """Every row of the Parquet table at ``path`` (``batch_id`` included) as JSON, as a multiset."""
    import pyarrow.dataset as ds

    if not path.is_dir():
        return Counter()
    table = ds.dataset(path, format="parquet", partitioning="hive").to_table()
    return Counter(json.dumps(row, sort_keys=True, default=str) for row in table.to_pylist())


def outputs_of(directory: Path) -> Counter[str]:
    """Every output record a run left in ``directory`` (its batch files and ``final.jsonl``), as a multiset."""
    return Counter(line for path in sorted(directory.glob("*.jsonl")) for line in path.read_text().splitlines())


@dataclass
class Query:
    """One query name over one checkpoint and output directory, run by driver processes one after another."""

    data: Path
    root: Path
    state: str
    name: str = field(default_factory=lambda: f"faults-{uuid.uuid4().hex[:10]}")
    extra: dict[str, Any] = field(default_factory=dict)
    process: SparkProcess = field(kw_only=True)  # the ``spark_process`` fixture: see the ``fault_query`` fixture

    @property
    def checkpoint(self) -> Path:
        return self.root / "checkpoint"

    @property
    def output(self) -> Path:
        return self.root / "output"

    def run(self, timeout: float = 600, **options: Any) -> subprocess.CompletedProcess[str]:
        """One driver process (``options`` as for :mod:`tests.faults.fault_run`), in a process group of its own."""
        return self.start(timeout, **options)()

    def start(self, timeout: float = 600, **options: Any) -> Callable[[], subprocess.CompletedProcess[str]]:
        """:meth:`run`, started: what waits for the process (up to ``timeout`` s) and gives its result."""
        args = {"data": str(self.data), "checkpoint": str(self.checkpoint), "output": str(self.output),
                "state": self.state, "name": self.name, **self.extra, **options}
        proc = self.process.popen([sys.executable, "-m", "tests.faults.fault_run", json.dumps(args)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)

        def wait() -> subprocess.CompletedProcess[str]:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # the driver and its Spark JVM
                proc.communicate()
                raise
            return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        return wait

    def killed_at(self) -> dict[str, Any]:
        """The kill point the last killed process recorded (and forget it)."""
        marker = self.checkpoint / "killed"
        point = json.loads(marker.read_text())
        marker.unlink()
        return point

    def hits(self) -> dict[str, int]:
        """How often the last completed process reached each kill point."""
        return json.loads((self.checkpoint / "hits.json").read_text())

    def outputs(self) -> Counter[str]:
        """Every output record the query's runs left, as a multiset."""
        return outputs_of(self.output / self.name)

    def with_tables(self, delta_jars: str | None = None) -> Query:
        """This query with :data:`TABLE_STREAMS` written to Parquet tables under ``<root>/tables``.

        With ``delta_jars`` the last of them goes to a Delta table instead (read back by the completing process).
        """
        streams = list(TABLE_STREAMS)
        if delta_jars is not None:
            delta = streams.pop()
            self.extra.update(delta_jars=delta_jars, delta_tables={delta: str(self.root / "delta" / delta)})
        self.extra["tables"] = {s: str(self.root / "tables" / s) for s in streams}
        return self

    def tables(self) -> dict[str, Counter[str]]:
        """Each table's rows as a multiset (needs :meth:`with_tables`), Delta's as its last process read them."""
        rows = {s: table_rows(Path(p)) for s, p in self.extra["tables"].items()}
        if self.extra.get("delta_tables"):
            read = json.loads((self.checkpoint / "delta-tables.json").read_text())
            rows.update({s: Counter(lines) for s, lines in read.items()})
        return rows


def completed(result: subprocess.CompletedProcess[str]) -> None:
    """Assert a driver process ended normally, showing its stderr when it did not."""
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stderr[-4000:]}"
