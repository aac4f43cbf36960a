"""Where Spark's Kafka connector jars are, for ``spark.jars``: resolved by Maven, never downloaded at run time.

Spark's Kafka source (``spark-sql-kafka-0-10_2.13``) is not part of pyspark; it
must match pyspark's version exactly. ``scripts/kafka.sh fetch-connector`` (run
by ``scripts/install_services.sh``) resolves it, with the dependencies pyspark
lacks, into ``<repo>/.cache/spark-kafka/jars`` (or ``$SQUALL_SPARK_KAFKA_HOME/jars``);
:func:`connector_jars` lists them for the session's ``spark.jars``.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "SQUALL_SPARK_KAFKA_HOME"
_REPO = Path(__file__).resolve().parents[2]


def connector_dir() -> Path:
    """The connector jars' directory: ``$SQUALL_SPARK_KAFKA_HOME/jars``, else ``<repo>/.cache/spark-kafka/jars``."""
    home = os.environ.get(ENV)
    return (Path(home) if home else _REPO / ".cache" / "spark-kafka") / "jars"


def connector_jars(directory: str | Path | None = None) -> list[str]:
    """The connector's jar paths (sorted), for ``SparkSession.builder.config("spark.jars", ",".join(...))``.

    ``directory`` defaults to :func:`connector_dir`. ``FileNotFoundError`` saying
    how to fetch them when it holds no jar.
    """
    where = connector_dir() if directory is None else Path(directory)
    jars = sorted(str(p) for p in where.glob("*.jar")) if where.is_dir() else []
    if not any(Path(j).name.startswith("spark-sql-kafka-0-10_") for j in jars):
        msg = (
            f"connector_jars: no spark-sql-kafka-0-10 jar in {where}; in a squall checkout run "
            f"'bash scripts/install_services.sh' (or 'scripts/kafka.sh fetch-connector') and, with squall installed "
            f"from a wheel, set {ENV} to the directory holding jars/ (<checkout>/.cache/spark-kafka); or let Spark "
            "download the connector: .config('spark.jars.packages', "
            "'org.apache.spark:spark-sql-kafka-0-10_2.13:4.2.0')"
        )
        raise FileNotFoundError(msg)
    return jars


def missing_connector_message(spout: str) -> str:
    """What to do when the session has no Kafka source: the jars to add and how."""
    return (
        f"{spout}: this SparkSession has no Kafka source (Spark's spark-sql-kafka-0-10 connector is not on its "
        "classpath). Build the session with .config('spark.jars', ','.join(connector_jars())) "
        "(from topologies.spouts import connector_jars) after 'bash scripts/install_services.sh' has fetched them"
    )
