"""The contract fixtures: every test taking ``backend`` runs against memory, Redis and HBase."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from state_backends import Namespace, StateBackend, open_backend

from .retry_probe import RetryProbe

BACKENDS = [
    pytest.param("memory", id="memory"),
    pytest.param("redis", id="redis", marks=pytest.mark.needs("redis_url")),  # reached at run time (tests/markers.py)
    pytest.param("hbase", id="hbase", marks=pytest.mark.needs("hbase_url")),
]


@pytest.fixture(params=BACKENDS)
def backend_url(request: pytest.FixtureRequest) -> str:
    """A URL of each kind; memory URLs are named, so reopening one finds the same data."""
    if request.param == "memory":
        return f"memory://test-{uuid.uuid4().hex}"
    return request.getfixturevalue(f"{request.param}_url")


@pytest.fixture
def backend(backend_url: str) -> Iterator[StateBackend]:
    with open_backend(backend_url) as opened:
        yield opened


@pytest.fixture
def ns(backend: StateBackend) -> Namespace:
    """A namespace no other test uses."""
    return backend.namespace(f"t-{uuid.uuid4().hex[:12]}")


@pytest.fixture
def retry_probe(monkeypatch: pytest.MonkeyPatch) -> RetryProbe:
    """The backends' retries on a manual clock: each call's attempts counted, the waits recorded, none slept."""
    return RetryProbe(monkeypatch)
