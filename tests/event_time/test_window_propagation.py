"""A downstream aggregation with no assigner keeps the windows of the panes it receives, retractions included."""

from bolts.aggregate.windowed_aggregate_bolt import WindowedAggregateBolt
from tests.event_time.helpers import OUT, harness, panes, sum_bolt
from topologies.testing import BoltHarness
from windowing import Duration, aggregators
from windowing.accumulation import AccumulationMode
from windowing.assigners import Sessions
from windowing.triggers import AfterCount, Repeatedly


def test_downstream_sum_over_inherited_windows_subtracts_retractions():
    up = sum_bolt(Sessions(Duration(10)), mode=AccumulationMode.ACCUMULATING_AND_RETRACTING)
    h = harness(up.with_trigger(Repeatedly(AfterCount(1))).with_allowed_lateness(Duration(100)))
    h.feed_batch([("a", 0, 1), ("b", 15, 2)])
    h.feed_batch([("a", 7, 4)])  # a's session [0,10) becomes [0,17): retraction, then 5
    down = (WindowedAggregateBolt(aggregators.sum("value")).with_timestamp_field("timestamp")
            .with_accumulation_mode(AccumulationMode.ACCUMULATING).with_allowed_lateness(Duration(100)))
    d = BoltHarness(down, fields=OUT)
    d.feed_batch([v for _, v in h.emitted])
    d.close()
    got = {(p["window_start"], p["window_end"]): p["value"] for p in panes(d)}
    assert got == {(0, 10): 0, (15, 25): 2, (0, 17): 5}
