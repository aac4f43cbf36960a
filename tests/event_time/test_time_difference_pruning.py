"""KIP-450 windows keep per-record partial aggregates only while a window can still need them.

On random out-of-order streams with moving watermarks and a small grace, pruning must change no
pane (a run whose pruning is switched off emits the same), and after every step the partial
aggregates kept are exactly the distinct record times past the horizon
``watermark - time_difference - 1 - grace`` of the records kept.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bolts.aggregate_windows import WindowTable
from tests.event_time.helpers import harness, panes, sum_bolt
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
    for kind, arg in steps:
        if kind == "batch":
            h.feed_batch(arg)
        else:
            h.advance_watermark(arg)
        if check is not None:
            check(h.task)
    h.close()
    return panes(h)


def horizon_of(task) -> int | None:
    return None if task.watermark is None else task.watermark - DIFFERENCE - 1 - GRACE


@settings(max_examples=150, deadline=None)
@given(st.lists(step, min_size=1, max_size=14))
def test_pruning_changes_no_pane_and_keeps_only_what_a_window_can_need(steps):
    kept: dict[str, set[int]] = {}
    batches = [arg if kind == "batch" else [] for kind, arg in steps]
    before: list[int | None] = [None]  # the horizon the step's records arrived under

    def check(task):
        table: WindowTable = task.table
        for key, ts, _ in batches.pop(0):
            if before[0] is None or ts > before[0]:  # some window of it can still take it
                kept.setdefault(key, set()).add(ts)
        horizon = horizon_of(task)
        if horizon is not None:
            for key in list(kept):
                kept[key] = {t for t in kept[key] if t > horizon}
                if not kept[key]:
                    del kept[key]
        before[0] = horizon
        assert {k[0]: sorted(v) for k, v in table.times.items()} == {k: sorted(v) for k, v in kept.items()}
        assert all(len(table.buckets[k]) == len(table.times[k]) for k in table.times)

    assert run(steps, check=check) == run(steps, prune=False)
