"""Cost per tuple of session windows as one key's live sessions grow.

One key, 10 ms gap, an allowed lateness longer than the run, so every session
stays live. Each batch adds 1,000 tuples: most open new sessions, one in ten
lands inside an existing session, one in ten bridges two sessions and merges
them. Finding the sessions a tuple overlaps must not scan every session of its
key, so the cost per tuple should stay flat from 1,000 to 100,000 live sessions.
Run: ``PYTHONPATH=. python benchmarks/session_merge_cost.py``.
"""

from __future__ import annotations

import argparse
import random
import time

from bolts.aggregate.windowed_aggregate_bolt import WindowedAggregateBolt
from topologies.testing import BoltHarness
from windowing import Duration, aggregators
from windowing.assigners import Sessions

BATCH = 1_000
GAP = 10
SPACING = 100  # between new sessions: far more than the gap


def cost_per_tuple(sessions: int, batches: int) -> tuple[float, int]:
    """Seconds per tuple over ``batches`` batches after ``sessions`` sessions were opened, and live sessions."""
    bolt = (WindowedAggregateBolt(aggregators.sum("v"), key_fields=("key",))
            .with_windows(Sessions(Duration(GAP))).with_timestamp_field("ts")
            .with_allowed_lateness(Duration(10**12)).with_lag(Duration(10**12)))
    h = BoltHarness(bolt, fields=("key", "ts", "v"))
    rng = random.Random(5)
    for i in range(0, sessions, BATCH):
        h.feed_batch([["k", j * SPACING, 1] for j in range(i, min(i + BATCH, sessions))])
    opened = sessions
    start = time.perf_counter()
    for _ in range(batches):
        rows = []
        for _ in range(BATCH):
            roll = rng.random()
            if roll < 0.1:  # inside an existing session
                rows.append(["k", rng.randrange(opened) * SPACING + GAP // 2, 1])
            elif roll < 0.2:  # bridges two sessions (if both still exist): a merge
                rows.append(["k", rng.randrange(opened) * SPACING + SPACING // 2, 1])
                rows.append(["k", rng.randrange(opened) * SPACING + SPACING // 2 + GAP - 1, 1])
            else:  # a new session after every other
                rows.append(["k", opened * SPACING, 1])
                opened += 1
        h.feed_batch(rows)
    elapsed = time.perf_counter() - start
    return elapsed / (batches * BATCH), len(h.task.table.windows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=10)
    args = parser.parse_args()
    rows = [(n, *cost_per_tuple(n, args.batches)) for n in (1_000, 10_000, 100_000)]
    base = rows[0][1]
    print(f"one key, {args.batches} batches of about {BATCH} tuples")
    print(f"{'sessions before':>16} {'live after':>11} {'us/tuple':>9} {'vs 1,000':>9}")
    for n, cost, live in rows:
        print(f"{n:>16,} {live:>11,} {cost * 1e6:>9.1f} {cost / base:>8.2f}x")


if __name__ == "__main__":
    main()
