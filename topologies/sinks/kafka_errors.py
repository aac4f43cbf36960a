"""librdkafka's errors as :class:`~topologies.sinks.KafkaSink` meets them: passing, refused, or a call that hangs.

A broker that restarts, or a coordinator that moves, fails a client's calls
for a while with errors that pass when the call is made again
(:func:`transient`). A broker that refuses the client's credentials or TLS
handshake never tells the call that failed: librdkafka reports it only to the
client's ``error_cb``, and the call itself times out as a transport error.
:class:`Refusals` is that callback; it keeps the refusal so the sink can
fail at once with the broker's reason, instead of retrying what cannot pass.
librdkafka's messages name the mechanism and the user, never the password.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger("squall.sinks")

# Error names (KafkaError.name()) a restarting broker or a moving coordinator gives; the same call passes later.
_TRANSIENT = frozenset({
    "_TRANSPORT", "_TIMED_OUT", "_MSG_TIMED_OUT", "_ALL_BROKERS_DOWN", "_WAIT_COORD", "_NO_OFFSET",
    "NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS", "REQUEST_TIMED_OUT",
    "NETWORK_EXCEPTION", "NOT_LEADER_OR_FOLLOWER", "LEADER_NOT_AVAILABLE", "CONCURRENT_TRANSACTIONS",
})
# The broker refused who the client is (credentials, TLS) or what it may do: retrying cannot help.
_REFUSED = frozenset({
    "_AUTHENTICATION", "SASL_AUTHENTICATION_FAILED", "_SSL", "TOPIC_AUTHORIZATION_FAILED",
    "GROUP_AUTHORIZATION_FAILED", "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED",
})
# What a broker that restarted mid-transaction leaves a producer with: fatal for that producer, gone for a new one.
_LEFT_BY_A_RESTART = frozenset({
    "INVALID_TXN_STATE", "UNKNOWN_PRODUCER_ID", "OUT_OF_ORDER_SEQUENCE_NUMBER", "_STATE", "_INCONSISTENT",
})
# Fenced: another writer with the same transactional.id took over. Never retried, or two writers would take turns.
_FENCED = frozenset({"_FENCED", "PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH"})


def error_of(exception: BaseException) -> Any:
    """The ``KafkaError`` a ``KafkaException`` carries, else None."""
    from confluent_kafka import KafkaError, KafkaException

    if isinstance(exception, KafkaException) and exception.args and isinstance(exception.args[0], KafkaError):
        return exception.args[0]
    return None


def transient(exception: BaseException) -> bool:
    """Whether the call may pass when made again with new clients: a broker or coordinator was away for a while.

    The errors a restart leaves a producer with count too, fatal as they are
    for it (a new producer of the same ``transactional.id`` aborts the cut-off
    transaction). A fenced producer and a refusal do not, nor does an error
    that would recur (a record too large, a setting the broker refuses), nor
    anything but a ``KafkaException``.
    """
    error = error_of(exception)
    if error is None or error.name() in _FENCED | _REFUSED:
        return False
    return bool(error.name() in _TRANSIENT | _LEFT_BY_A_RESTART or (error.retriable() and not error.fatal()))


class Refusals:
    """A client's ``error_cb``: keeps the last error saying the broker refused the client's credentials or TLS.

    librdkafka calls it from a client's ``poll`` (and the admin client's
    calls); call :meth:`serve` with the clients after a failed call, then read
    :attr:`refusal`.
    """

    def __init__(self) -> None:
        self.refusal: str | None = None

    def __call__(self, error: Any) -> None:
        """Keep ``error``'s message if it is a refusal (a TLS error only when the handshake failed)."""
        if error.name() in _REFUSED and (error.name() != "_SSL" or "handshake failed" in error.str()):
            self.refusal = error.str()

    def serve(self, *clients: Any) -> str | None:
        """Let each client run its pending callbacks; the refusal seen, if any."""
        for client in clients:
            if client is not None:
                client.poll(0)
        return self.refusal


def bounded(call: Callable[[], T], seconds: float, what: str) -> T:
    """``call()``, given ``seconds`` (plus a grace of 5 s) to return; a retriable ``_TIMED_OUT`` error if it does not.

    librdkafka's ``send_offsets_to_transaction`` can block past its own
    timeout when the group coordinator's broker went away and came back
    (librdkafka issue 5456). The call runs in a daemon thread; if it does not
    return, it is left blocked and its producer must be abandoned: the next
    producer of the same ``transactional.id`` fences it and aborts its
    transaction.
    """
    from confluent_kafka import KafkaError, KafkaException

    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as err:  # handed to the caller's thread
            outcome["error"] = err

    thread = threading.Thread(target=run, name=f"squall-kafka-{what}", daemon=True)
    thread.start()
    thread.join(seconds + 5)
    if thread.is_alive():
        reason = f"{what} did not return within {seconds:g} s; its producer is abandoned"
        log.warning("%s (its thread stays blocked: librdkafka issue 5456)", reason)
        raise KafkaException(KafkaError(KafkaError._TIMED_OUT, reason, retriable=True))
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]
