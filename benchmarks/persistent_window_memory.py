"""Peak memory of a persistent window of 10^6 tuples kept to 25,000 in memory.

A count window of 1,000,000 tuples slides by 100,000; tuples arrive 10,000 per
batch and every batch commits to Redis (out of process, so the store's copy is
not counted). Each activation iterates the whole window with ``window.iter()``,
reading spilled pages back one at a time. tracemalloc's peak over the run after
the window is full is compared with the memory that 25,000 such tuples need when
simply held in a list. Run: ``python benchmarks/persistent_window_memory.py [--state redis://...]``.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import time
import tracemalloc

from bolts import BaseStatefulWindowedBolt, Fields, StoredWindowedBoltTask, TaskOptions, Tuple
from state_backends import open_backend
from windowing import Count, Event

FIELDS = Fields("id", "key", "value")
PER_BATCH = 10_000


def make_tuple(i: int) -> Tuple:
    return Tuple((i, f"k{i % 100}", i * 0.5), FIELDS, "default", "spout")


class Total(BaseStatefulWindowedBolt):
    def execute(self, window):
        n = total = 0
        for t in window.iter():
            n += 1
            total += t["id"]
        self.collector.emit([n, total])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("n", "total"))


def tuples_need(count: int) -> int:
    """Bytes that ``count`` tuples take when held as window events in a list."""
    tracemalloc.start()
    held = [Event(make_tuple(i), i, i) for i in range(count)]
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del held
    return size


def run(url: str, window: int, in_memory: int, batches_after_full: int) -> tuple[int, list[list[int]], int]:
    store = open_backend(url).namespace(f"memory-bench-{time.time_ns()}")
    bolt = Total().with_window(Count(window), Count(window // 10)).with_persistence()
    bolt = bolt.with_max_events_in_memory(in_memory)
    outputs: list[list[int]] = []
    task = StoredWindowedBoltTask(bolt, TaskOptions("total", (("spout", "default"),), store=store))
    task.prepare({}, lambda stream, values: outputs.append(values))
    seq = 0
    full = window // PER_BATCH
    tracemalloc.start()
    for batch_id in range(1, full + batches_after_full + 1):
        if batch_id == full + 1:
            tracemalloc.reset_peak()  # the window is full: measure the steady state
        for _ in range(PER_BATCH):
            task.execute(make_tuple(seq))
            seq += 1
        task.commit(batch_id)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, outputs, task.manager.eviction.buffer.resident


def start_redis() -> tuple[str, subprocess.Popen[bytes]]:
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not installed: run scripts/install_services.sh or pass --state")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    return f"redis://127.0.0.1:{port}/0", proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", help="backend URL (default: a redis-server started here)")
    parser.add_argument("--window", type=int, default=1_000_000)
    parser.add_argument("--in-memory", type=int, default=25_000)
    parser.add_argument("--batches", type=int, default=20, help="batches measured once the window is full")
    args = parser.parse_args()
    proc = None
    url = args.state
    if url is None:
        url, proc = start_redis()
    try:
        baseline = tuples_need(args.in_memory)
        peak, outputs, resident = run(url, args.window, args.in_memory, args.batches)
    finally:
        if proc is not None:
            proc.terminate()
    print(f"window {args.window:,} tuples, with_max_events_in_memory({args.in_memory:,}), state {url}")
    print(f"{args.in_memory:,} tuples held in a list: {baseline / 2**20:8.1f} MiB")
    print(f"peak traced memory, window full:     {peak / 2**20:8.1f} MiB  ({peak / baseline:.2f}x)")
    print(f"tuples resident after the last commit: {resident:,}; last window: {outputs[-1][0]:,} tuples")


if __name__ == "__main__":
    main()
