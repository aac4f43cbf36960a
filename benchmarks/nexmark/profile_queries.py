"""Where squall's driver mode spends its time on a Nexmark query: the topology's batches under cProfile, no Spark job.

Reads the query's event files with pyarrow, cuts them into the micro-batches
Spark would make (``--files-per-batch`` files each), applies each spout's view
(its kind's rows, its fields) in Arrow, and runs them through the topology's
``BatchLoop`` in this process, then its shutdown flush, as
``benchmarks/profile_driver.py`` does for the race: the profile shows squall's
own cost, without Spark's (no SparkSession is started: each spout's view is
applied here, as :class:`~benchmarks.nexmark.query.NexmarkView` asks Spark's
scan to). Prints the wall time, the outputs and the top functions by
cumulative and by own time, each with its share of the run.

Run: ``python -m benchmarks.nexmark.profile_queries q7 [q11 ...] [--events N] [--disorder MS] [--top 20]``.
With ``--timed N`` it profiles nothing: it runs each query N times, the queries
interleaved, and prints each query's wall times (median, lowest and highest),
for before-and-after figures of squall's own cost.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from benchmarks.nexmark.generator import NexmarkConfig, write_events
from benchmarks.nexmark.queries import QUERIES
from benchmarks.nexmark.query import NexmarkView
from benchmarks.nexmark.run import NEXMARK_LAG_MS, count
from benchmarks.nexmark.views import KINDS, Workload
from topologies.engine import BatchClock, BatchLayout, batch_loop

WRAPPERS = 0.9  # a function with more of the run than this, by cumulative time, is one of the loop's frames


def view_table(events: pa.Table, spout: NexmarkView) -> pa.Table:
    """``spout``'s view of ``events`` in Arrow: its kind's rows, its fields (timestamps in µs, as Spark gives them).

    A view with a ``where`` is refused: its predicate is Spark SQL, which only Spark's scan evaluates.
    """
    if spout.where is not None:
        msg = f"profile_queries: the {spout.kind} view filters with Spark SQL ({spout.where!r}): only Spark can"
        raise ValueError(msg)
    rows = events.filter(pc.equal(events["event_type"], KINDS[spout.kind]))
    columns = {}
    for field in spout.view_fields:
        name, _, alias = field.partition(" AS ")
        column = rows["date_time"] if name == "date_time" else pc.struct_field(rows[spout.kind], name)
        if pa.types.is_timestamp(column.type):
            column = column.cast(pa.timestamp("us", tz="UTC"))
        columns[alias or name] = column
    return pa.table(columns)


def batches(topology, workload: Workload) -> list[pa.Table]:
    """The topology's input as Spark's micro-batches would bring it, encoded as the batch loop reads it."""
    layout = BatchLayout(topology)
    files = sorted(workload.data.glob("part-*.parquet"))
    out = []
    for first in range(0, len(files), workload.files_per_batch):
        events = pa.concat_tables(pq.read_table(f) for f in files[first : first + workload.files_per_batch])
        out.append(layout.encode({sid: view_table(events, s.spout) for sid, s in topology.spouts.items()}))
    return out


def run_query(name: str, workload: Workload, inputs: list[pa.Table], profiler: cProfile.Profile | None = None):
    """Run query ``name``'s batches and flush through a fresh batch loop; the loop and the wall time in seconds."""
    topology = QUERIES[name].topology(workload)
    step = iter(range(1_000, 10**12, 1_000))
    loop = batch_loop(topology, BatchClock(Path(tempfile.mkdtemp(prefix="nexmark-profile-")), lambda: next(step)))
    start = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    for batch_id, batch in enumerate(inputs):
        loop.run(batch_id, batch)
    loop.flush()
    if profiler is not None:
        profiler.disable()
    return loop, time.perf_counter() - start


def timed(names: list[str], workload: Workload, repeats: int) -> None:
    """Run each query ``repeats`` times, interleaved, and print its wall times."""
    inputs = {name: batches(QUERIES[name].topology(workload), workload) for name in names}
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(repeats):
        for name in names:
            seconds[name].append(run_query(name, workload, inputs[name])[1])
    for name, runs in seconds.items():
        print(f"{name}: median {statistics.median(runs):.2f} s (lowest {min(runs):.2f} s, highest {max(runs):.2f} s) "
              f"over {repeats} runs: " + ", ".join(f"{r:.2f}" for r in runs))


def profile(name: str, workload: Workload, top: int) -> None:
    """Profile query ``name`` and print its figures."""
    inputs = batches(QUERIES[name].topology(workload), workload)
    profiler = cProfile.Profile()
    loop, seconds = run_query(name, workload, inputs, profiler)
    rows = sum(b.num_rows for b in inputs)
    print(f"\n{name}: {rows:,} spout rows in {len(inputs)} batches, {seconds:.2f} s under cProfile, "
          f"{len(loop.log.all()):,} outputs")
    for order, index in (("cumulative", 3), ("own time", 2)):
        print(f"-- top {top} by {order} (share of the {seconds:.2f} s; by cumulative, the batch loop's frames "
              f"over {WRAPPERS:.0%} left out)")
        ranked = top_functions(profiler, index, top + 40)
        shown = [(w, f) for w, f in ranked if index == 2 or f[index] <= WRAPPERS * seconds][:top]
        for where, figures in shown:
            print(f"{100 * figures[index] / seconds:5.1f}%  {figures[index]:7.2f} s  {figures[1]:>9,} calls  {where}")


def top_functions(profiler: cProfile.Profile, index: int, top: int) -> list[tuple[str, tuple]]:
    """The ``top`` functions by pstats' figure ``index`` (2: own time, 3: cumulative), named ``file:line(function)``."""
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    ranked = sorted(stats.items(), key=lambda item: item[1][index], reverse=True)[:top]
    return [(f"{Path(file).name}:{line}({function})", figures) for (file, line, function), figures in ranked]


def main() -> None:
    """Profile the queries named on the command line."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("queries", nargs="+", choices=list(QUERIES))
    p.add_argument("--events", type=count("--events", 1), default=200_000)
    p.add_argument("--disorder", type=count("--disorder", 0), default=0)
    p.add_argument("--top", type=count("--top", 1), default=20)
    p.add_argument("--timed", type=count("--timed", 1), default=None, metavar="N",
                   help="time N interleaved runs of each query instead of profiling")
    p.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "squall-nexmark")
    args = p.parse_args()
    data = write_events(NexmarkConfig(events=args.events, disorder_ms=args.disorder), args.data_dir)
    workload = Workload(data, lag_ms=max(NEXMARK_LAG_MS, args.disorder))
    if args.timed:
        timed(args.queries, workload, args.timed)
        return
    for name in args.queries:
        profile(name, workload, args.top)


if __name__ == "__main__":
    main()
