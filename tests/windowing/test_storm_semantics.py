"""``with_storm_semantics()``: each of squall's three deviations switched off, the refused pair, restarts."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from tests.bolts_for_tests import StatefulWindowIds
from tests.windowing.helpers import Recorder, summary
from tests.windowing.test_storm_oracle import _build, _stream, config, ops_strategy
from topologies import TopologyBuilder
from topologies.spouts import FileSpout
from topologies.testing import BoltHarness
from windowing import Count, Duration, Event


def _harness(bolt, storm):
    bolt = bolt.with_timestamp_field("ts").with_watermark_interval(Duration(1))
    return BoltHarness(bolt.with_storm_semantics() if storm else bolt, fields=("name", "ts"))


def _feed(h, *rows):
    for name, ts in rows:
        h.feed({"name": name, "ts": ts})


def test_storm_stops_its_scan_at_a_tuple_beyond_the_window_end_plus_the_lag():
    """
    with_tumbling_window(Duration(10)), lag 2; a@5 b@20 c@9 arrive, then the watermark 18.

      arrival  a@5   b@20   c@9
      (0, 10]  a     STOP   (not reached)      Storm: [a]      squall: [a, c]
      (10, 20] at the end of input: [b], expired a c (c was never in a window in Storm)
    """
    for storm, first in ((True, ["a"]), (False, ["a", "c"])):
        h = _harness(Recorder().with_tumbling_window(Duration(10)).with_lag(Duration(2)), storm)
        _feed(h, ("a", 5), ("b", 20), ("c", 9))
        h.advance(1)
        assert summary(h) == [(first, first, [], 0, 10)]
        h.close()
        assert summary(h)[1] == (["b"], ["b"], ["a", "c"], 10, 20)


def test_storm_fires_a_window_when_the_watermark_reaches_its_end():
    """
    with_tumbling_window(Duration(10)), lag 0; a@3 b@10, watermark 10; then c@10 (on time) and d@25.

      Storm:  watermark 10 fires (0, 10] = [a, b]; c@10 arrives after it and expires unseen
      squall: (0, 10] waits for the watermark to pass 10: [a, b, c] at watermark 25
    """
    storm = _harness(Recorder().with_tumbling_window(Duration(10)), True)
    _feed(storm, ("a", 3), ("b", 10))
    storm.advance(1)
    assert summary(storm) == [(["a", "b"], ["a", "b"], [], 0, 10)]
    _feed(storm, ("c", 10), ("d", 25))
    storm.advance(1)
    storm.close()
    assert [w[0] for w in summary(storm)] == [["a", "b"], ["d"]]

    squall = _harness(Recorder().with_tumbling_window(Duration(10)), False)
    _feed(squall, ("a", 3), ("b", 10))
    squall.advance(1)
    assert summary(squall) == []  # the watermark stopped exactly on the window's end: the window waits
    _feed(squall, ("c", 10), ("d", 25))
    squall.advance(1)
    assert summary(squall) == [(["a", "b", "c"], ["a", "b", "c"], [], 0, 10)]


def test_storm_counts_eligible_tuples_in_arrival_order():
    """
    with_window(Count(1), Count(1)), lag 5; a@10 b@2, watermark 5, c@10, end of input.

      window end 2:   [b] in both
      window end 10:  Storm counts a, b in arrival order: a expires unseen, [b] again
                      squall counts b, a in timestamp order: b expires, [a]
      window end 10:  [c] in both
    """
    for storm, middle in ((True, ["b"]), (False, ["a"])):
        h = _harness(Recorder().with_window(Count(1), Count(1)).with_lag(Duration(5)), storm)
        _feed(h, ("a", 10), ("b", 2))
        h.advance(1)
        _feed(h, ("c", 10))
        h.close()
        assert [w[0] for w in summary(h)] == [["b"], middle, ["c"]]
        assert summary(h)[1][2] == (["a"] if storm else ["b"])


def _paged(event_time):
    bolt = StatefulWindowIds("name").with_window(Duration(10)).with_persistence().with_max_events_in_memory(8)
    bolt = bolt.with_storm_semantics()
    return bolt.with_timestamp_field("ts") if event_time else bolt


def test_storm_semantics_with_a_memory_bound_is_refused_in_event_time_when_the_bolt_is_built():
    bolt = _paged(event_time=True)  # each with_* call alone is fine
    with pytest.raises(ValueError, match=r"with_storm_semantics: .*with_max_events_in_memory\(8\).*'total'"):
        BoltHarness(bolt, fields=("name", "ts"), component="total", state="memory://")
    builder = TopologyBuilder()
    builder.set_spout("spout", FileSpout("/unused", "json", ("name", "ts"), schema="name STRING, ts BIGINT"))
    builder.set_bolt("total", bolt).shuffle_grouping("spout")
    with pytest.raises(ValueError, match="with_storm_semantics"):
        builder.create_topology()


def test_processing_time_windows_are_storm_windows_either_way():
    """Processing-time windows have no deviation: the option changes nothing, and pairs with paging."""
    runs = []
    for storm in (False, True):
        bolt = Recorder().with_window(Duration(10), Count(2))
        h = BoltHarness(bolt.with_storm_semantics() if storm else bolt, fields=("name",))
        for i, step in enumerate([0, 3, 4, 0, 9, 1, 12, 2]):
            h.advance(step)
            h.feed({"name": str(i)})
        h.close()
        runs.append(summary(h))
    assert runs[0] == runs[1]
    BoltHarness(_paged(event_time=False), fields=("name",), state="memory://")  # accepted


def test_a_stateful_bolt_takes_storm_semantics_and_recovers_with_them():
    bolt = StatefulWindowIds("name").with_tumbling_window(Duration(10)).with_timestamp_field("ts").with_persistence()
    h = BoltHarness(bolt.with_storm_semantics().with_watermark_interval(Duration(1)),
                    fields=("name", "ts"), state="memory://")
    assert type(h.task.manager.eviction).__name__ == "StormWatermarkTimeEvictionPolicy"
    _feed(h, ("a", 3), ("b", 10))
    h.commit()
    h.restart()
    h.advance(1)
    assert h.emitted == [("default", [["a", "b"]])]  # fired when the watermark reached 10, as in Storm


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=config, before=ops_strategy, after=ops_strategy)
def test_a_storm_exact_task_rebuilt_from_its_state_continues_exactly(cfg, before, after):
    straight, _ = _build(cfg, storm=True)
    _apply(straight, before, cfg, 0)
    resumed, _ = _build(cfg, storm=True)
    task = straight.task
    copy = lambda events: [Event(e.value, e.ts, e.seq) for e in events]  # noqa: E731
    resumed.task.restore(task.state(), copy(task.manager.held()), copy(task.manager.pending_expired()))
    resumed._now = straight.now
    count = len(straight.windows)
    _apply(straight, after, cfg, 10_000)
    _apply(resumed, after, cfg, 10_000)
    straight.close()
    resumed.close()
    assert summary_ids(resumed.windows) == summary_ids(straight.windows[count:])
    assert [t["id"] for t in resumed.late] == [t["id"] for t in straight.late if t["id"] >= 10_000]


def _apply(harness, ops, cfg, offset):
    for i, (kind, a, b) in enumerate(ops):
        if kind == "feed":
            harness.feed({"id": offset + i, "ts": a}, stream=cfg["streams"][b % len(cfg["streams"])])
        elif kind == "advance":
            harness.advance(a)
        else:
            harness.advance_watermark(a)


def summary_ids(windows):
    return [([t["id"] for t in w.tuples], [t["id"] for t in w.new], [t["id"] for t in w.expired],
             w.start_timestamp, w.end_timestamp) for w in windows]


def test_the_stream_generator_is_deterministic():
    assert _stream(7) == _stream(7)


def test_storm_compacts_its_queue_every_100_tuples_and_watermarks_since_the_last_scan():
    h = _harness(Recorder().with_tumbling_window(Duration(1000)), True)
    manager = h.task.manager
    calls = []
    manager.eviction.compact = lambda: calls.append(len(manager.held()))
    _feed(h, *((str(i), 5) for i in range(99)))
    assert calls == []
    _feed(h, ("99", 5))
    assert calls == [100]
    h.advance(1)  # the watermark 5 evaluates the window ending at 0 (a scan, the count restarts), then counts one
    _feed(h, *((str(i), 6) for i in range(98)))
    assert calls == [100]
    _feed(h, ("x", 6))
    assert calls == [100, 199]
