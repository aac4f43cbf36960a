"""A manual clock for the backends' retry loop, so a test asserts on attempts and waits, not on seconds it measured."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from state_backends import hbase_backend, redis_backend
from state_backends.retry import RetryPolicy, with_retry

T = TypeVar("T")


class ManualClock:
    """A clock that only ``sleep`` moves; it records every wait."""

    def __init__(self) -> None:
        self.now = 100.0
        self.waits: list[float] = []

    def sleep(self, seconds: float) -> None:
        """Move the clock by ``seconds`` at once and record the wait."""
        self.waits.append(seconds)
        self.now += seconds


class RetryProbe(ManualClock):
    """The Redis and HBase backends' ``with_retry`` on this manual clock, counting each call's attempts.

    Every request is still sent to the real server; only the waits between
    attempts cost no time, so the number of attempts a budget allows is the
    schedule's, whatever the machine's load.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__()
        self.calls: list[list[Any]] = []  # [name, attempts] per call of with_retry, in order
        for module in (redis_backend, hbase_backend):
            monkeypatch.setattr(module, "with_retry", self._with_retry)

    def attempts(self, method: str) -> list[int]:
        """The attempts of each call whose name starts with ``method`` (``"open_backend"``, ``"commit"``...)."""
        return [attempts for name, attempts in self.calls if name.startswith(f"{method}: ")]

    def _with_retry(self, policy: RetryPolicy, fn: Callable[[], T], *, name: str, **kwargs: Any) -> T:
        call = [name, 0]
        self.calls.append(call)

        def counted() -> T:
            call[1] += 1
            return fn()

        return with_retry(policy, counted, name=name, sleep=self.sleep, clock=lambda: self.now, **kwargs)
