"""Retrying transient store errors: a bounded exponential backoff, set per URL with ``retry_seconds``.

A request that fails with a *transient* error (connection refused or reset,
a timeout, a server still loading its data) is sent again after 0.05 s, then
0.1, 0.2, 0.4, 0.8 and 1 s between attempts, until it succeeds or
``retry_seconds`` (default 5) have passed since its first failure; then the
backend raises StateBackendError with the last error and how long it retried.
Any other error (a refused password, a TLS certificate that does not verify,
an unknown host, bad data) is raised at once.

Retrying is safe because every request a backend sends is idempotent: reads,
and commits tied to their batch id. A commit applied before its reply was lost
is refused when Redis runs the script again (the commit returns False, as for
a replay); on HBase the same Put (same cells, same timestamps) is sent again.
"""

from __future__ import annotations

import logging
import math
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from state_backends.urls import query_pairs, redact, split_url, without_query_option

T = TypeVar("T")
OPTION = "retry_seconds"
log = logging.getLogger("squall.state")

# Errors of the socket layer that say nothing about the request itself: the peer is away or slow.
_TRANSIENT_OS = (ConnectionError, TimeoutError, ssl.SSLEOFError, ssl.SSLZeroReturnError, ssl.SSLSyscallError)


@dataclass(frozen=True)
class RetryPolicy:
    """How long to retry a transient error: ``seconds`` after the first failure, waits doubling up to a cap."""

    seconds: float = 5.0
    first_delay: float = 0.05
    max_delay: float = 1.0

    def __post_init__(self) -> None:
        for name in ("seconds", "first_delay", "max_delay"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                msg = f"RetryPolicy: `{name}` must be a number of seconds; got {type(value).__name__} {value!r} instead"
                raise TypeError(msg)
            if not (math.isfinite(value) and value >= 0):
                msg = f"RetryPolicy: `{name}` must be a finite number of seconds >= 0; got {value!r} instead"
                raise ValueError(msg)

    @classmethod
    def from_url(cls, url: str) -> tuple[str, RetryPolicy]:
        """The policy set by the ``retry_seconds=<seconds>`` query option of ``url``, and ``url`` without it."""
        values = [value for name, value in query_pairs(split_url(url)) if name == OPTION]
        if not values:
            return url, cls()
        text = values[-1]
        try:
            seconds = float(text)
        except ValueError:
            seconds = math.nan
        if not (math.isfinite(seconds) and seconds >= 0) or len(values) > 1:
            msg = (
                f"open_backend: `{OPTION}` must be given once, as a number of seconds >= 0 (0 turns retrying "
                f"off); got {', '.join(repr(v) for v in values)} in {redact(url)!r} instead"
            )
            raise ValueError(msg)
        return without_query_option(url, OPTION), cls(seconds)


def transient_os_error(exc: BaseException) -> bool | None:
    """Whether the first socket error in the chain of ``exc`` (itself, then what it was raised from) is transient.

    Refused, reset and aborted connections, timeouts and a TLS stream cut short
    are; a name that does not resolve (unless the resolver asks to try again)
    and a TLS handshake or certificate failure are not. None if the chain holds
    no socket error.
    """
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, socket.gaierror):
            return cause.errno == socket.EAI_AGAIN
        if isinstance(cause, _TRANSIENT_OS):
            return True
        if isinstance(cause, OSError):
            return False
        cause = cause.__cause__ or cause.__context__
    return None


def retry_note(policy: RetryPolicy, attempts: int, elapsed: float) -> str:
    """What a message says about the retries of a transient error that is finally raised."""
    if policy.seconds == 0:
        return f" (not retried: {OPTION}=0)"
    return (
        f" (still failing after retrying for {elapsed:.1f} s, {attempts} attempts; "
        f"the URL option {OPTION}=<seconds> sets how long to retry, default 5)"
    )


def with_retry(
    policy: RetryPolicy,
    fn: Callable[[], T],
    *,
    name: str,
    errors: tuple[type[BaseException], ...],
    transient: Callable[[BaseException], bool],
    fail: Callable[[BaseException, str], Exception],
    reset: Callable[[], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """``fn()``, called again after a transient error of one of ``errors`` as ``policy`` allows.

    ``name`` says what is called, for the log (``"commit: Redis at redis://..."``).
    ``reset`` runs after every failure (to drop a broken connection). When the
    error is not transient, or the time is up, raises ``fail(error, note)``,
    ``note`` being empty or :func:`retry_note`'s text. Other exceptions pass.
    """
    attempts, first_failure, delay = 0, None, policy.first_delay
    while True:
        attempts += 1
        try:
            result = fn()
        except errors as exc:
            if reset is not None:
                reset()
            if not transient(exc):
                raise fail(exc, "") from None
            now = clock()
            first_failure = now if first_failure is None else first_failure
            remaining = policy.seconds - (now - first_failure)
            if remaining <= 0:
                raise fail(exc, retry_note(policy, attempts, now - first_failure)) from None
            if attempts == 1:
                log.warning("%s (retrying for up to %.1f s)", fail(exc, ""), policy.seconds)
            sleep(min(delay, remaining))
            delay = min(delay * 2, policy.max_delay)
            continue
        if first_failure is not None:
            waited = clock() - first_failure
            log.info("%s: succeeded at attempt %d, %.1f s after the first failure", name, attempts, waited)
        return result
