"""Cost per record of KIP-450 TimeDifferenceWindows against 1 ms hopping SlidingWindows over the same data.

One key, records about every 500 ms of event time (random gaps of 0..1000 ms),
sum aggregation, default trigger, a watermark that trails far behind (so all
windows stay live) and a final flush. Hopping windows cost size/1 ms window
updates per record, so they get fewer records at large sizes; the cost is per
record either way. Run: ``PYTHONPATH=. python benchmarks/time_difference_windows.py``.
"""

from __future__ import annotations

import random
import time

from bolts.aggregate.windowed_aggregate_bolt import WindowedAggregateBolt
from topologies.testing import BoltHarness
from windowing import Duration, aggregators
from windowing.assigners import SlidingWindows, TimeDifferenceWindows


def records(n: int, seed: int = 7) -> list[tuple[str, int, int]]:
    rng = random.Random(seed)
    ts, out = 0, []
    for _ in range(n):
        ts += rng.randint(0, 1000)
        out.append(("k", ts, rng.randint(1, 9)))
    return out


def cost_per_record(assigner: object, recs: list[tuple[str, int, int]], batch: int = 50) -> float:
    bolt = (WindowedAggregateBolt(aggregators.sum("v"), key_fields=("key",)).with_windows(assigner)
            .with_timestamp_field("ts").with_lag(Duration.days(1)))
    h = BoltHarness(bolt, fields=("key", "ts", "v"))
    start = time.perf_counter()
    for i in range(0, len(recs), batch):
        h.feed_batch(recs[i : i + batch])
    h.close()
    return (time.perf_counter() - start) / len(recs)


def main() -> None:
    print(f"{'time difference':>16} {'TDW us/rec':>12} {'hopping 1ms us/rec':>20} {'ratio':>8}")
    for seconds, hopping_n in ((1, 400), (10, 60), (100, 8)):
        d = Duration.seconds(seconds)
        tdw = cost_per_record(TimeDifferenceWindows(d, Duration.days(1)), records(2000))
        hop = cost_per_record(SlidingWindows(d, Duration(1)), records(hopping_n))
        print(f"{seconds:>14} s {tdw * 1e6:>12.1f} {hop * 1e6:>20.1f} {hop / tdw:>7.0f}x")


if __name__ == "__main__":
    main()
