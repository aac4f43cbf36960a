"""Driver memory per tuple held in a window, beyond the tuple's own Arrow data.

N tuples ``(key, ts, value)`` (100 keys, 1 ms apart) go through
``BatchLoop.run`` with ``memory://`` state, in batches of 100,000, into one
task of a sliding event-time window (``2 S`` every ``S``, ``S`` past the last
timestamp) that fires only at the end, so after the last batch every tuple is
held. Each batch is built just before it runs and dropped after, so the
process holds only what the window and its store keep. Prints, per held tuple,
the growth of the driver's resident memory (RSS), its Arrow data (the bytes
of its three columns), and the difference; then flushes, and checks that both
windows' sum and count equal numpy's.

Two bolts: ``columnar`` (sums ``window.to_arrow()``) and ``storm`` (sums
``t["value"] for t in window.get()``, as a Storm bolt does).

Run: ``python benchmarks/held_tuple_memory.py [--tuples 1000000 10000000] [--bolt columnar storm]``.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bolts import BaseWindowedBolt, Fields
from topologies import FileSpout, TopologyBuilder
from topologies.engine import BatchClock, BatchLayout, batch_loop
from windowing import Duration

FIELDS = ("key", "ts", "value")
PER_BATCH = 100_000
KEYS = 100


class ColumnarTotal(BaseWindowedBolt):
    """The window's sum and count from ``to_arrow()``."""

    def execute(self, window):
        table = window.to_arrow()
        self.collector.emit([pc.sum(table.column("value")).as_py(), table.num_rows])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("sum", "count"))


class StormTotal(ColumnarTotal):
    """The same from ``window.get()``, one tuple at a time."""

    def execute(self, window):
        total = n = 0
        for t in window.get():
            total += t["value"]
            n += 1
        self.collector.emit([total, n])


BOLTS = {"columnar": ColumnarTotal, "storm": StormTotal}


def rss() -> int:
    """The resident memory of this process, in bytes, after a collection and handing freed memory back."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def batch(start: int, n: int, layout: BatchLayout) -> tuple[pa.Table, int, int]:
    """Rows ``start`` to ``start + n`` as the batch loop receives them; also their values' sum and Arrow bytes."""
    i = np.arange(start, start + n, dtype=np.int64)
    values = (i * 7919) % 1000
    keys = pa.array(np.char.add("k", (i % KEYS).astype(str)))
    data = pa.table({"key": keys, "ts": i + 1, "value": values})  # from 1: no window ends at 0
    columns = {layout.column(0, j): data.column(f) for j, f in enumerate(FIELDS)}
    table = pa.table({"__squall_spout": pa.array(np.zeros(n, np.int32)), **columns})
    return table, int(values.sum()), data.nbytes


def measure(bolt_name: str, tuples: int) -> tuple[float, float]:
    """(RSS growth per held tuple, Arrow bytes per tuple); checks the windows' answers."""
    slide = tuples + 10_000  # the first window end is past every timestamp: nothing fires before the flush
    bolt = BOLTS[bolt_name]().with_window(Duration(2 * slide), Duration(slide)).with_timestamp_field("ts")
    builder = TopologyBuilder()
    builder.set_spout("events", FileSpout(tempfile.mkdtemp(), "parquet", FIELDS,
                                          schema="key STRING, ts BIGINT, value BIGINT"))
    builder.set_bolt("total", bolt.with_lag(Duration(1_000)), 1).global_grouping("events")
    topology = builder.create_topology()
    layout = BatchLayout(topology)
    warm = batch_loop(topology, BatchClock(Path(tempfile.mkdtemp()), _clock()))
    warm.run(0, batch(0, 1_000, layout)[0])  # imports and first-use costs before the baseline
    warm.flush()
    del warm
    executor = batch_loop(topology, BatchClock(Path(tempfile.mkdtemp()), _clock()))
    before = rss()
    total = arrow = 0
    for batch_id, start in enumerate(range(0, tuples, PER_BATCH)):
        table, part_sum, part_bytes = batch(start, min(PER_BATCH, tuples - start), layout)
        executor.run(batch_id, table)
        total, arrow = total + part_sum, arrow + part_bytes
        del table
    grown = rss() - before
    executor.flush()
    windows = [output.values for output in executor.log.all()]
    if not windows or any(w != [total, tuples] for w in windows):
        raise SystemExit(f"{bolt_name}: windows {windows} but numpy says [{total}, {tuples}]")
    return grown / tuples, arrow / tuples


def _clock():
    state = {"t": 0}

    def clock() -> int:
        state["t"] += 1_000
        return state["t"]

    return clock


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tuples", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--bolt", choices=sorted(BOLTS), nargs="+", default=["columnar", "storm"])
    parser.add_argument("--here", action="store_true", help="measure in this process (default: one process each)")
    args = parser.parse_args()
    for tuples in args.tuples:
        for name in args.bolt:
            if not args.here:  # a fresh process: no memory freed by an earlier run to reuse
                subprocess.run([sys.executable, __file__, "--here", "--tuples", str(tuples), "--bolt", name],
                               check=True)
                continue
            per_tuple, arrow = measure(name, tuples)
            print(f"{name:9} {tuples:>11,} held: RSS {per_tuple:6.1f} B/tuple, Arrow data {arrow:5.1f} B/tuple, "
                  f"beyond Arrow {per_tuple - arrow:6.1f} B/tuple (windows checked against numpy)", flush=True)


if __name__ == "__main__":
    main()
