"""The Kafka broker killed by SIGKILL and restarted mid-run: the output topic holds exactly a fault-free run's records.

A topology reads events from one topic (10 records a batch, 6 batches) and
writes per-key window sums to another through :class:`~topologies.sinks.KafkaSink`.
The broker, of this module's own (the run's shared broker stays up), dies:

- **while the spout reads**: as batch 2 begins, before Spark's Kafka
  consumers fetch its records, so they fetch from a dead broker and wait for
  the restarted one;
- **while the sink writes its transaction**: after the second record of
  batch 3 is produced, before the transaction commits, so the commit meets a
  dead broker; the sink retries with a new producer, which aborts what the
  old one left open, and writes the batch whole.

Each time the broker is started again on its data (its log recovered, as
after a crash) a few seconds later, by another thread. The output topic,
read committed, must equal the fault-free run's record for record (keys
without the sink's name, values), in order.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable, Iterator

import pytest

from tests.kafka.helpers import KeyedSum, event
from tests.kafka_fixtures import KafkaBroker, KafkaClient
from tests.topologies.helpers import counting_clock
from topologies import Fields, SparkRunner, TopologyBuilder
from topologies.engine import BatchLoop
from topologies.sinks import KafkaSink
from topologies.spouts import KafkaSpout
from windowing import Duration

pytestmark = pytest.mark.faults

EVENTS = 60  # ts 0.5 s .. 59.5 s, 10 a batch


@pytest.fixture(scope="module")
def broker(start_kafka_broker) -> Iterator[KafkaBroker]:
    pytest.importorskip("confluent_kafka")
    broker = start_kafka_broker()
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture(scope="module")
def source(broker) -> str:
    client = KafkaClient(broker.bootstrap)
    topic = client.create_topic("kill-in")
    client.produce(topic, [event("abc"[i % 3], 500 + i * 1_000, i) for i in range(EVENTS)])
    return topic


class Restart:
    """Kills the broker once, when :meth:`__call__` is first called, and starts it again from another thread."""

    def __init__(self, broker: KafkaBroker) -> None:
        self.broker, self.kills = broker, 0
        self.thread: threading.Thread | None = None
        self.failed: list[BaseException] = []

    def __call__(self) -> None:
        if self.kills:
            return
        self.broker.kill()
        self.kills += 1
        self.thread = threading.Thread(target=self._restart, daemon=True)
        self.thread.start()

    def _restart(self) -> None:
        try:
            self.broker.restart()
        except BaseException as err:  # pytest.fail in the thread: raised by join
            self.failed.append(err)

    def join(self) -> None:
        """Wait for the restart; raise what made it fail."""
        assert self.thread is not None, "the broker was never killed"
        self.thread.join(300)
        assert not self.thread.is_alive(), "the broker did not restart within 300 s"
        if self.failed:
            raise self.failed[0]


def run(kafka_spark, broker: KafkaBroker, source: str, tmp_path, sink_hook: Callable | None = None) -> list:
    """Run the topology to the end of ``source``; the output topic's records as (key without the name, value)."""
    client = KafkaClient(broker.bootstrap)
    output, name = client.create_topic("kill-out"), f"kill-{uuid.uuid4().hex[:8]}"
    builder = TopologyBuilder()
    builder.set_spout("events", KafkaSpout(source, broker.bootstrap, schema="key STRING, ts BIGINT, value BIGINT",
                                           fields=("key", "ts", "value"), max_offsets_per_trigger=10))
    builder.set_bolt("sum", KeyedSum().with_tumbling_window(Duration.seconds(10)).with_timestamp_field("ts")
                     .with_lag(Duration.seconds(1)), parallelism=2).fields_grouping("events", Fields("key"))
    with KafkaSink(output, broker.bootstrap, name=name, timeout=Duration.seconds(20)) as sink:
        if sink_hook is not None:
            produce = sink._produce

            def hooked(key: str, value: str) -> None:
                produce(key, value)
                sink_hook(key)

            sink._produce = hooked  # type: ignore[method-assign]
        runner = SparkRunner(kafka_spark, checkpoint_location=tmp_path / "ck", clock=counting_clock(),
                             on_output=sink)
        handle = runner.submit(name, builder.create_topology(), available_now=True)
        assert handle.await_termination(600)
    return [(r.key.decode().split("/", 1)[1], json.loads(r.value)) for r in client.consume(output)]


@pytest.fixture(scope="module")
def expected(kafka_spark, broker, source, tmp_path_factory) -> list:
    records = run(kafka_spark, broker, source, tmp_path_factory.mktemp("kill-baseline"))
    assert {k.split("/")[0] for k, _ in records} >= {"1", "2", "3", "4", "5"}, records  # windows in most batches
    return records


def test_the_broker_killed_while_the_spout_reads_loses_and_repeats_nothing(kafka_spark, broker, source, expected,
                                                                            tmp_path, monkeypatch):
    restart = Restart(broker)
    original = BatchLoop.__call__

    down_when_read: list[bool] = []

    def kill_at_batch_2(self, df, batch_id):
        if batch_id == 2 and not restart.kills:
            restart()  # the batch's records are fetched when the loop collects it, after this
            down_when_read.append(restart.thread.is_alive())  # still restarting: the fetch meets a dead broker
        return original(self, df, batch_id)

    monkeypatch.setattr(BatchLoop, "__call__", kill_at_batch_2)
    got = run(kafka_spark, broker, source, tmp_path)
    restart.join()
    assert restart.kills == 1 and down_when_read == [True]
    assert got == expected
    print(f"\nKafka broker killed while the spout reads: {restart.kills} kill, {len(got)} records as without it")


def test_the_broker_killed_while_the_sink_writes_its_transaction_loses_and_repeats_nothing(
        kafka_spark, broker, source, expected, tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="squall.sinks")
    restart = Restart(broker)

    def kill_in_batch_3(key: str) -> None:
        if key.split("/")[1:] == ["3", "1"]:
            restart()

    got = run(kafka_spark, broker, source, tmp_path, sink_hook=kill_in_batch_3)
    restart.join()
    assert restart.kills == 1
    retries = [r.getMessage() for r in caplog.records if "retrying batch 3" in r.getMessage()]
    assert retries, "the sink's transaction did not fail: the kill came too late"
    assert got == expected
    print(f"\nKafka broker killed while the sink writes its transaction: {restart.kills} kill, {len(retries)} "
          f"retried write(s), {len(got)} records as without it")
