"""The due windows of a task: the bucketed schedule against a scan of every window ever created."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bolts.aggregate.window_schedule import DueBuckets, WindowSchedule
from bolts.aggregate.window_state import WindowState
from windowing.assigners import Window

# One step: create a window [start, start + size) of key k, delete the i-th live window, or move the watermark.
create = st.tuples(st.just("create"), st.integers(0, 2), st.integers(-5, 40), st.sampled_from([3, 5, 10]))
step = st.one_of(
    create, create, create,  # windows are created more often than they go
    st.tuples(st.just("delete"), st.integers(0, 50)),
    st.tuples(st.just("watermark"), st.integers(0, 12)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(step, max_size=120), st.sampled_from([0, 4, 7]))
def test_windows_are_due_when_the_watermark_passes_their_end_or_their_lateness(steps, lateness):
    """Due: end in (old, new], or end + lateness <= new once; in order of end, then creation; never a gone window."""
    windows: dict = {}
    schedule = WindowSchedule(windows, lateness)
    collected: set[int] = set()  # windows reported at their collection (they are due there only once)
    seq, watermark = 0, -10
    for op, *args in steps:
        if op == "create":
            key, start, size = args
            wid = ((key,), start, start + size)
            if wid in windows:
                continue
            ws = windows[wid] = WindowState((key,), Window(start, start + size), None, seq)
            seq += 1
            schedule.add(ws, wid)
        elif op == "delete" and windows:
            del windows[list(windows)[args[0] % len(windows)]]
        elif op == "watermark":
            old, watermark = watermark, watermark + args[0]
            got = schedule.due_at_watermark(old, watermark)
            if lateness:  # due as the watermark passes its end, and once at its collection
                at_end = [ws for ws in windows.values() if old < ws.window.end <= watermark]
                # A window created after the watermark passed its end is due only at its collection.
            else:  # its end is its collection: due once, at the first move after the watermark reached its end
                at_end = [ws for ws in windows.values() if ws.window.end <= watermark and ws.seq not in collected]
            at_collection = [ws for ws in windows.values()
                             if lateness and ws.window.end + lateness <= watermark and ws.seq not in collected]
            collected |= {ws.seq for ws in at_collection + (at_end if not lateness else [])}
            expected = {ws.seq: ws for ws in at_end + at_collection}
            assert sorted(ws.seq for ws in got) == sorted(expected), (old, watermark)
            assert got == sorted(got, key=lambda ws: (ws.window.end, ws.seq))


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 10_000)), unique_by=lambda e: e[1], max_size=60),
       st.integers(-1, 21))
def test_buckets_give_every_entry_due_by_instant_then_creation(entries, through):
    buckets = DueBuckets()
    for instant, seq in entries:
        buckets.push(instant, seq, ("w", seq))
    taken = [(instant, seq) for instant, bucket in buckets.pop_through(through) for seq, _ in bucket]
    assert taken == sorted((i, s) for i, s in entries if i <= through)
    assert buckets.size == sum(1 for i, _ in entries if i > through)
