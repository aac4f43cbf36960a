"""Cost per record of a keyed windowed aggregation as the number of live windows grows.

Keyed sums in 1-minute fixed windows with early panes 10 s of processing time
after a window's first record, retracting. First every key gets a window; then
each batch sends 1,000 records to 100 hot keys (event time moving 1 s per
batch) and is followed by 1 s of processing time: five watermark ticks and the
timers due. The batches do the same work whatever the number of keys; only the
idle live windows grow. Finding what is due at a watermark tick or a timer must
not scan every live window, so the cost per record should stay flat from 100
to 100,000 live windows. With ``--state`` each batch's commit is included.
``--windows time-difference`` uses KIP-450 windows (1 s apart, 10 min grace) instead, whose
per-record partial aggregates are pruned at every watermark tick: that must not
scan every idle key either.
Run: ``PYTHONPATH=. python benchmarks/aggregate_live_windows.py``.
"""

from __future__ import annotations

import argparse
import random
import time

from bolts.aggregate.windowed_aggregate_bolt import WindowedAggregateBolt
from topologies.testing import BoltHarness
from windowing import Duration, aggregators
from windowing.accumulation import AccumulationMode
from windowing.assigners import FixedWindows, TimeDifferenceWindows
from windowing.triggers import AfterProcessingTime, AfterWatermark

BATCH = 1_000
HOT_KEYS = 100


def cost_per_record(keys: int, batches: int, state: str | None, windows: str) -> tuple[float, int]:
    """Seconds per record over ``batches`` batches (after one warm-up pass over every key), and live windows."""
    trigger = AfterWatermark(early=AfterProcessingTime(Duration.seconds(10)))
    if windows == "fixed":
        assigner = FixedWindows(Duration.minutes(1))
    else:
        assigner = TimeDifferenceWindows(Duration.seconds(1), Duration.minutes(10))
    bolt = (WindowedAggregateBolt(aggregators.sum("v"), key_fields=("key",))
            .with_windows(assigner).with_trigger(trigger)
            .with_accumulation_mode(AccumulationMode.ACCUMULATING_AND_RETRACTING)
            .with_timestamp_field("ts").with_lag(Duration.seconds(5)).with_watermark_interval(Duration.milliseconds(200))
            .with_allowed_lateness(Duration.minutes(10)))
    h = BoltHarness(bolt, fields=("key", "ts", "v"), state=state)
    rng = random.Random(3)
    names = [f"k{i}" for i in range(keys)]
    hot = names[:HOT_KEYS]
    event_time = 0

    def one_batch(rows: list[list[object]]) -> None:
        nonlocal event_time
        h.feed_batch(rows)
        h.advance(1_000)
        if state is not None:
            h.commit()
        event_time += 1_000

    for i in range(0, keys, BATCH):  # every key gets a live window first
        one_batch([[k, event_time + rng.randint(0, 999), 1] for k in names[i : i + BATCH]])
    start = time.perf_counter()
    for _ in range(batches):
        one_batch([[rng.choice(hot), event_time + rng.randint(0, 999), rng.randint(1, 9)] for _ in range(BATCH)])
    elapsed = time.perf_counter() - start
    return elapsed / (batches * BATCH), len(h.task.table.windows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--state", default=None, help="a state backend URL (e.g. memory://); default: none")
    parser.add_argument("--windows", choices=("fixed", "time-difference"), default="fixed")
    args = parser.parse_args()
    rows = [(k, *cost_per_record(k, args.batches, args.state, args.windows)) for k in (100, 1_000, 10_000, 100_000)]
    base = rows[0][1]
    print(f"{args.windows} windows; state: {args.state or 'none (windows in memory)'}; "
          f"{args.batches} batches of {BATCH} records")
    print(f"{'keys':>9} {'live windows':>13} {'us/record':>10} {'vs 100 keys':>12}")
    for keys, cost, live in rows:
        print(f"{keys:>9,} {live:>13,} {cost * 1e6:>10.1f} {cost / base:>11.2f}x")


if __name__ == "__main__":
    main()
