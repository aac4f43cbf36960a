"""Latency: from an event's arrival to the output of its window, on the rate source, in driver mode.

Spark's rate source makes ``--rate`` events a second (default 20,000) for
``--seconds`` (default 120); a ``WindowedAggregateBolt`` counts them in tumbling
1 s event-time windows (lag 0: a window fires at the end of the first batch
whose events pass its end), with a 500 ms trigger. A downstream bolt records
the wall time each window's pane reaches it. An event's latency is that time
minus the event's own timestamp (the rate source stamps each row when it makes
it); a window's events are spread evenly over its second. The rate source
hands rows over in whole seconds of its own (counted from its start) whatever
the trigger, so part of the latency is the source's, and p50 moves from run to
run with the phase of its seconds against the windows'. Windows ending in the
first ``--warmup`` seconds (Spark's start) are left out. Prints p50, p99 and
the maximum over all events, and checks every measured window counted the
rate's events.

Run: ``python benchmarks/latency.py [--rate 20000] [--seconds 120]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bolts import BaseBolt, Fields, WindowedAggregateBolt
from topologies import RateSpout, SparkRunner, TopologyBuilder
from windowing import Duration, FixedWindows, aggregators


class Arrival(BaseBolt):
    """Stamps each pane with the wall time it arrives here (a benchmark may read the clock; bolts should not)."""

    def execute(self, input):
        self.collector.emit([input["window_start"], input["window_end"], input["value"], time.time_ns() // 1_000_000])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("start", "end", "count", "arrived"))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rate", type=int, default=20_000)
    p.add_argument("--seconds", type=int, default=120)
    p.add_argument("--warmup", type=int, default=15)
    args = p.parse_args()
    import numpy as np
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master("local[2]").config("spark.sql.shuffle.partitions", "2")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    builder = TopologyBuilder()
    builder.set_spout("rate", RateSpout(args.rate))
    builder.set_bolt("count", WindowedAggregateBolt(aggregators.count()).with_windows(FixedWindows(Duration.seconds(1)))
                     .with_timestamp_field("ts").with_lag(Duration(0))).global_grouping("rate")
    builder.set_bolt("arrival", Arrival()).global_grouping("count")
    runner = SparkRunner(spark, checkpoint_location=tempfile.mkdtemp(prefix="latency-ck-"),
                         trigger_interval=Duration.milliseconds(500), heartbeat=False, outputs_in_memory=None)
    handle = runner.submit("latency", builder.create_topology())
    started = time.time()
    time.sleep(args.seconds)
    progress = [p for p in handle.query.recentProgress if p["numInputRows"]]
    handle.stop(flush=False)
    panes = [o.values for o in handle.outputs() if o.component == "arrival"]
    spark.stop()
    begin_ms = int(started * 1000) + args.warmup * 1000
    measured = [(s, e, c, t) for s, e, c, t in panes if s >= begin_ms]
    if not measured:
        raise SystemExit("no window was measured: run longer than --warmup")
    latencies = np.concatenate([t - (s + (np.arange(c) + 0.5) * (e - s) / c) for s, e, c, t in measured])
    short = [(s, c) for s, e, c, t in measured[:-1] if c != args.rate]  # the last may be cut by the stop
    p50, p99 = np.percentile(latencies, [50, 99])
    print(f"latency: {args.rate:,} events/s for {args.seconds} s, tumbling 1 s windows, 500 ms trigger, driver mode")
    print(f"{len(measured)} windows, {len(latencies):,} events measured; windows not counting {args.rate:,} events: "
          f"{len(short)} {short[:3]}")
    print(f"p50 {p50 / 1000:.2f} s   p99 {p99 / 1000:.2f} s   max {latencies.max() / 1000:.2f} s")
    rows = sorted({p["numInputRows"] for p in progress})
    batch_ms = np.median([p["durationMs"]["triggerExecution"] for p in progress])
    # Spark's rate source hands rows over in whole seconds of its own, counted from its start: an event waits in
    # the source until its second is over, and a window fires only once rows past its end arrive. How the source's
    # seconds fall against the windows' (epoch) seconds changes from run to run, and so does p50, by up to 0.5 s.
    print(f"the rate source delivers {rows} rows per non-empty batch (whole seconds of its own, so p50 varies "
          f"from run to run with their phase); median batch time (Spark and squall) {batch_ms:.0f} ms")

if __name__ == "__main__":
    main()
