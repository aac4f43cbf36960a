"""What one small batch costs in driver mode as the windows grow: it must follow the batch, not the windows.

A Storm windowed bolt (2 tasks, shuffle grouping) holds a count window of N
tuples per task (N = 10^4, 10^5, 10^6 in all) sliding by the batch; it keeps a
running sum from ``get_new()`` and ``get_expired()``, so its own work follows
the batch too. The windows are filled with large batches, then small batches
of 2,000 tuples run through ``BatchLoop.run`` (the ``foreachBatch`` body,
without Spark's part). Printed per window size: milliseconds per small batch
(median of the measured batches) and the ratio to the smallest size. The
running sums are checked against a direct computation.

Run: ``python benchmarks/batch_overhead.py [--sizes 10000 100000 1000000] [--batches 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bolts import BaseWindowedBolt, Fields
from topologies import TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.spouts import FileSpout
from windowing import Count

SMALL = 2_000
FILL = 50_000
TASKS = 2


class RunningSum(BaseWindowedBolt):
    """The window's sum, kept from the new and expired tuples."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.sum = 0

    def execute(self, window):
        self.sum += sum(t["value"] for t in window.get_new()) - sum(t["value"] for t in window.get_expired())
        self.collector.emit([self.sum])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("sum"))


def measure(held: int, batches: int) -> tuple[float, int]:
    """Median ms per small batch with ``held`` tuples in the windows; and how many batches were checked."""
    per_task = held // TASKS
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout("/unused", "json", ("value",), schema="value BIGINT"))
    builder.set_bolt("sum", RunningSum().with_window(Count(per_task), Count(SMALL // TASKS)), TASKS) \
        .shuffle_grouping("events")
    clock = iter(range(1_000, 10**9, 1_000))
    executor = batch_loop(builder.create_topology(), BatchClock(Path(tempfile.mkdtemp()), lambda: next(clock)))
    value, batch_id = 0, 0
    while value < held:
        rows = [[v] for v in range(value, value + FILL)]
        executor.run(batch_id, {"events": rows})
        value, batch_id = value + FILL, batch_id + 1
    millis = []
    for _ in range(batches):
        rows = [[v] for v in range(value, value + SMALL)]
        start = time.perf_counter()
        executor.run(batch_id, {"events": rows})
        millis.append((time.perf_counter() - start) * 1000)
        value, batch_id = value + SMALL, batch_id + 1
    last = executor.log.all()[-TASKS:]
    # Shuffle alternates tasks, so each task held every other value of the last `held` values.
    expected = {sum(range(value - held + t, value, TASKS)) for t in range(TASKS)}
    got = {o.values[0] for o in last}
    if got != expected:
        raise SystemExit(f"window sums differ at {held} held tuples: {sorted(got)} != {sorted(expected)}")
    return statistics.median(millis), batches


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    p.add_argument("--batches", type=int, default=5)
    args = p.parse_args()
    results = [(n, *measure(n, args.batches)) for n in args.sizes]
    base = results[0][1]
    print(f"a batch of {SMALL:,} tuples through BatchLoop.run, {TASKS} tasks; sums checked")
    print(f"{'tuples in windows':>18}{'ms per batch':>14}{'x smallest':>12}")
    for n, ms, _ in results:
        print(f"{n:>18,}{ms:>14.1f}{ms / base:>12.2f}")


if __name__ == "__main__":
    main()
