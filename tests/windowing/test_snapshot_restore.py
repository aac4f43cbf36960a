"""Snapshot a task in the middle of a stream, rebuild it from the snapshot, continue: same windows."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.windowing.test_window_manager_model import _build, config, op
from topologies.testing import BoltHarness
from windowing import Event


def _summary(windows):
    return [([t["id"] for t in w.tuples], [t["id"] for t in w.new], [t["id"] for t in w.expired],
             w.start_timestamp, w.end_timestamp) for w in windows]


def _apply(harness, ops, cfg, clock_ts, offset):
    for i, (kind, a, b) in enumerate(ops):
        if kind == "feed":
            harness.feed({"id": offset + i, "ts": clock_ts + a}, stream=cfg["streams"][b % len(cfg["streams"])])
        else:
            harness.advance(a)
            clock_ts += a
    return clock_ts


def _rebuild(harness: BoltHarness, cfg) -> BoltHarness:
    """A new harness whose task resumes from the old task's state (copies of the events)."""
    task = harness.task
    state = task.state()
    copy = lambda events: [Event(e.value, e.ts, e.seq) for e in events]  # noqa: E731
    fresh, _ = _build(cfg)
    fresh.task.restore(state, copy(task.manager.held()), copy(task.manager.pending_expired()))
    fresh._now = harness.now
    return fresh


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=config, before=st.lists(op, max_size=50), after=st.lists(op, max_size=50))
def test_a_task_rebuilt_from_its_state_continues_exactly(cfg, before, after):
    straight, _ = _build(cfg)
    clock_ts = _apply(straight, before, cfg, 0, 0)
    resumed = _rebuild(straight, cfg)
    windows_before = len(straight.windows)
    _apply(straight, after, cfg, clock_ts, 1000)
    _apply(resumed, after, cfg, clock_ts, 1000)
    straight.close()
    resumed.close()
    assert _summary(resumed.windows) == _summary(straight.windows[windows_before:])
    assert [t["id"] for t in resumed.late] == [t["id"] for t in straight.late if t["id"] >= 1000]
