"""Packaging for squall: Storm-style windowed bolts on Apache Spark."""

from setuptools import setup

TESTS = [
    "pytest>=8",
    "hypothesis>=6.100",
    "ruff>=0.6",
    "fakeredis>=2.20",
]
REDIS = ["redis>=5"]
HBASE = ["happybase>=1.2"]
SPARK = ["pyspark>=4.0,<5", "pandas>=2.0"]

setup(
    name="squall",
    version="0.1.0",
    description="Apache Storm-style windowed bolts on Apache Spark Structured Streaming",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.11",
    packages=[
        "windowing",
        "bolts",
        "state_backends",
        "topologies",
        "topologies.examples",
        "topologies.executor",
        "topologies.spouts",
    ],
    package_data={name: ["py.typed"] for name in ("windowing", "bolts", "state_backends", "topologies")},
    install_requires=["pyarrow>=16", "msgpack>=1.0"],
    extras_require={
        "spark": SPARK,
        "redis": REDIS,
        "hbase": HBASE,
        "tests": TESTS + REDIS + HBASE + SPARK,
    },
    entry_points={"console_scripts": ["squall=topologies.cli:main"]},
)
