"""The runtime's own cost per tuple as windows grow: length/slide ratio 10, 100, 1000, 10000.

The bolt's execute does nothing and nothing records the windows, so what is
measured is squall's window bookkeeping: adding a tuple, expiring it, and
activating windows (a TupleWindow is a view; nothing builds a list of the
window's tuples unless the bolt asks). Each run first fills the window, then
times a steady stretch of tuples. Run: ``python benchmarks/window_cost.py``.
"""

from __future__ import annotations

import argparse
import gc
import time

from bolts import BaseWindowedBolt, Fields, TaskOptions, Tuple, WindowedBoltTask
from windowing import Count, Duration

SLIDE = 10  # tuples per slide for count windows, milliseconds per slide for time windows (1 tuple per ms)
FIELDS = Fields("ts", "value")


class Nothing(BaseWindowedBolt):
    def execute(self, window):
        pass


def configure(kind: str, ratio: int) -> BaseWindowedBolt:
    unit = Count if kind.startswith("count") else Duration
    bolt = Nothing().with_window(unit(SLIDE * ratio), unit(SLIDE))
    if kind.endswith("event time"):
        bolt = bolt.with_timestamp_field("ts").with_watermark_interval(Duration(SLIDE))
    return bolt


def run(kind: str, ratio: int, timed: int) -> float:
    executor = WindowedBoltTask(configure(kind, ratio), TaskOptions("bench", (("spout", "default"),)))
    executor.prepare({}, lambda stream, values: None)
    warm = SLIDE * ratio * 2
    tuples = [Tuple((i, i), FIELDS, "default", "spout") for i in range(warm + timed)]
    execute, advance = executor.execute, executor.advance_to
    for i in range(warm):  # one tuple per millisecond of processing time and of event time
        execute(tuples[i])
        advance(i + 1)
    gc.collect()
    gc.disable()
    start = time.perf_counter()
    for i in range(warm, warm + timed):
        execute(tuples[i])
        advance(i + 1)
    elapsed = time.perf_counter() - start
    gc.enable()
    assert executor.manager.activations > 0
    return elapsed / timed * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tuples", type=int, default=200_000, help="timed tuples per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell; the fastest counts")
    args = parser.parse_args()
    kinds = ["count, processing time", "time, processing time", "count, event time", "time, event time"]
    ratios = [10, 100, 1000, 10_000]
    print(f"microseconds per tuple (slide {SLIDE}; best of {args.repeat} runs of {args.tuples:,} tuples)")
    print(f"{'window':<24}" + "".join(f"{'ratio ' + str(r):>13}" for r in ratios) + f"{'max/min':>10}")
    for kind in kinds:
        costs = [min(run(kind, r, args.tuples) for _ in range(args.repeat)) for r in ratios]
        print(f"{kind:<24}" + "".join(f"{c:>13.2f}" for c in costs) + f"{costs[-1] / costs[0]:>10.2f}")


if __name__ == "__main__":
    main()
