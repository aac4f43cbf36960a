"""What a persistent window's checkpoint costs per batch as the window grows.

A count window of N tuples (N = 10^3 .. 10^6) slides by 10^4 tuples per batch:
each batch adds 10^4 tuples, expires as many once the window is full, and
commits. Printed per backend and window size: bytes written per commit and
milliseconds per commit (median of the measured batches). Bytes should follow
the new tuples, not the window.

Run: ``python benchmarks/checkpoint_cost.py --state memory:// redis://127.0.0.1:6379/0 hbase://127.0.0.1:9090/bench``
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterable, Mapping

from bolts import BaseStatefulWindowedBolt, Fields, StoredWindowedBoltTask, TaskOptions, Tuple, WindowStore
from windowing import Count

NEW_PER_BATCH = 10_000
FIELDS = Fields("id", "key", "value")


class CountingStore:
    """Wraps a store and records the bytes each commit sends."""

    def __init__(self, inner: WindowStore) -> None:
        self.inner = inner
        self.sent: list[int] = []

    def get(self, key: bytes) -> bytes | None:
        return self.inner.get(key)

    def scan(self, prefix: bytes) -> Iterable[tuple[bytes, bytes]]:
        return self.inner.scan(prefix)

    def commit(self, batch_id: int, puts: Mapping[bytes, bytes], deletes: Iterable[bytes]) -> bool:
        deletes = list(deletes)
        self.sent.append(sum(len(k) + len(v) for k, v in puts.items()) + sum(len(k) for k in deletes))
        return self.inner.commit(batch_id, puts, deletes)


class Sum(BaseStatefulWindowedBolt):
    def execute(self, window):
        self.state.put("n", len(window))

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("n"))


def measure(make_store: Callable[[str], WindowStore], size: int, batches: int) -> tuple[float, float]:
    store = CountingStore(make_store(f"bench-{size}"))
    bolt = Sum().with_window(Count(size), Count(NEW_PER_BATCH)).with_persistence()
    task = StoredWindowedBoltTask(bolt, TaskOptions("sum", (("spout", "default"),), store=store))
    task.prepare({}, lambda stream, values: None)
    seq = 0
    fill = max(1, size // NEW_PER_BATCH)
    millis = []
    for batch_id in range(1, fill + batches + 1):
        for _ in range(NEW_PER_BATCH):
            task.execute(Tuple((seq, f"k{seq % 100}", seq * 0.5), FIELDS, "default", "spout"))
            seq += 1
        start = time.perf_counter()
        task.commit(batch_id)
        if batch_id > fill:  # the window is full: steady state
            millis.append((time.perf_counter() - start) * 1000)
    return statistics.median(store.sent[fill:]), statistics.median(millis)


def store_factory(url: str) -> Callable[[str], WindowStore]:
    from state_backends import open_backend

    backend = open_backend(url)
    run = time.time_ns()  # a fresh namespace per run, so sizes start empty
    return lambda namespace: backend.namespace(f"{namespace}-{run}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", nargs="+", default=["memory://"], help="backend URLs")
    parser.add_argument("--sizes", nargs="+", type=int, default=[10**3, 10**4, 10**5, 10**6])
    parser.add_argument("--batches", type=int, default=3, help="measured batches per size")
    args = parser.parse_args()
    print(f"persistent count window, {NEW_PER_BATCH:,} new tuples per batch; median of {args.batches} batches")
    print(f"{'backend':<34}{'window':>10}{'KiB/commit':>12}{'bytes/new tuple':>17}{'ms/commit':>11}")
    for url in args.state:
        make = store_factory(url)
        for size in args.sizes:
            sent, ms = measure(make, size, args.batches)
            print(f"{url:<34}{size:>10,}{sent / 1024:>12.1f}{sent / NEW_PER_BATCH:>17.1f}{ms:>11.1f}")


if __name__ == "__main__":
    main()
