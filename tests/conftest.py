"""Shared test configuration: one Spark session and one server of each kind per test run."""

import importlib.util

import pytest

# Fixture plugins: servers shared by pytest-xdist's workers and its order of files; the real servers (Redis, HBase)
# and the shared SparkSession; the markers and tiers derived from those fixtures; the JVMs' class archive; every
# test's time; the TLS Redis of tests/state_backends and tests/cluster.
PLUGINS = ("tests.shared_servers", "tests.service_fixtures", "tests.spark_fixtures", "tests.connect_fixtures",
           "tests.markers", "tests.jvm_archive", "tests.timings", "tests.state_backends.tls_redis")
pytest_plugins = [name for name in PLUGINS if importlib.util.find_spec(name) is not None]


@pytest.fixture(autouse=True)
def _no_pickle_fall_back_after_a_test():
    """A test that ran a topology with topology.fall.back.on.java.serialization leaves this process's switch off."""
    yield
    from bolts.codecs.pickle_fallback import set_fall_back

    set_fall_back(False)
