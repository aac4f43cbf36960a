"""``KafkaSink``: a topology's outputs to a Kafka topic, each batch's once, in one Kafka transaction.

The runner calls ``on_output(key, outputs)`` after every batch that has
outputs (``key`` the batch id, ``"final"`` for the shutdown flush) and again,
with the same key and outputs, when Spark replays the batch. The sink writes a
batch's records and a **mark** in one transaction: the mark is the committed
offset of the consumer group ``squall-sink.<name>`` on partition 0 of the
topic, whose metadata says which batch was written last. Before its first
write the sink starts its transactional producer (``init_transactions``
fences an older writer with the same ``transactional.id`` and aborts what it
left open) and reads the mark, so a replayed batch, or a batch a killed driver
wrote before Spark committed it, is found written and skipped; a write that
failed half way was aborted and is written again, whole. Readers with
``isolation.level=read_committed`` see each batch's records once, all or none.

Marks in order: batch ``n`` written; the flush after it written (``finals``
counts flushes written since batch ``n``, ``digest`` identifies the last). A
batch id at or below the mark's is a replay (below it is refused: the
checkpoint went back, see :meth:`KafkaSink.__call__`); a flush whose records
equal the last flush written, with no batch written since, is its replay.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from topologies.sinks.base import OutputBatch
from topologies.sinks.kafka_errors import Refusals, bounded, transient
from topologies.sinks.records import Output, OutputKey, record_line
from windowing import Duration

log = logging.getLogger("squall.sinks")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


@dataclass(frozen=True)
class Mark:
    """The last write of a sink: after batch ``batch`` (-1: none yet), ``finals`` flushes, the last with ``digest``."""

    batch: int = -1
    finals: int = 0
    digest: str = ""
    writes: int = 0  # transactions committed in all; the group offset the mark is stored as


def record_lines(outputs: Sequence[Output]) -> list[str]:
    """Each output as the JSON line the output files hold: ``component``, ``task``, ``stream``, ``values``."""
    return [record_line(o) for o in outputs]


class KafkaSink:
    """Writes a topology's outputs to ``topic``, one Kafka transaction per batch, each batch once.

    Use it as ``SparkRunner(..., on_output=KafkaSink(...))``. ``name`` (letters,
    digits, ``-``, ``_``, ``.``) identifies the writer: records are keyed
    ``<name>/<batch>/<index>`` (``<name>/final-after-<batch>/<index>`` for
    the shutdown flush), the producer's ``transactional.id`` is
    ``squall-sink.<name>`` (``transactional_id`` overrides it) and the mark is
    the offset of the consumer group ``squall-sink.<name>``. One sink per name
    writes at a time; a new one fences the old. Each value is the output as
    JSON (``component``, ``task``, ``stream``, ``values``). ``streams``, as
    ``"component:stream"`` names, keeps only those outputs (all by default).
    A topic that does not exist is created with ``partitions`` partitions (one:
    the records keep their emission order). ``options`` go to every client
    the sink makes (librdkafka settings: security, ``linger.ms``, ...).
    ``timeout`` bounds each call to the broker. A call that fails because the
    broker or its coordinator is away (restarting, moving) is retried, with
    new clients, until ``retry`` has passed (two minutes by default; zero:
    never; the attempt under way then ends within its own timeouts),
    each time reading the mark again, so a transaction cut off half way is
    aborted and written whole, and one that committed is not written twice.
    A broker that refuses the sink's credentials or TLS handshake fails the
    call at once with the broker's reason (never the password). It pickles without its clients
    (a copy, under Spark Connect in the server's ``foreachBatch`` process, opens
    its own and reads the mark from the broker). Needs ``confluent-kafka``.

    As one of ``SparkRunner(sinks=[...])`` it writes the records of its
    streams where ``foreachBatch`` runs, in both placements: one Kafka
    transaction is one producer, so a batch's records are gathered to one
    process (docs/guarantees.md, "Sinks").
    """

    keeps_on_executors = False
    schemas: Mapping[str, Any] = {}

    def __init__(
        self,
        topic: str,
        bootstrap_servers: str | Sequence[str],
        *,
        name: str,
        streams: Collection[str] | None = None,
        partitions: int = 1,
        transactional_id: str | None = None,
        options: Mapping[str, Any] | None = None,
        timeout: Duration = Duration.seconds(60),  # noqa: B008 - Duration is immutable
        retry: Duration = Duration.minutes(2),  # noqa: B008
    ) -> None:
        for parameter, value in (("topic", topic), ("name", name)):
            if not isinstance(value, str) or not value or not set(value) <= _NAME_CHARS:
                msg = f"KafkaSink: `{parameter}` must be letters, digits, '-', '_' or '.'; got {value!r} instead"
                raise ValueError(msg)
        servers = bootstrap_servers.split(",") if isinstance(bootstrap_servers, str) else list(bootstrap_servers)
        if not servers or not all(isinstance(s, str) and s.strip() for s in servers):
            msg = f"KafkaSink: `bootstrap_servers` must be 'host:port[,host:port...]'; got {bootstrap_servers!r}"
            raise ValueError(msg)
        if streams is not None and (isinstance(streams, str) or not all(
                isinstance(s, str) and s.count(":") == 1 and all(s.split(":")) for s in streams)):
            msg = f"KafkaSink: `streams` must be a list of 'component:stream' names; got {streams!r} instead"
            raise ValueError(msg)
        if isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1:
            msg = f"KafkaSink: `partitions` must be a positive int; got {partitions!r} instead"
            raise ValueError(msg)
        if not isinstance(timeout, Duration) or timeout.value <= 0:
            msg = f"KafkaSink: `timeout` must be a positive Duration; got {timeout!r} instead"
            raise ValueError(msg)
        if not isinstance(retry, Duration) or retry.value < 0:
            msg = f"KafkaSink: `retry` must be a Duration of zero or more; got {retry!r} instead"
            raise ValueError(msg)
        self.topic = topic
        self.bootstrap_servers = ",".join(s.strip() for s in servers)
        self.name = name
        self.streams = None if streams is None else frozenset(streams)
        self.partitions = partitions
        self.transactional_id = transactional_id or f"squall-sink.{name}"
        self.group = f"squall-sink.{name}"
        self.options = dict(options or {})
        self.timeout = timeout.value / 1000
        self.retry = retry.value / 1000
        self._refusals = Refusals()
        self._admin: Any = None
        self._lock = threading.Lock()
        self._producer: Any = None
        self._consumer: Any = None
        self._mark = Mark()

    def __call__(self, key: OutputKey, outputs: Sequence[Output]) -> None:
        """Write batch ``key``'s outputs in one transaction, unless the mark says they were written.

        ``RuntimeError`` for a batch id below the last one written: Spark only
        replays the last batch, so the query's checkpoint was deleted or
        replaced while the topic kept what it wrote; give the sink a new
        ``name`` to start a new sequence. ``RuntimeError`` too when the broker
        refuses the sink's credentials or TLS. A ``KafkaException`` when the
        broker stays away longer than ``retry``, or fences this sink.
        """
        selected = [o for o in outputs if self.streams is None or f"{o.component}:{o.stream}" in self.streams]
        if not selected:
            return
        lines = record_lines(selected)
        with self._lock:
            deadline, attempt = time.monotonic() + self.retry, 0
            while True:
                self._refusals.refusal = None  # a refusal counts for the attempt that met it
                try:
                    self._write_once(key, lines)
                    return
                except Exception as err:
                    self._fail_if_refused(err)
                    if not transient(err) or time.monotonic() >= deadline:
                        raise
                    attempt += 1
                    log.warning("KafkaSink %r: %s; retrying batch %r (attempt %d) for up to %.0f s more", self.name,
                                err, key, attempt, deadline - time.monotonic())
                    self._drop()
                    time.sleep(min(0.25 * 2**attempt, 5.0))

    def _write_once(self, key: OutputKey, lines: list[str]) -> None:
        self._open()
        next_mark = self._next(key, lines)
        if next_mark is None:
            log.info("KafkaSink %r: batch %r is in topic %r already; not written again", self.name, key, self.topic)
            return
        label = str(key) if isinstance(key, int) else self._final_label(next_mark)
        self._write(label, lines, next_mark)

    def _fail_if_refused(self, err: Exception) -> None:
        refusal = self._refusals.serve(self._admin, self._producer)
        if refusal is None:
            return
        self._drop()
        msg = (f"KafkaSink {self.name!r}: the broker at {self.bootstrap_servers} refused the sink: {refusal}. "
               "Check the security settings in `options` (security.protocol, sasl.mechanisms, sasl.username, "
               "sasl.password, ssl.ca.location)")
        raise RuntimeError(msg) from err

    def write(self, batch: OutputBatch) -> None:
        """The sink protocol: write ``batch``'s records of :attr:`streams` as :meth:`__call__` does."""
        self(batch.key, batch.records(self.streams))

    def __getstate__(self) -> dict[str, Any]:
        """The sink's settings without its clients: under Spark Connect it is pickled to the server's process."""
        state = dict(self.__dict__)
        state.update(_lock=None, _producer=None, _consumer=None, _admin=None, _mark=Mark(), _refusals=Refusals())
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A copy that opens its own clients, reading the mark from the broker, at its first write."""
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the producer and the consumer (a later call opens them again)."""
        with self._lock:
            self._drop()

    def __enter__(self) -> KafkaSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def mark(self) -> Mark:
        """The last write, as this sink knows it (read from the broker before its first write)."""
        return self._mark

    def _next(self, key: OutputKey, lines: list[str]) -> Mark | None:
        """The mark after writing ``key``, or None when ``key`` was written already."""
        last = self._mark
        digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
        if isinstance(key, int):
            if key < last.batch:
                msg = (
                    f"KafkaSink {self.name!r}: batch {key} comes after batch {last.batch} was written to topic "
                    f"{self.topic!r}; Spark only replays the last batch, so the query's checkpoint was deleted or "
                    "replaced. Give the sink a new name (or delete what it wrote) to start afresh"
                )
                raise RuntimeError(msg)
            if key == last.batch:
                return None
            return Mark(key, 0, digest, last.writes + 1)
        if last.finals and last.digest == digest:
            return None
        return Mark(last.batch, last.finals + 1, digest, last.writes + 1)

    def _final_label(self, mark: Mark) -> str:
        after = "none" if mark.batch < 0 else str(mark.batch)
        return f"final-after-{after}" + (f"-{mark.finals}" if mark.finals > 1 else "")

    def _open(self) -> None:
        if self._producer is not None:
            return
        try:
            from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
        except ImportError as err:
            msg = "KafkaSink needs confluent-kafka: pip install confluent-kafka"
            raise ImportError(msg) from err
        self._refusals = Refusals()
        common = {"bootstrap.servers": self.bootstrap_servers, "logger": log, "error_cb": self._refusals,
                  **self.options}
        self._ensure_topic(common)
        producer = Producer({"linger.ms": 5, **common, "transactional.id": self.transactional_id})
        consumer = None
        try:
            producer.init_transactions(self.timeout)  # fences an older writer and aborts its open transaction
            consumer = Consumer({**common, "group.id": self.group, "enable.auto.commit": False,
                                 "isolation.level": "read_committed"})
            [committed] = consumer.committed([TopicPartition(self.topic, 0)], timeout=self.timeout)
            if committed.error is not None:  # the partition's own error: not a mark of "nothing written"
                raise KafkaException(committed.error)
        except BaseException:
            if consumer is not None:
                consumer.close()
            raise
        self._producer, self._consumer = producer, consumer
        self._mark = self._read_mark(committed.offset, committed.metadata)

    def _read_mark(self, offset: int, metadata: str | None) -> Mark:
        if offset < 0 or not metadata:
            return Mark()
        try:
            return Mark(**json.loads(metadata))
        except (ValueError, TypeError) as err:
            self._drop()
            msg = (
                f"KafkaSink {self.name!r}: the consumer group {self.group!r} holds an offset on {self.topic}-0 that "
                f"is not a squall sink's mark ({metadata!r}); is the group used by another client?"
            )
            raise RuntimeError(msg) from err

    def _ensure_topic(self, common: Mapping[str, Any]) -> None:
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = self._admin = AdminClient(dict(common))
        if self.topic in self._topics(admin):
            return
        futures = admin.create_topics([NewTopic(self.topic, self.partitions)], request_timeout=self.timeout)
        try:
            futures[self.topic].result(self.timeout)
        except Exception as err:  # KafkaException: TOPIC_ALREADY_EXISTS when another client created it meanwhile
            if "TOPIC_ALREADY_EXISTS" not in str(err):
                raise

    def _topics(self, admin: Any) -> Any:
        """The cluster's topics, asked in one-second slices until ``timeout``.

        A refusal is seen only by ``error_cb``: asking in slices fails the call within seconds, not at the end.
        """
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                return admin.list_topics(timeout=min(1.0, max(deadline - time.monotonic(), 0.1))).topics
            except Exception as err:  # KafkaException: _TRANSPORT while the broker cannot be reached
                if self._refusals.serve(admin) is not None or not transient(err) or time.monotonic() >= deadline:
                    raise

    def _write(self, label: str, lines: list[str], mark: Mark) -> None:
        from confluent_kafka import TopicPartition

        producer = self._producer
        try:
            producer.begin_transaction()
            for index, line in enumerate(lines):
                self._produce(f"{self.name}/{label}/{index}", line)
            position = TopicPartition(self.topic, 0, mark.writes, metadata=json.dumps(asdict(mark)))
            metadata = self._consumer.consumer_group_metadata()
            bounded(lambda: producer.send_offsets_to_transaction([position], metadata, self.timeout), self.timeout,
                    "send_offsets_to_transaction")
            producer.commit_transaction(self.timeout)
        except BaseException:
            # What the broker holds is read again at the next call: the mark says whether the transaction committed
            # after all, and a new producer aborts it if it is still open (when abort_transaction could not).
            try:
                producer.abort_transaction(self.timeout)
            except Exception:  # KafkaException: fenced, fatal, or nothing to abort; the next producer sees to it
                log.debug("KafkaSink %r: abort_transaction failed", self.name, exc_info=True)
            self._refusals.serve(producer)  # a refusal the producer met, for the caller to see
            self._drop()
            raise
        self._mark = mark

    def _produce(self, key: str, value: str) -> None:
        while True:
            try:
                self._producer.produce(self.topic, key=key.encode(), value=value.encode())
                return
            except BufferError:  # the local queue is full: let it drain
                self._producer.poll(0.1)

    def _drop(self) -> None:
        producer, consumer = self._producer, self._consumer
        self._producer = self._consumer = self._admin = None
        self._mark = Mark()
        if consumer is not None:
            consumer.close()
        if producer is not None:
            producer.flush(0)
