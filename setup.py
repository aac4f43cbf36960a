"""Packaging for squall: Storm-style windowed bolts on Apache Spark."""

from setuptools import find_packages, setup

TESTS = [
    "pytest>=8",
    "hypothesis>=6.100",
    "ruff>=0.6",
    "fakeredis>=2.20",
]
REDIS = ["redis>=5"]
HBASE = ["happybase>=1.2"]
# pyspark is pinned to the version whose Kafka connector (spark-sql-kafka-0-10_2.13) Maven Central serves;
# pandas stays below 3 while PySpark warns about it.
SPARK = ["pyspark==4.2.0", "pandas>=2.0,<3"]
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
        "redis": REDIS,
        "hbase": HBASE,
        "kafka": KAFKA,
        "bench": PLOT,  # benchmarks/race.py --chart
        "plot": PLOT,  # squall plot, BoltHarness.plot (topologies/plot.py)
        "docs": DOCS,  # mkdocs build --strict (mkdocs.yml)
        "tests": TESTS + REDIS + HBASE + SPARK + KAFKA + PLOT,
    },
    entry_points={"console_scripts": ["squall=topologies.cli:main"]},
)
