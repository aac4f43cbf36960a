"""``with_spark_semantics()`` rule by rule, in the harness: Spark's watermark, late rows, firing, sessions, policy.

Each test is a stream where Spark's rules and squall's default ones give
different windows, with both answers written out; the Spark answers were
checked against Spark itself (``test_differential.py`` runs random streams
through both engines).
"""

from __future__ import annotations

import pytest

from bolts import WindowedAggregateBolt
from topologies.testing import BoltHarness
from windowing import Duration, aggregators
from windowing.accumulation import AccumulationMode
from windowing.assigners import FixedWindows, Sessions, SlidingWindows
from windowing.triggers import AfterCount, Repeatedly

FIELDS = ("key", "ts", "v")


def bolt(assigner, lag_ms: int, aggregator=None, spark: bool = True, policy: str = "min"):
    b = (WindowedAggregateBolt(aggregator or aggregators.sum("v"), key_fields=("key",)).with_windows(assigner)
         .with_timestamp_field("ts").with_lag(Duration.milliseconds(lag_ms)))
    return b.with_spark_semantics(policy) if spark else b


def run(b, batches, streams=("default",)):
    """Feed each batch (a list of (stream, row)) as one micro-batch, then close; the panes as {window: value}."""
    harness = BoltHarness(b, {s: FIELDS for s in streams}, streams, watermark_per_batch=True)
    for batch in batches:
        for stream, row in batch[:-1]:
            harness.feed(row, stream)
        stream, row = batch[-1]
        harness.feed_batch([row], stream)
    harness.close()
    panes = {}
    for stream, values in harness.emitted:
        if stream == "default":
            window = (values[0], values[1], values[2])
            assert window not in panes, f"window {window} emitted twice"
            panes[window] = values[3]
    return panes, harness


def one(*rows):
    return [("default", r) for r in rows]


def test_a_row_of_a_later_batch_still_reaches_a_window_the_batch_before_moved_the_watermark_past():
    # Tumbling 3 s, delay 2 s. Batch 1's row moves Spark's watermark to 16.379 s, but only from batch 2 on; batch 2's
    # row at 12.602 s is judged late against batch 1's watermark (10.208 - 2 s) and so joins [12 s, 15 s).
    batches = [one(("k1", 12_208, 77)), one(("k2", 18_379, 5)), one(("k1", 12_602, 38))]
    spark_panes, _ = run(bolt(FixedWindows(Duration.seconds(3)), 2000), batches)
    assert spark_panes[("k1", 12_000, 15_000)] == 115
    default_panes, harness = run(bolt(FixedWindows(Duration.seconds(3)), 2000, spark=False), batches)
    assert default_panes[("k1", 12_000, 15_000)] == 77  # fired at the end of batch 1; batch 2's row is late
    assert [t["ts"] for t in harness.late] == [12_602]


def test_a_row_far_behind_in_the_second_batch_counts_in_every_sliding_window_it_falls_in():
    # Sliding 10 s every 1 s, delay 2 s: the first batch's watermark (98 s) applies to late rows from batch 2 on.
    batches = [one(("k", 100_000, 1)), one(("k", 87_300, 1))]
    b = bolt(SlidingWindows(Duration.seconds(10), Duration.seconds(1)), 2000, aggregators.count())
    spark_panes, _ = run(b, batches)
    behind = {w: n for w, n in spark_panes.items() if w[1] <= 87_300 < w[2]}
    assert len(behind) == 10 and set(behind.values()) == {1}
    b = bolt(SlidingWindows(Duration.seconds(10), Duration.seconds(1)), 2000, aggregators.count(), spark=False)
    default_panes, harness = run(b, batches)
    assert not any(w[1] <= 87_300 < w[2] for w in default_panes)
    assert len(harness.late) == 1


def test_a_window_fires_once_the_watermark_of_the_batches_before_passes_its_end():
    # Spark's watermark at the end of batch n is what batches before n saw: a window completed by batch 0's own
    # rows fires only at the end of batch 1.
    b = bolt(FixedWindows(Duration.seconds(1)), 0)
    harness = BoltHarness(b, FIELDS, watermark_per_batch=True)
    harness.feed_batch([("k", 500, 1), ("k", 5_000, 1)])
    assert harness.emitted == []
    harness.feed_batch([("k", 5_100, 1)])
    assert [v[1:3] for _, v in harness.emitted] == [[0, 1000]]


def test_sessions_that_only_touch_merge_as_spark_s_session_window_merges_them():
    batches = [one(("k", 1000, 1), ("k", 3000, 2)), one(("k", 20_000, 0))]  # gap 2 s: [1 s, 3 s) touches [3 s, 5 s)
    spark_panes, _ = run(bolt(Sessions(Duration.seconds(2)), 0), batches)
    assert spark_panes[("k", 1000, 5000)] == 3
    default_panes, _ = run(bolt(Sessions(Duration.seconds(2)), 0, spark=False), batches)
    assert default_panes[("k", 1000, 3000)] == 1 and default_panes[("k", 3000, 5000)] == 2


