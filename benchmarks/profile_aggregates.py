"""Where the aggregate bolt spends its time on Nexmark-shaped bids, in this process under cProfile (no Spark).

Generates bids as nexmark's generator shapes them (10 events/ms of event time, 46
bids in 50 events, a hot auction half the time and a hot bidder three times in
four, prices ``round(10 ** (6u) * 100)``; a small port, not
``benchmarks/nexmark``'s), cuts them into batches of 100,000 events (Nexmark's
2 files of 50,000) and runs them through ``BatchLoop.run`` as
``benchmarks/profile_driver.py`` runs the race, so the profile shows squall's
own cost. Variants, each as the Nexmark query writes it:

- ``sessions`` (q11): ``count()`` per bidder over ``Sessions(10 s)``, Spark's rules;
- ``panes`` (q5's first bolt): ``count()`` per auction over ``SlidingWindows(10 s, 2 s)``,
  Spark's rules (about a quarter of a million panes per million events);
- ``top-bid`` (q7): the bids with the highest price per ``FixedWindows(10 s)``, with
  ``aggregators.top_k("price", 1, ties="all")``; ``top-bid-user`` with a user's
  per-tuple aggregator doing the same.

Run: ``python benchmarks/profile_aggregates.py --variant sessions [--events 1000000] [--top 25]
[--sort cumulative|tottime] [--plain [--repeat 3]]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.profile_driver import report
from bolts import Fields, WindowedAggregateBolt
from topologies import FileSpout, TopologyBuilder
from topologies.engine import BatchLayout
from windowing import Duration, FixedWindows, Sessions, SlidingWindows, aggregators

FIELDS = ("auction", "bidder", "price", "date_time")
SCHEMA = "auction BIGINT, bidder BIGINT, price BIGINT, date_time BIGINT"
EVENTS_PER_MS, BATCH_EVENTS, LAG_MS, TASKS = 10, 100_000, 4_000, 2


def bids(events: int, disorder_ms: int, seed: int = 42) -> Any:
    """The bids among ``events`` events, in arrival order, as one Arrow table."""
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    n = np.arange(events, dtype=np.int64)
    n = n[n % 50 >= 4]  # of every 50 events, 1 person and 3 auctions, then 46 bids
    persons, auctions = n // 50 + 1000, n * 3 // 50 + 1000
    hot_bidder = rng.random(len(n)) < 0.75
    bidder = np.where(hot_bidder, persons // 100 * 100 + 1, np.maximum(persons - rng.integers(0, 1000, len(n)), 1000))
    hot_auction = rng.random(len(n)) < 0.5
    auction = np.where(hot_auction, auctions // 100 * 100,
                       np.maximum(auctions - rng.integers(0, 100, len(n)) + rng.integers(0, 10, len(n)), 1000))
    price = np.round(10 ** (6 * rng.random(len(n))) * 100).astype(np.int64)
    ts = 1_700_000_000_000 + n // EVENTS_PER_MS
    if disorder_ms:
        ts = ts - rng.integers(0, disorder_ms + 1, len(n))
    return pa.table({"auction": auction, "bidder": bidder, "price": price, "date_time": ts})


class HighestBids:
    """q7 as a user writes it tuple by tuple: the largest price of a window's bids and every bid with it.

    The accumulator is ``[largest price, [bid values, ...]]``; the same answer as
    ``aggregators.top_k("price", 1, ties="all")`` without its columnar path.
    """

    def create(self) -> list[Any]:
        """No bid yet."""
        return [None, []]

    def add(self, acc: list[Any], tup: Any) -> list[Any]:
        """Keep the bid if its price is the largest so far (alone if larger)."""
        price = tup["price"]
        if acc[0] is None or price > acc[0]:
            return [price, [list(tup.values)]]
        if price == acc[0]:
            acc[1].append(list(tup.values))
        return acc

    def merge(self, accs: list[list[Any]]) -> list[Any]:
        """The largest price of all and every bid that has it."""
        top = max((acc[0] for acc in accs if acc[0] is not None), default=None)
        return [top, [bid for acc in accs if acc[0] == top for bid in acc[1]]]

    def extract(self, acc: list[Any]) -> list[list[Any]]:
        """The bids with the largest price."""
        return [list(bid) for bid in acc[1]]


def _bolt(aggregator: Any, key: str | None, assigner: Any) -> WindowedAggregateBolt:
    return (WindowedAggregateBolt(aggregator, key_fields=None if key is None else (key,)).with_windows(assigner)
            .with_timestamp_field("date_time").with_lag(Duration(LAG_MS)).with_spark_semantics())


VARIANTS = {
    "sessions": lambda: (_bolt(aggregators.count(), "bidder", Sessions(Duration.seconds(10))), "bidder"),
    "panes": lambda: (_bolt(aggregators.count(), "auction", SlidingWindows(Duration.seconds(10), Duration.seconds(2))),
                      "auction"),
    "top-bid": lambda: (_bolt(aggregators.top_k("price", 1, ties="all"), None, FixedWindows(Duration.seconds(10))),
                        None),
    "top-bid-user": lambda: (_bolt(HighestBids(), None, FixedWindows(Duration.seconds(10))), None),
}


def topology_and_batches(variant: str, events: int, disorder_ms: int) -> tuple[Any, list[Any], int]:
    """The variant's topology, its batches as the batch loop receives them, and the number of bids."""
    import pyarrow as pa

    bolt, key = VARIANTS[variant]()
    builder = TopologyBuilder()
    builder.set_spout("bids", FileSpout("unused/", "parquet", FIELDS, schema=SCHEMA))
    declarer = builder.set_bolt("query", bolt, TASKS if key else 1)
    if key:
        declarer.fields_grouping("bids", Fields(key))
    else:
        declarer.global_grouping("bids")
    topology = builder.create_topology()
    layout = BatchLayout(topology)
    table = bids(events, disorder_ms)
    per_batch = BATCH_EVENTS * 46 // 50
    batches = []
    for start in range(0, table.num_rows, per_batch):
        part = table.slice(start, per_batch)
        columns = {layout.column(0, j): part.column(f) for j, f in enumerate(FIELDS)}
        batches.append(pa.table({"__squall_spout": pa.array([0] * part.num_rows, pa.int32()), **columns}))
    return topology, batches, table.num_rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", choices=sorted(VARIANTS), default="sessions")
    p.add_argument("--events", type=int, default=1_000_000)
    p.add_argument("--disorder", type=int, default=0, help="event-time disorder in ms")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--sort", choices=("cumulative", "tottime"), default="cumulative")
    p.add_argument("--plain", action="store_true", help="no profiler: the wall time only, best of --repeat runs")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    topology, batches, count = topology_and_batches(args.variant, args.events, args.disorder)
    report(args, topology, batches, count, "bids")


if __name__ == "__main__":
    main()
