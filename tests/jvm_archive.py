"""One class-data-sharing archive of Spark's classes for every JVM a test run starts (a pytest plugin).

A test run starts well over a hundred Spark JVMs: the shared session, every
driver process of the fault suite and the cluster runs, their ``local-cluster``
executors, the Connect servers. Each spends seconds loading and verifying the
same few thousand classes from ``pyspark/jars``. Java's class-data sharing maps
them from an archive instead (JEP 350, a dynamic archive): here it halves a
driver's start (about 7 s to 3.5 s for a session, 4 s to 2 s for its first job).

When the selected tests use Spark and ``java`` is on the path, the plugin
makes the archive once per PySpark and Java version, under
``.cache/jvm-archive/<key>/spark.jsa`` (a JVM given ``-XX:ArchiveClassesAtExit``
writes it as it exits after a small workload, :func:`main`), then exports it
through ``SPARK_SUBMIT_OPTS``, which ``spark-submit`` adds to every driver's
JVM options beside any ``spark.driver.extraJavaOptions``: to the drivers (the
shared session, child drivers, Connect servers) and, as the system property
``spark.executor.defaultJavaOptions`` their SparkConf reads, to their executors.
Executors, which live for one test, also run C1 alone and the serial
collector (on two cores, C2's and G1's threads slow a short test down).

A JVM whose class path or Java differs from the archive's (another PySpark in
a packaging test's venv, ``spark.driver.extraClassPath``) ignores the archive
and starts as it would without it; CDS's warnings are turned off, so no
test's output changes. (The class path may hold no non-empty directory when
the archive is made, which rules out a ``SPARK_CONF_DIR`` of our own.) Nothing
here is needed for a test to pass: without Java, or with
``SQUALL_TESTS_NO_JVM_ARCHIVE=1``, nothing is set.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared_servers import locked

REPO = Path(__file__).resolve().parent.parent
ROOT = REPO / ".cache" / "jvm-archive"
SPARK_MARKERS = frozenset({"spark", "connect", "cluster", "faults", "kafka"})
QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"  # a JVM that cannot use the archive says nothing of it
SHORT_LIVED = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData"


def _key() -> str:
    """The PySpark version and the Java runtime the archive belongs to."""
    import pyspark

    java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=True).stderr
    return f"pyspark-{pyspark.__version__}-" + hashlib.sha256(java.encode()).hexdigest()[:12]


def prepare() -> dict[str, str]:
    """The environment that gives every Spark JVM the archive, making the archive first if it does not exist.

    Empty when Java is missing or making the archive failed (the run then goes on without it).
    """
    if shutil.which("java") is None or os.environ.get("SQUALL_TESTS_NO_JVM_ARCHIVE"):
        return {}
    home = ROOT / _key()
    archive = home / "spark.jsa"
    home.mkdir(parents=True, exist_ok=True)
    with locked(home / "making.lock"):  # pytest-xdist's workers: one makes it, the other waits and uses it
        return _made(home, archive)


def _made(home: Path, archive: Path) -> dict[str, str]:
    if not archive.exists():
        partial = home / f"partial-{os.getpid()}.jsa"
        made = subprocess.run([sys.executable, "-m", "tests.jvm_archive", str(partial)], cwd=REPO,
                              capture_output=True, text=True, timeout=600, check=False)
        if made.returncode != 0 or not partial.exists():
            partial.unlink(missing_ok=True)
            sys.stderr.write(f"tests/jvm_archive.py: no JVM archive (exit {made.returncode}), JVMs start without "
                             f"one:\n{made.stderr[-2000:]}\n")
            return {}
        partial.replace(archive)  # whole or absent: a JVM never maps a half-written archive
    opts = f"-XX:SharedArchiveFile={archive} {QUIET}"
    # A driver reads spark.* system properties into its SparkConf: executors get the archive through it, and the
    # options of a JVM that lives for one test: C1 alone and the serial collector spend no core on C2 or G1's threads.
    executors = f'-Dspark.executor.defaultJavaOptions="{opts} {SHORT_LIVED}"'
    return {"SPARK_SUBMIT_OPTS": " ".join(filter(None, [os.environ.get("SPARK_SUBMIT_OPTS"), opts, executors]))}


def pytest_collection_finish(session: pytest.Session) -> None:
    """Export the archive to this process and its children when a selected test uses Spark."""
    if any(SPARK_MARKERS.intersection(mark.name for mark in item.iter_markers()) for item in session.items):
        os.environ.update(prepare())


def main() -> None:
    """Run a Spark workload in a JVM that writes the archive named by ``sys.argv[1]`` when it exits.

    The workload loads what most tests load: a batch aggregation, a Python UDF
    and Arrow batches, a Parquet table, and a streaming query over files with
    ``foreachBatch`` and a checkpoint.
    """
    import tempfile

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    archive = sys.argv[1]
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["SPARK_SUBMIT_OPTS"] = f"-XX:ArchiveClassesAtExit={archive} {QUIET}"
    with tempfile.TemporaryDirectory() as tmp:
        spark = (SparkSession.builder.master("local[2]").appName("squall-jvm-archive")
                 .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
                 .config("spark.sql.session.timeZone", "UTC").getOrCreate())
        rows = spark.range(1000).select((F.col("id") % 7).alias("k"), F.col("id").alias("v"),
                                        F.timestamp_seconds("id").alias("ts"))
        rows.groupBy("k", F.window("ts", "10 seconds")).agg(F.sum("v"), F.count("*")).collect()
        rows.select(F.udf(lambda v: v * 2, "long")("v")).collect()
        rows.mapInArrow(lambda batches: batches, rows.schema).collect()
        rows.write.parquet(f"{tmp}/table")
        stream = spark.readStream.schema(rows.schema).parquet(f"{tmp}/table")
        query = (stream.writeStream.trigger(availableNow=True).option("checkpointLocation", f"{tmp}/checkpoint")
                 .foreachBatch(lambda frame, _batch: frame.groupBy("k").count().toArrow()).start())
        query.awaitTermination()
        jvm = spark.sparkContext._gateway.proc  # the driver's JVM, a child of this process
        spark.stop()
        jvm.stdin.close()  # the JVM exits when its stdin closes, and writes the archive as it exits
        jvm.wait(300)


if __name__ == "__main__":
    main()
