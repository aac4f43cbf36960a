"""Panes carry their time in every placement: a bolt re-aggregating panes with no time of its own takes theirs.

Nexmark's q5 shape: bids counted per auction over sliding windows, then the
largest count per window by a second ``WindowedAggregateBolt`` that has neither
``with_windows`` nor a timestamp field. On disordered bids (never later than
the lag, so no bid is late) every window with a bid must come out once, with
the largest count, in squall's default rules and under ``with_spark_semantics()``,
in driver mode and in distributed mode's stages (run here in this process, as
tests/topologies/spark/test_stage_routing.py runs them).
"""

from __future__ import annotations

import itertools
import random
import uuid
from collections import Counter

import pyarrow as pa
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bolts import Fields, WindowedAggregateBolt
from tests.topologies.helpers import counting_clock
from topologies import TopologyBuilder
from topologies.engine import BatchClock, batch_loop
from topologies.engine.batch_layout import BatchLayout
from topologies.engine.placements import chunks
from topologies.engine.placements.local_frames import LocalFrames
from topologies.spouts import FileSpout
from windowing import Duration, SlidingWindows, aggregators

SIZE, PERIOD, LAG = 10_000, 2_000, 3_000


def two_stages(tmp_path, spark_rules: bool):
    """Counts per auction and sliding window (2 tasks), then the largest count of each window's panes."""
    b = TopologyBuilder()
    b.set_spout("bids", FileSpout(tmp_path, "json", ("auction", "ts"), schema="auction BIGINT, ts BIGINT"))
    counts = (WindowedAggregateBolt(aggregators.count(), key_fields=("auction",))
              .with_windows(SlidingWindows(Duration(SIZE), Duration(PERIOD)))
              .with_timestamp_field("ts").with_lag(Duration(LAG)))
    hottest = WindowedAggregateBolt(aggregators.max("value"))  # no with_windows, no timestamp: the panes'
    if spark_rules:
        counts, hottest = counts.with_spark_semantics(), hottest.with_spark_semantics()
    b.set_bolt("counts", counts, 2).fields_grouping("bids", Fields("auction"))
    b.set_bolt("hottest", hottest).global_grouping("counts")
    return b.create_topology()


def disordered_bids(seed: int, n: int = 60) -> list[list[int]]:
    """Bids in arrival order, each at most LAG behind the latest before it, so none is late."""
    rng = random.Random(seed)
    base = list(itertools.accumulate(rng.randint(0, 900) for _ in range(n)))
    return [[rng.randint(1, 4), t + 20_000 - rng.randint(0, LAG)] for t in base]


def expected(bids: list[list[int]], spark_rules: bool) -> dict[tuple[int, int], int]:
    """The largest per-auction count of every sliding window holding a bid.

    Under Spark's rules, only the windows the last watermark closes: the end of
    input is a batch with no data, as when Spark's input is drained.
    """
    counts: Counter[tuple[int, int, int]] = Counter()
    for auction, ts in bids:
        last = ts - ts % PERIOD
        for start in range(last, ts - SIZE, -PERIOD):
            counts[(start, start + SIZE, auction)] += 1
    best: dict[tuple[int, int], int] = {}
    closed = max(ts for _, ts in bids) - LAG if spark_rules else None
    for (start, end, _), count in counts.items():
        if closed is not None and end > closed:
            continue
        best[(start, end)] = max(best.get((start, end), 0), count)
    return best


def run(tmp_path, topology, bids: list[list[int]], cuts: list[int], mode: str) -> list:
    layout = BatchLayout(topology)
    where = tmp_path / f"{mode}-{uuid.uuid4().hex}"
    if mode == "driver":
        loop = batch_loop(topology, BatchClock(where, counting_clock()))
    else:
        loop = batch_loop(topology, BatchClock(where, counting_clock()), mode="distributed",
                          backend=chunks.worker_backend("memory://"), name=f"p-{uuid.uuid4().hex[:8]}",
                          state_url="memory://", frames=LocalFrames(fresh_tasks=True))
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(bids)}), len(bids)]
    for batch_id, (a, b) in enumerate(itertools.pairwise(bounds)):
        loop.run(batch_id, pa.concat_tables([layout.encode({"bids": bids[a:b]}, partition=0)]))
    loop.flush()
    return [o.values for o in loop.log.all() if o.component == "hottest"]


def windows(panes: list) -> dict[tuple[int, int], int]:
    got: dict[tuple[int, int], int] = {}
    for key, start, end, value, timestamp, _pane, retraction in panes:
        assert (start, end) not in got, f"window {(start, end)} fired twice"
        assert timestamp == end - 1 and not retraction and key is None
        got[(start, end)] = value
    return got


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), cuts=st.lists(st.integers(1, 59), max_size=5), spark_rules=st.booleans())
# One batch whose two counting tasks pass 40000 at different bids: a watermark estimated from the panes' timestamps
# closed window (30000, 40000) on the first task's panes, before the other task's larger count arrived.
@example(seed=269, cuts=[], spark_rules=False)
def test_a_bolt_re_aggregating_panes_takes_their_time_in_both_placements(tmp_path, seed, cuts, spark_rules):
    topology = two_stages(tmp_path, spark_rules)
    spec = topology.bolts["hottest"].bolt.spec
    assert spec.timestamp_field == "timestamp" and spec.watermark_from_upstream
    bids = disordered_bids(seed)
    want = expected(bids, spark_rules)
    for mode in ("driver", "distributed"):
        assert windows(run(tmp_path, topology, bids, cuts, mode)) == want, mode