@pytest.mark.parametrize(("policy", "fired"), [("min", False), ("max", True)])
def test_the_multiple_watermark_policy_combines_the_inputs_as_spark_s_does(policy, fired):
    # Input a is at 10 s, input b at 2 s; the window [0 s, 5 s) closes only under max.
    b = bolt(FixedWindows(Duration.seconds(5)), 0, policy=policy)
    batches = [[("a", ("k", 10_000, 1)), ("b", ("k", 2_000, 1))], [("a", ("k", 10_001, 1))], [("a", ("k", 10_002, 1))]]
    panes, _ = run(b, batches, streams=("a", "b"))
    assert (("k", 0, 5000) in panes) is fired


def test_an_input_that_has_seen_nothing_holds_the_min_policy_at_zero():
    b = bolt(FixedWindows(Duration.seconds(5)), 0, policy="min")
    panes, _ = run(b, [[("a", ("k", 10_000, 1))], [("a", ("k", 10_001, 1))]], streams=("a", "b"))
    assert panes == {}


def test_close_runs_the_no_data_batch_spark_runs_when_the_input_is_drained():
    b = bolt(FixedWindows(Duration.seconds(1)), 0)
    panes, _ = run(b, [one(("k", 500, 1)), one(("k", 1500, 1))])
    # After batch 1 the watermark is 0.5 s (batch 0's row): nothing has fired. The drained input's batch takes in
    # batch 1's row too: at 1.5 s it closes [0 s, 1 s), and [1 s, 2 s) waits for the next run.
    assert panes == {("k", 0, 1000): 1}


def test_update_mode_is_a_trigger_recipe_each_batch_emits_the_windows_it_changed_accumulated():
    b = (bolt(FixedWindows(Duration.seconds(10)), 0).with_trigger(Repeatedly(AfterCount(1)))
         .with_accumulation_mode(AccumulationMode.ACCUMULATING).with_on_time_behavior("fire_if_non_empty"))
    harness = BoltHarness(b, FIELDS, watermark_per_batch=True)
    harness.feed_batch([("k", 1000, 1), ("k", 2000, 2)])
    harness.feed_batch([("j", 3000, 5)])
    harness.feed_batch([("k", 4000, 4), ("i", 30_000, 1)])
    harness.feed_batch([("i", 30_001, 1)])  # the watermark passes 10 s: the windows go, without a pane of their own
    assert [(v[0], v[3]) for _, v in harness.emitted] == [("k", 3), ("j", 5), ("k", 7), ("i", 1), ("i", 2)]


def test_a_restored_task_goes_on_as_the_one_that_was_not_stopped():
    batches = [one(("k1", 12_208, 77)), one(("k2", 18_379, 5)), one(("k1", 12_602, 38)), one(("k1", 30_000, 1))]
    expected, _ = run(bolt(FixedWindows(Duration.seconds(3)), 2000), batches)
    harness = BoltHarness(bolt(FixedWindows(Duration.seconds(3)), 2000), FIELDS, watermark_per_batch=True,
                          state="memory://")
    for number, batch in enumerate(batches):
        harness.feed_batch([row for _, row in batch])
        harness.commit()
        if number == 1:
            harness.restart()
    harness.close()
    assert {(v[0], v[1], v[2]): v[3] for _, v in harness.emitted} == expected


def test_spark_semantics_needs_an_event_time_column():
    b = WindowedAggregateBolt(aggregators.count()).with_windows(FixedWindows(Duration.seconds(1)))
    expected = r"with_spark_semantics: bolt 'counter' follows Spark's watermark, which needs an event-time column"
    with pytest.raises(ValueError, match=expected):
        b.with_spark_semantics().build_spec("counter")


def test_a_watermark_interval_contradicts_spark_semantics():
    b = bolt(FixedWindows(Duration.seconds(1)), 0).with_watermark_interval(Duration.seconds(5))
    with pytest.raises(ValueError, match=r"with_watermark_interval: Duration\(5000\) contradicts"):
        b.build_spec("counter")


@pytest.mark.parametrize(("policy", "error"), [("median", ValueError), (1, TypeError)])
def test_an_unknown_policy_is_refused_naming_the_method_and_the_value(policy, error):
    with pytest.raises(error, match=rf"with_spark_semantics: `multiple_watermark_policy` .*{policy!r}"):
        WindowedAggregateBolt(aggregators.count()).with_spark_semantics(policy)


def test_close_counts_the_rows_of_a_batch_that_was_never_ended():
    harness = BoltHarness(bolt(FixedWindows(Duration.seconds(1)), 0), FIELDS)
    harness.feed(("k", 500, 1))
    harness.feed(("k", 1500, 1))
    harness.close()  # the open batch ends, then the no-data batch's watermark (1.5 s) closes [0 s, 1 s)
    assert [v[1:4] for _, v in harness.emitted] == [[0, 1000, 1]]
