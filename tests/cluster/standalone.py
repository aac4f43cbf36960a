"""A Spark standalone cluster on 127.0.0.1 (a master and workers from the pyspark installation), and a user app.

:class:`StandaloneCluster` starts ``org.apache.spark.deploy.master.Master`` and
workers with ``bin/spark-class`` as subprocesses (the pip package's ``sbin``
scripts are not all there or executable), waits until every worker has
registered, and stops them. Their environment has no ``PYTHONPATH``, so the
executors' Python workers import only what is installed and what the driver
ships. :func:`executor_python` writes a ``PYSPARK_PYTHON`` wrapper that also
hides squall's editable install from the executors: there squall, and the user's
modules, are importable only from the zip squall ships.

:data:`APP` and :data:`USER_BOLTS` are a user's topology file and the module of
bolts beside it that it imports, written to a temporary directory by the test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.service_fixtures import free_port


def spark_home() -> Path:
    """The pyspark installation, which holds ``bin/spark-class`` and ``bin/spark-submit``."""
    import pyspark

    return Path(os.environ.get("SPARK_HOME") or Path(pyspark.__file__).parent)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without PYTHONPATH or Spark settings of the test run, plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "SPARK_HOME")
           and not k.startswith("PYSPARK_SUBMIT") and not k.startswith("SPARK_CONF")}
    return {**env, "SPARK_HOME": str(spark_home()), "SPARK_LOCAL_IP": "127.0.0.1", **extra}


class StandaloneCluster:
    """A master and ``workers`` workers (``cores`` cores, ``memory`` each) on 127.0.0.1, logs under ``root``."""

    def __init__(self, root: Path, workers: int = 2, cores: int = 1, memory: str = "1g") -> None:
        self.root = root
        self.workers = workers
        self.cores = cores
        self.memory = memory
        self.port = free_port()
        self.ui_port = free_port()
        self.procs: list[subprocess.Popen] = []

    @property
    def url(self) -> str:
        """``spark://127.0.0.1:<port>``."""
        return f"spark://127.0.0.1:{self.port}"

    def _start(self, name: str, *args: str) -> None:
        log = (self.root / f"{name}.log").open("w")
        cls = spark_home() / "bin" / "spark-class"
        env = clean_env(SPARK_DAEMON_MEMORY="512m")
        self.procs.append(subprocess.Popen(["bash", str(cls), *args], cwd=self.root, env=env, stdout=log,
                                           stderr=subprocess.STDOUT, start_new_session=True))

    def start(self, timeout: float = 60) -> StandaloneCluster:
        """Start the master and the workers; returns when every worker is ALIVE at the master."""
        self.root.mkdir(parents=True, exist_ok=True)
        self._start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                    "--port", str(self.port), "--webui-port", str(self.ui_port))
        for i in range(self.workers):
            work = self.root / f"work-{i}"
            work.mkdir(exist_ok=True)
            self._start(f"worker-{i}", "org.apache.spark.deploy.worker.Worker", self.url, "--host", "127.0.0.1",
                        "--cores", str(self.cores), "--memory", self.memory, "--webui-port", "0",
                        "--work-dir", str(work))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.alive_workers() == self.workers:
                return self
            if any(p.poll() is not None for p in self.procs):
                break
            time.sleep(0.5)
        self.stop()
        msg = f"the standalone cluster did not come up; logs:\n{self.logs()}"
        raise RuntimeError(msg)

    def alive_workers(self) -> int:
        """How many workers the master's JSON page lists as ALIVE (0 while it is not up)."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=2) as page:
                state = json.load(page)
        except OSError:
            return 0
        return sum(1 for w in state.get("workers", []) if w.get("state") == "ALIVE")

    def logs(self, tail: int = 3000) -> str:
        """The tail of every daemon's log and of the executors' stderr."""
        files = sorted(self.root.glob("*.log")) + sorted(self.root.glob("work-*/*/*/stderr"))
        return "\n".join(f"--- {f}\n{f.read_text(errors='replace')[-tail:]}" for f in files)

    def stop(self) -> None:
        """Stop the workers and the master (SIGTERM, then SIGKILL), each by its own process group."""
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, 15)
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait(timeout=10)
        self.procs.clear()


HIDE_SQUALL = '''\
"""sitecustomize for the executors' Python: squall's editable install and the repository are not importable."""
import sys

sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")
                    and "__editable__" not in getattr(type(f), "__module__", "")]
sys.path_hooks[:] = [h for h in sys.path_hooks if "__editable__" not in getattr(h, "__module__", "")]
sys.path[:] = [p for p in sys.path if p.rstrip("/") != {repo!r}]
sys.path_importer_cache.clear()
'''


def executor_python(directory: Path, repo: Path) -> Path:
    """A ``PYSPARK_PYTHON`` wrapper: this interpreter with squall's editable install and ``repo`` hidden."""
    site = directory / "hide-squall"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(HIDE_SQUALL.format(repo=str(repo)))
    wrapper = directory / "executor-python"
    wrapper.write_text(f'#!/bin/sh\nexport PYTHONPATH="{site}${{PYTHONPATH:+:$PYTHONPATH}}"\n'
                       f'exec {shutil.which(sys.executable) or sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


USER_BOLTS = '''\
"""A user's bolts, in a module beside the topology file: importable on executors only if squall ships it."""
from squall import BaseWindowedBolt, Fields


class KeySum(BaseWindowedBolt):
    def execute(self, window):
        by_key = {}
        for t in window.get():
            by_key[t["key"]] = by_key.get(t["key"], 0) + t["doubled"]
        self.collector.emit([window.start_timestamp, window.end_timestamp, sorted(by_key.items())])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("start", "end", "sums"))
'''

APP = '''\
"""A user's topology file, run with spark-submit and no --py-files: argv is a JSON of data, checkpoint, state, out."""
import importlib
import itertools
import json
import os
import sys

from pyspark.sql import SparkSession

from squall import BaseBolt, Duration, Fields, SparkRunner, TopologyBuilder
from topologies.spouts import FileSpout
from user_bolts import KeySum


class Doubler(BaseBolt):  # defined in __main__: cloudpickle sends it by value
    def execute(self, input):
        self.collector.emit([input["key"], input["ts"], input["value"] * 2])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("key", "ts", "doubled"))


def build(data):
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(data, "json", ("key", "ts", "value"),
                                          schema="key STRING, ts BIGINT, value BIGINT", max_files_per_trigger=1))
    builder.set_bolt("double", Doubler(), parallelism=2).shuffle_grouping("events")
    window = KeySum().with_tumbling_window(Duration.seconds(2)).with_timestamp_field("ts")
    builder.set_bolt("sum", window, parallelism=2).fields_grouping("double", Fields("key"))
    return builder.create_topology()


def run(spark, args, mode, state):
    clock = itertools.count(100_000, 1_000)
    runner = SparkRunner(spark, mode=mode, state=state, checkpoint_location=args["checkpoint"] + "/" + mode,
                         output_dir=args["checkpoint"] + "/out-" + mode, clock=lambda: next(clock),
                         ship_code=args.get("ship_code", True))
    handle = runner.submit(args["name"] + "-" + mode, build(args["data"]), available_now=True)
    if not handle.await_termination(120):
        raise SystemExit(mode + " run did not end within 120 s")
    return [[o.component, o.task, o.stream, o.values] for o in handle.outputs()], runner


def where(_):
    import socket

    top = importlib.import_module("topologies")
    bolts = importlib.import_module("user_bolts")
    return [os.getpid(), top.__file__, bolts.__file__, sys.path, socket.gethostname()]


def main():
    args = json.loads(sys.argv[1])
    spark = SparkSession.builder.appName("squall-spark-submit-test").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    driver, _ = run(spark, args, "driver", "memory://")
    distributed, runner = run(spark, args, "distributed", args["state"])
    sc = spark.sparkContext
    executors = sc.parallelize(range(4), 4).map(where).collect()
    with open(args["out"], "w") as f:
        json.dump({"master": sc.master, "driver": driver, "distributed": distributed, "executors": executors,
                   "py_files": sc.getConf().get("spark.submit.pyFiles", "")}, f, default=str)
    spark.stop()


if __name__ == "__main__":
    main()
'''
