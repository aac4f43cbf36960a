"""storm-starter's SlidingTupleTsTopology, ported (tests/porting/sliding_tuple_ts_topology.py), run on Spark in
driver mode.

Expected values, from the tuples the spout's files hold (read back from the files): Storm's event-time windows of
5 s sliding by 3 s end at multiples of 3 s (aligned to the epoch), from the first multiple at or after the earliest
`ts`; each holds the tuples with end - 5 s < ts <= end, and SlidingWindowSumBolt's running sum (new values added,
expired ones subtracted) is their sum. A window fires once the watermark (the largest ts seen minus the 5 s lag)
reaches its end: Storm fires those (ends up to 13 s here, ts running to 18 s); squall's bounded run then fires, at
its shutdown flush, the later windows that hold tuples, which Storm never fires (docs/porting.md, "Bounded runs
flush"). Both are checked, in that order.
"""

from __future__ import annotations

import random

from tests.porting.sliding_tuple_ts_topology import SlidingTupleTsTopology
from tests.porting.spout import RandomIntegerSpout, read_rows
from tests.topologies.helpers import counting_clock

LENGTH, SLIDE, LAG = 5_000, 3_000, 5_000


def test_the_printer_prints_the_sum_of_each_event_time_window(spark, tmp_path):
    RandomIntegerSpout.emit(tmp_path / "integer", [60, 60, 60], random.Random(2))

    handle = SlidingTupleTsTopology.main(spark, tmp_path, counting_clock(), ["sliding-tuple-ts"])
    assert handle.await_termination(300)

    rows = [row for rows in read_rows(tmp_path / "integer") for row in rows]
    first, last = min(r["ts"] for r in rows), max(r["ts"] for r in rows)
    ends = range(-(-first // SLIDE) * SLIDE, last + LENGTH, SLIDE)  # every window that holds a tuple
    sums = {end: sum(r["value"] for r in rows if end - LENGTH < r["ts"] <= end) for end in ends}
    watermark = last - LAG
    storm = [sums[end] for end in ends if end <= watermark]
    flushed = [sums[end] for end in ends if end > watermark]
    assert (len(storm), len(flushed)) == (4, 3)

    outputs = handle.outputs()
    assert {(o.component, o.stream) for o in outputs} == {("printer", "default")}
    assert [o.values[0].values for o in outputs] == [(s,) for s in storm + flushed]
