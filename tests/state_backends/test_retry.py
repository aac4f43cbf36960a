"""The retry rule without servers: the backoff schedule, the ``retry_seconds`` option, which errors are transient."""

import socket
import ssl

import happybase  # noqa: F401 - loads Hbase_thrift
import Hbase_thrift  # the Thrift module happybase loads from its Hbase.thrift
import pytest
import redis
from thriftpy2.thrift import TApplicationException
from thriftpy2.transport import TTransportException

from state_backends import hbase_backend, redis_backend
from state_backends.retry import RetryPolicy, with_retry

from .retry_probe import ManualClock

NOT_OPEN, END_OF_FILE = TTransportException.NOT_OPEN, TTransportException.END_OF_FILE


class Failing:
    """Raises ``error`` the first ``times`` calls (forever with None), then returns "done"."""

    def __init__(self, error: Exception, times: int | None = None) -> None:
        self.error, self.times, self.calls = error, times, 0

    def __call__(self) -> str:
        self.calls += 1
        if self.times is None or self.calls <= self.times:
            raise self.error
        return "done"


def _run(policy: RetryPolicy, fn, clock: ManualClock, transient=lambda exc: True):
    return with_retry(
        policy,
        fn,
        name="call",
        errors=(OSError,),
        transient=transient,
        fail=lambda exc, note: RuntimeError(f"failed: {exc}{note}"),
        sleep=clock.sleep,
        clock=lambda: clock.now,
    )


def test_waits_double_from_50_ms_to_1_s_and_stop_at_the_budget():
    clock, fn = ManualClock(), Failing(ConnectionRefusedError("refused"))
    with pytest.raises(RuntimeError, match=r"failed: refused \(still failing after retrying for 5\.0 s, 10 attempts"):
        _run(RetryPolicy(), fn, clock)
    assert clock.waits == pytest.approx([0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0, 1.0, 0.45])
    assert fn.calls == 10


def test_a_call_that_recovers_returns_its_result():
    clock, fn = ManualClock(), Failing(ConnectionResetError("reset"), times=3)
    assert _run(RetryPolicy(seconds=1), fn, clock) == "done"
    assert clock.waits == pytest.approx([0.05, 0.1, 0.2])


def test_a_non_transient_error_is_raised_at_once():
    clock, fn = ManualClock(), Failing(PermissionError("no"))
    with pytest.raises(RuntimeError, match=r"^failed: no$"):
        _run(RetryPolicy(), fn, clock, transient=lambda exc: False)
    assert (fn.calls, clock.waits) == (1, [])


def test_other_exceptions_pass_untouched_and_zero_turns_retrying_off():
    with pytest.raises(KeyError):
        _run(RetryPolicy(), Failing(KeyError("k")), ManualClock())
    clock, fn = ManualClock(), Failing(ConnectionRefusedError("refused"))
    with pytest.raises(RuntimeError, match=r"refused \(not retried: retry_seconds=0\)"):
        _run(RetryPolicy(seconds=0), fn, clock)
    assert (fn.calls, clock.waits) == (1, [])


@pytest.mark.parametrize(
    ("url", "seconds", "client_url"),
    [
        ("redis://h:1/0", 5.0, "redis://h:1/0"),
        ("redis://:p%40w@h:1/0?retry_seconds=2.5", 2.5, "redis://:p%40w@h:1/0"),
        ("rediss://h/0?ssl_cert_reqs=none&retry_seconds=0&socket_timeout=3#x", 0, "rediss://h/0?ssl_cert_reqs=none&socket_timeout=3#x"),
        ("hbase://h:9090/p?retry_seconds=30", 30, "hbase://h:9090/p"),
    ],
)  # fmt: skip
def test_retry_seconds_option_is_read_and_removed_from_the_url(url, seconds, client_url):
    assert RetryPolicy.from_url(url) == (client_url, RetryPolicy(seconds))


@pytest.mark.parametrize("value", ["-1", "abc", "inf", "nan", "", "1&retry_seconds=2"])
def test_bad_retry_seconds_names_the_option_and_hides_the_password(value):
    with pytest.raises(ValueError, match=r"open_backend: `retry_seconds` must be given once, as a number") as info:
        RetryPolicy.from_url(f"redis://:hunter22@h:1/0?retry_seconds={value}")
    assert "hunter22" not in str(info.value)


def test_policy_is_checked_when_made():
    with pytest.raises(ValueError, match=r"RetryPolicy: `seconds` must be a finite number of seconds >= 0; got -1"):
        RetryPolicy(seconds=-1)
    with pytest.raises(TypeError, match=r"RetryPolicy: `max_delay` must be a number of seconds; got str '1'"):
        RetryPolicy(max_delay="1")


def _chained(outer: BaseException, inner: BaseException) -> BaseException:
    """``outer`` as a library raises it while handling ``inner``."""
    try:
        try:
            raise inner
        except BaseException:
            raise outer  # noqa: B904 - the implicit context is what libraries leave
    except BaseException as exc:
        return exc


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (_chained(redis.ConnectionError("Error 111"), ConnectionRefusedError()), True),
        (_chained(redis.ConnectionError("Error 104"), ConnectionResetError()), True),
        (redis.ConnectionError("Connection closed by server."), True),
        (redis.TimeoutError("Timeout reading from socket"), True),
        (redis.BusyLoadingError("Redis is loading the dataset in memory"), True),
        (_chained(redis.ConnectionError("Error -3"), socket.gaierror(socket.EAI_AGAIN, "again")), True),
        (_chained(redis.ConnectionError("Error -2"), socket.gaierror(socket.EAI_NONAME, "unknown")), False),
        (_chained(redis.ConnectionError("Error 1"), ssl.SSLCertVerificationError("verify failed")), False),
        (_chained(redis.ConnectionError("Error 1"), ssl.SSLError("wrong version number")), False),
        (redis.AuthenticationError("invalid username-password pair"), False),
        (redis.ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"), False),
        (redis.exceptions.OutOfMemoryError("OOM"), False),
    ],
)
def test_which_redis_errors_are_transient(error, transient):
    assert redis_backend.transient(error) is transient


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (_chained(TTransportException(NOT_OPEN, "Could not connect"), ConnectionRefusedError()), True),
        (TTransportException(TTransportException.END_OF_FILE, "TSocket read 0 bytes"), True),
        (_chained(TTransportException(END_OF_FILE, "TSocket read 0 bytes"), TTransportException(END_OF_FILE)), True),
        (TimeoutError("timed out"), True),
        (BrokenPipeError(), True),
        (PermissionError(), False),
        (_chained(TTransportException(NOT_OPEN, "Could not connect"), socket.gaierror(-2, "x")), False),
        (Hbase_thrift.IOError(message="org.apache.hadoop.hbase.TableNotFoundException"), False),
        (Hbase_thrift.IllegalArgument(message="bad filter"), False),
        (TApplicationException(TApplicationException.INTERNAL_ERROR, "oops"), False),
    ],
)  # fmt: skip
def test_which_thrift_errors_are_transient(error, transient):
    assert hbase_backend.transient(error) is transient
