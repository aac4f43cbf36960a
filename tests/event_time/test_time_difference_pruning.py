"""KIP-450 windows keep per-record partial aggregates only while a window can still need them.

On random out-of-order streams with moving watermarks and a small grace, pruning must change no
pane (a run whose pruning is switched off emits the same), and after every step the partial
aggregates kept are exactly the distinct times of the records kept: a record is kept when it
arrives after ``watermark - time_difference - 1 - grace`` (a window of it is still open), and
until the watermark passes its right window's end plus the grace (a later record may still open
that window).
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bolts.aggregate.windows import WindowTable
from tests.event_time.helpers import harness, panes, replay, sum_bolt
from windowing import Duration
from windowing.assigners import TimeDifferenceWindows

DIFFERENCE, GRACE = 10, 5
step = st.one_of(
    st.tuples(st.just("batch"), st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 150), st.integers(1, 5)),
                                         min_size=1, max_size=5)),
    st.tuples(st.just("watermark"), st.integers(0, 160)),
)


def run(steps, *, prune=True, check=None):
    bolt = sum_bolt(TimeDifferenceWindows(Duration(DIFFERENCE), Duration(GRACE))).with_lag(Duration(10_000))
    h = harness(bolt)
    if not prune:
        h.task.table.prune = lambda watermark: None
    for one_step in steps:
        replay(h, [one_step])
        if check is not None:
            check(h.task)
    h.close()
    return panes(h)


def horizon_of(task, anchor: int) -> int | None:
    return None if task.watermark is None else task.watermark - DIFFERENCE - anchor - GRACE


@settings(max_examples=150, deadline=None)
@given(st.lists(step, min_size=1, max_size=14))
# a@24 is past every window of it at watermark 40, but a@25 still opens its right window [25, 35]
@example([("batch", [("a", 24, 1)]), ("watermark", 40), ("batch", [("a", 25, 1)])])
def test_pruning_changes_no_pane_and_keeps_only_what_a_window_can_need(steps):
    kept: dict[str, set[int]] = {}
    batches = [arg if kind == "batch" else [] for kind, arg in steps]
    before: list[int | None] = [None]  # the horizon the step's records arrived under

    def check(task):
        table: WindowTable = task.table
        for key, ts, _ in batches.pop(0):
            if before[0] is None or ts > before[0]:  # some window of it can still take it
                kept.setdefault(key, set()).add(ts)
        horizon = horizon_of(task, 2)
        if horizon is not None:
            for key in list(kept):
                kept[key] = {t for t in kept[key] if t > horizon}
                if not kept[key]:
                    del kept[key]
        before[0] = horizon_of(task, 1)
        assert {k[0]: sorted(v) for k, v in table.times.items()} == {k: sorted(v) for k, v in kept.items()}
        assert all(len(table.buckets[k]) == len(table.times[k]) for k in table.times)

    assert run(steps, check=check) == run(steps, prune=False)
