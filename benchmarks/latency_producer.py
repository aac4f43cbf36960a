"""The latency benchmark's producer: ``--rate`` events a second into a Kafka topic, each stamped when it is made.

Run by ``benchmarks/latency.py`` as a process of its own (its own interpreter,
so the driver's batches do not hold it up). Every event is one record with an
empty value whose Kafka timestamp (CreateTime) is the wall clock, in epoch
milliseconds, at the moment ``produce`` is called for it: its production
time, and its event time in the windows. The producer keeps pace with the
clock (the events due by now are made now, in a loop that sleeps about half a
millisecond) and hands them to librdkafka, which sends them every
``--linger-ms``. It prints ``producing <epoch ms>`` when the first event is made,
stops at the first half second (``xxx.500``) after ``--seconds`` have passed, so
the last whole second's window has events past its end, waits for every
delivery and writes, as JSON to ``--out``: the events made in each millisecond,
the first and last milliseconds, the failed or undelivered events, and how
long deliveries took (a histogram in milliseconds, from ``produce`` to the
broker's acknowledgement).

Run alone: ``python benchmarks/latency_producer.py --bootstrap 127.0.0.1:9092 --topic t --out produced.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from typing import Any

PACE_S = 0.0005


def producer_config(bootstrap: str, linger_ms: float) -> dict[str, Any]:
    """librdkafka's settings: leader acknowledgement, no idempotence bookkeeping, ``linger_ms`` of batching."""
    return {"bootstrap.servers": bootstrap, "linger.ms": linger_ms, "acks": 1, "enable.idempotence": False,
            "queue.buffering.max.messages": 1_000_000}


def produce(bootstrap: str, topic: str, rate: int, seconds: float, linger_ms: float) -> dict[str, Any]:
    """Make ``rate`` events a second for ``seconds`` (then up to the next half second); what was made, per ms."""
    from confluent_kafka import Producer

    producer = Producer(producer_config(bootstrap, linger_ms))
    producer.list_topics(topic, timeout=30)  # connected, and the topic's leader known, before the clock starts
    made: Counter[int] = Counter()
    delivery: Counter[int] = Counter()
    failed = 0

    def delivered(err: Any, msg: Any) -> None:
        nonlocal failed
        if err is not None:
            failed += 1
        else:
            delivery[time.time_ns() // 1_000_000 - msg.timestamp()[1]] += 1

    start_ns = time.time_ns()
    end_ms = _half_second_after(start_ns // 1_000_000 + int(seconds * 1000))
    print(f"producing {start_ns // 1_000_000}", flush=True)
    sent = 0
    while (now_ns := time.time_ns()) < end_ms * 1_000_000:
        due = (now_ns - start_ns) * rate // 1_000_000_000 + 1
        ms = now_ns // 1_000_000
        if due > sent:
            for _ in range(due - sent):
                producer.produce(topic, value=b"", timestamp=ms, on_delivery=delivered)
            made[ms] += due - sent
            sent = due
        producer.poll(0)
        time.sleep(PACE_S)
    left = producer.flush(60)
    return {"first_ms": min(made), "last_ms": max(made), "per_ms": sorted(made.items()), "failed": failed,
            "undelivered": left, "delivery_ms": sorted(delivery.items())}


def _half_second_after(ms: int) -> int:
    return ms - ms % 1000 + (500 if ms % 1000 < 500 else 1500)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--rate", type=int, default=20_000)
    p.add_argument("--seconds", type=float, default=120)
    p.add_argument("--linger-ms", type=float, default=5)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    result = produce(args.bootstrap, args.topic, args.rate, args.seconds, args.linger_ms)
    with open(args.out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
