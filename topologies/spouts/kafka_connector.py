"""Where Spark's Kafka connector jars are, for ``spark.jars``: resolved by Maven, never downloaded at run time.

Spark's Kafka source (``spark-sql-kafka-0-10_2.13``) is not part of pyspark; it
must match pyspark's version exactly, and squall supports a range of PySpark
versions. ``scripts/kafka.sh fetch-connector`` (run by ``scripts/install_services.sh``)
resolves the connector for the installed pyspark's version, with the dependencies
pyspark lacks, into ``<repo>/.cache/spark-kafka/<version>/jars`` (or
``$SQUALL_SPARK_KAFKA_HOME/<version>/jars``), one directory per version;
:func:`connector_jars` lists the installed version's for the session's ``spark.jars``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ENV = "SQUALL_SPARK_KAFKA_HOME"
_REPO = Path(__file__).resolve().parents[2]
_CONNECTOR = re.compile(r"spark-sql-kafka-0-10_[0-9.]+-(?P<version>.+)\.jar")


def pyspark_version() -> str | None:
    """The installed pyspark's version (``pyspark.__version__``), or None when there is no pyspark."""
    try:
        import pyspark
    except ImportError:
        return None
    return pyspark.__version__


def connector_home() -> Path:
    """The connectors' cache, a folder per version: ``$SQUALL_SPARK_KAFKA_HOME`` or ``<repo>/.cache/spark-kafka``."""
    home = os.environ.get(ENV)
    return Path(home) if home else _REPO / ".cache" / "spark-kafka"


def connector_dir(version: str | None = None) -> Path:
    """One version's connector jars: ``<connector_home()>/<version>/jars``, by default the installed pyspark's.

    ``ModuleNotFoundError`` when ``version`` is not given and pyspark is not installed.
    """
    version = version or pyspark_version()
    if version is None:
        msg = "connector_dir: pyspark is not installed, so there is no version to find the connector for; " \
              "pass version= or install squall's `spark` extra"
        raise ModuleNotFoundError(msg, name="pyspark")
    return connector_home() / version / "jars"


def connector_jars(directory: str | Path | None = None) -> list[str]:
    """The connector's jar paths (sorted), for ``SparkSession.builder.config("spark.jars", ",".join(...))``.

    ``directory`` defaults to :func:`connector_dir` (the installed pyspark's
    version). ``FileNotFoundError`` saying how to fetch them when it holds no
    spark-sql-kafka jar, or one for another Spark version than the installed pyspark.
    """
    version = pyspark_version()
    where = connector_dir(version) if directory is None else Path(directory)
    jars = sorted(str(p) for p in where.glob("*.jar")) if where.is_dir() else []
    found = [m["version"] for m in (_CONNECTOR.fullmatch(Path(j).name) for j in jars) if m]
    if not found or (version is not None and version not in found):
        held = f" (it holds the connector for Spark {', '.join(found)})" if found else ""
        msg = (
            f"connector_jars: no spark-sql-kafka-0-10 jar for pyspark {version or '(not installed)'} in {where}{held}; "
            f"in a squall checkout run 'bash scripts/install_services.sh' (or 'scripts/kafka.sh fetch-connector', "
            f"which fetches the installed pyspark's) and, with squall installed from a wheel, set {ENV} to the "
            f"directory holding <version>/jars/ (<checkout>/.cache/spark-kafka); or let Spark download the "
            f"connector: .config('spark.jars.packages', '{connector_package(version)}')"
        )
        raise FileNotFoundError(msg)
    return jars


def connector_package(version: str | None = None) -> str:
    """The connector's Maven coordinates for ``spark.jars.packages``, for ``version`` or the installed pyspark's."""
    return f"org.apache.spark:spark-sql-kafka-0-10_2.13:{version or pyspark_version() or '<pyspark version>'}"


def missing_connector_message(spout: str) -> str:
    """What to do when the session has no Kafka source: the jars to add and how."""
    return (
        f"{spout}: this SparkSession has no Kafka source (Spark's spark-sql-kafka-0-10 connector is not on its "
        "classpath). Build the session with .config('spark.jars', ','.join(connector_jars())) "
        "(from topologies.spouts import connector_jars) after 'bash scripts/install_services.sh' has fetched them"
    )
