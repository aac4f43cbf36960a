"""Where driver mode spends its time: the race's workload through ``BatchLoop.run`` under cProfile, no Spark.

Generates the race's events (``benchmarks/race.py``) as Arrow batches of 2 files, hands them to
``BatchLoop.run`` as Spark's micro-batches would be, and runs
the chosen squall variant batch by batch in this process, so the profile shows
squall's own cost without Spark's. Prints the wall time, events/s and the top
functions by cumulative time.

Run: ``python benchmarks/profile_driver.py [--events 400000] [--top 30] [--sort cumulative|tottime]
[--variant storm|columnar|aggregate|aggregate-per-tuple] [--plain [--repeat 3]]``; ``--plain`` times the
run without the profiler.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.race import (
    FIELDS,
    FILES,
    FILES_PER_BATCH,
    LAG,
    LENGTH,
    SLIDE,
    TASKS,
    ColumnarKeyedSum,
    aggregate_bolt,
    generate,
    step_clock,
    storm_bolt,
)
from bolts import Fields, WindowedAggregateBolt
from topologies import FileSpout, TopologyBuilder
from topologies.engine import BatchClock, BatchLayout, batch_loop
from windowing import Duration, SlidingWindows


class UserSum:
    """A user's aggregator with no columnar method: the aggregate bolt's per-tuple path."""

    def create(self):
        return 0

    def add(self, acc, tup):
        return acc + tup["value"]

    def merge(self, accs):
        return sum(accs)

    def extract(self, acc):
        return acc


def per_tuple_aggregate_bolt() -> WindowedAggregateBolt:
    return (WindowedAggregateBolt(UserSum(), key_fields=("key",))
            .with_windows(SlidingWindows(Duration(LENGTH), Duration(SLIDE))).with_timestamp_field("ts")
            .with_lag(Duration(LAG)))


VARIANTS = {"storm": storm_bolt, "columnar": lambda: storm_bolt(ColumnarKeyedSum), "aggregate": aggregate_bolt,
            "aggregate-per-tuple": per_tuple_aggregate_bolt}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--events", type=int, default=400_000)
    p.add_argument("--variant", choices=sorted(VARIANTS), default="storm")
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--sort", choices=("cumulative", "tottime"), default="cumulative")
    p.add_argument("--plain", action="store_true", help="no profiler: the wall time only, best of --repeat runs")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    import pyarrow as pa

    data = Path(tempfile.mkdtemp(prefix="profile-data-"))
    tables = generate(data, args.events)
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(str(data), "parquet", FIELDS, schema="key STRING, ts BIGINT, value BIGINT"))
    builder.set_bolt("sum", VARIANTS[args.variant](), TASKS).fields_grouping("events", Fields("key"))
    topology = builder.create_topology()
    layout = BatchLayout(topology)
    batches = []
    for b in range(0, FILES, FILES_PER_BATCH):
        table = pa.concat_tables(tables[b : b + FILES_PER_BATCH])
        columns = {layout.column(0, j): table.column(f) for j, f in enumerate(FIELDS)}
        batches.append(pa.table({"__squall_spout": pa.array([0] * table.num_rows, pa.int32()), **columns}))
    report(args, topology, batches, sum(t.num_rows for t in tables), "events")


def report(args: argparse.Namespace, topology, batches, count: int, unit: str) -> None:
    """Run ``batches`` as ``args`` say (``--plain --repeat``, or under cProfile) and print the time and profile."""
    if args.plain:
        runs = [run_all(topology, None, batches, None) for _ in range(args.repeat)]
        best = min(seconds for seconds, _ in runs)
        print(f"{args.variant}: {count:,} {unit} in {best:.2f} s, best of {args.repeat} "
              f"({count / best:,.0f} {unit}/s), {runs[0][1]:,} outputs")
        return
    profile = cProfile.Profile()
    elapsed, outputs = run_all(topology, None, batches, profile)
    print(f"{args.variant}: {count:,} {unit} in {elapsed:.2f} s under cProfile ({count / elapsed:,.0f} {unit}/s), "
          f"{outputs:,} outputs")
    pstats.Stats(profile).sort_stats(args.sort).print_stats(args.top)


def run_all(topology, layout, batches, profile: cProfile.Profile | None) -> tuple[float, int]:
    """Every batch through a new ``BatchLoop``, then its flush: the seconds and the number of outputs."""
    executor = batch_loop(topology, BatchClock(Path(tempfile.mkdtemp()), step_clock()))
    start = time.perf_counter()
    if profile is not None:
        profile.enable()
    for batch_id, batch in enumerate(batches):
        executor.run(batch_id, batch)
    executor.flush()
    if profile is not None:
        profile.disable()
    return time.perf_counter() - start, len(executor.log.all())

if __name__ == "__main__":
    main()
