"""Packaging for squall: Storm-style windowed bolts on Apache Spark."""

from setuptools import find_packages, setup

TESTS = [
    "pytest>=8",
    # Two worker processes for the whole suite (README's command), files handed out whole (tests/shared_servers.py).
    "pytest-xdist>=3.6",
    "hypothesis>=6.100",
    "ruff>=0.6",
    "fakeredis>=2.20",
    # A real S3 endpoint for the storage tests (tests/topologies/spark/test_storage_paths.py): moto's server, on
    # 127.0.0.1. From 5.2.2: 5.2.1 answers CompleteMultipartUpload with a root element pyarrow refuses (moto#10055).
    "moto[server]>=5.2.2",
]
# hiredis: redis-py's C reply parser. A task rebuilt from its store reads every window back (tens of thousands of
# values a task on Nexmark's q5); redis-py's own parser, in Python, took most of that time.
REDIS = ["redis[hiredis]>=5"]
HBASE = ["happybase>=1.2"]
# PySpark is a range, not one version. squall needs 4.0's DataFrame.toArrow and groupBy().applyInArrow (plus
# mapInArrow, and under Spark Connect foreachBatch and addArtifacts); the floor is the oldest release its Spark tests
# were run on and pass on, 4.0.4, the newest 4.0 with a pyspark-client release too (4.0.5 passes as well but has
# none, so the `connect` extra would start at 4.1). CI runs the Spark tests on the floor
# (scripts/test_lowest_pyspark.sh) as well as on PYSPARK_PINNED. The ceiling is the next major, whose API squall
# has not met.
PYSPARK_RANGE = ">=4.0.4,<5"
# The version the tests extra installs and CI's main test run uses (docs/spark.md, "Supported PySpark versions").
PYSPARK_PINNED = "==4.2.0"
# pandas stays below 3 while PySpark warns about it (PySpark's toPandas and the Connect client use pandas).
PANDAS = "pandas>=2.0,<3"
SPARK = [f"pyspark{PYSPARK_RANGE}", PANDAS]
# Spark Connect only (SparkSession.builder.remote(...)): pyspark-client is the Connect client without the JVM
# side (no pyspark/jars, no spark-submit), in the same range as the full PySpark. Its own metadata pulls what the
# client imports (grpcio, grpcio-status, googleapis-common-protos and with them protobuf; pyarrow, numpy, pandas;
# from 4.1 zstandard and pyyaml), so only the pandas ceiling is added here. Install `spark` or `connect`, not both:
# they ship the same `pyspark` package.
CONNECT = [f"pyspark-client{PYSPARK_RANGE}", PANDAS]
# KafkaSink writes each batch in a Kafka transaction; the tests produce and consume with it too.
KAFKA = ["confluent-kafka>=2.4"]
# matplotlib draws runs (squall plot, BoltHarness.plot) and the benchmark's chart.
PLOT = ["matplotlib>=3.8"]
# The docs site (mkdocs.yml over docs/); CI builds it with `mkdocs build --strict`.
DOCS = ["mkdocs==1.6.1"]

setup(
    name="squall",
    version="0.1.0",
    description="Apache Storm-style windowed bolts on Apache Spark Structured Streaming",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.11",
    packages=find_packages(include=["squall", "windowing*", "bolts*", "state_backends*", "topologies*"]),
    package_data={name: ["py.typed"] for name in ("squall", "windowing", "bolts", "state_backends", "topologies")},
    # numpy: the columnar placement of windowed aggregations (bolts/aggregate/columnar.py).
    install_requires=["pyarrow>=16", "msgpack>=1.0", "numpy>=1.26"],
    extras_require={
        "spark": SPARK,
        "connect": CONNECT,
        "redis": REDIS,
        "hbase": HBASE,
        "kafka": KAFKA,
        "bench": PLOT,  # benchmarks/race.py --chart
        "plot": PLOT,  # squall plot, BoltHarness.plot (topologies/plot.py)
        "docs": DOCS,  # mkdocs build --strict (mkdocs.yml)
        # The full PySpark (the tests start local sessions and a local Connect server from it) with its own
        # `connect` extra (the Connect client's grpcio, grpcio-status, googleapis-common-protos, zstandard, for
        # the tests' remote sessions), pinned: the version CI tests first, whose Kafka connector
        # install_services.sh fetches. scripts/test_lowest_pyspark.sh swaps the pin for the range's floor.
        "tests": TESTS + REDIS + HBASE + [f"pyspark[connect]{PYSPARK_PINNED}", PANDAS] + KAFKA + PLOT,
    },
    entry_points={"console_scripts": ["squall=topologies.cli:main"]},
)
