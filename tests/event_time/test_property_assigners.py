"""Each assigner against a brute-force model on random streams, in random order and random batches.

Accumulating mode, the default trigger, a lateness larger than the stream and a
lag that keeps the bolt's own watermark behind, so every window fires once at
``close`` with the sum of its records; the model computes the windows from scratch.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.event_time.helpers import harness, last_by_window, net_by_window, panes, sum_bolt
from windowing import Duration
from windowing.accumulation import AccumulationMode
from windowing.assigners import (
    END_OF_TIME,
    MIN_TIMESTAMP,
    FixedWindows,
    GlobalWindows,
    Sessions,
    SlidingWindows,
    TimeDifferenceWindows,
)
from windowing.triggers import AfterCount, Repeatedly

records = st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 120), st.integers(1, 9)), min_size=1, max_size=25)


def run(bolt, recs, cuts):
    h = harness(bolt.with_allowed_lateness(Duration(10_000)).with_lag(Duration(10_000)))
    bounds = sorted({c % (len(recs) + 1) for c in cuts} | {0, len(recs)})
    for lo, hi in itertools.pairwise(bounds):
        h.feed_batch(recs[lo:hi])
    h.close()
    return panes(h)


def hopping_model(recs, size, period):
    out = defaultdict(int)
    for key, ts, v in recs:
        for start in range(ts - size - period, ts + 1):
            if start % period == 0 and start <= ts < start + size:
                out[(key, start, start + size)] += v
    return dict(out)


def session_model(recs, gap):
    out = {}
    for key in {r[0] for r in recs}:
        mine = sorted((ts, v) for k, ts, v in recs if k == key)
        start, end, total = mine[0][0], mine[0][0] + gap, 0
        for ts, v in mine:
            if ts >= end:
                out[(key, start, end)] = total
                start, total = ts, 0
            end, total = max(end, ts + gap), total + v
        out[(key, start, end)] = total
    return out


def time_difference_model(recs, d):
    out = {}
    for key in {r[0] for r in recs}:
        mine = [(ts, v) for k, ts, v in recs if k == key]
        times = {ts for ts, _ in mine}
        starts = {t - d for t in times} | {t + 1 for t in times if any(t < u <= t + d for u in times)}
        for s in starts:
            out[(key, s, s + d + 1)] = sum(v for ts, v in mine if s <= ts <= s + d)
    return out


cuts = st.lists(st.integers(0, 30), max_size=5)


@settings(max_examples=60, deadline=None)
@given(records, cuts, st.integers(1, 30))
def test_fixed_windows(recs, cut, size):
    assert last_by_window(run(sum_bolt(FixedWindows(Duration(size))), recs, cut)) == hopping_model(recs, size, size)


@settings(max_examples=60, deadline=None)
@given(records, cuts, st.integers(1, 30), st.integers(1, 12))
def test_sliding_windows(recs, cut, size, period):
    got = last_by_window(run(sum_bolt(SlidingWindows(Duration(size), Duration(period))), recs, cut))
    assert got == hopping_model(recs, size, period)


@settings(max_examples=40, deadline=None)
@given(records, cuts)
def test_global_windows(recs, cut):
    got = last_by_window(run(sum_bolt(GlobalWindows()), recs, cut))
    totals = defaultdict(int)
    for key, _, v in recs:
        totals[(key, MIN_TIMESTAMP, END_OF_TIME)] += v
    assert got == dict(totals)


@settings(max_examples=60, deadline=None)
@given(records, cuts, st.integers(1, 30))
def test_sessions_in_any_order_and_with_retractions(recs, cut, gap):
    model = session_model(recs, gap)
    assert last_by_window(run(sum_bolt(Sessions(Duration(gap))), recs, cut)) == model
    # Firing after every batch with retractions: panes minus retractions leave exactly the model's sessions.
    ar = sum_bolt(Sessions(Duration(gap)), mode=AccumulationMode.ACCUMULATING_AND_RETRACTING)
    assert net_by_window(run(ar.with_trigger(Repeatedly(AfterCount(1))), recs, cut)) == model


@settings(max_examples=60, deadline=None)
@given(records, cuts, st.integers(1, 30))
def test_time_difference_windows(recs, cut, d):
    bolt = sum_bolt(TimeDifferenceWindows(Duration(d), Duration(10_000)))
    h_panes = run(bolt, recs, cut)
    model = time_difference_model(recs, d)
    assert last_by_window(h_panes) == model
    # one window per distinct set of records
    sets = defaultdict(set)
    for key, s, e in model:
        sets[key].add(frozenset(i for i, r in enumerate(recs) if r[0] == key and s <= r[1] < e))
    assert sum(len(v) for v in sets.values()) == len(model)


@settings(max_examples=200, deadline=None)
@given(size=st.integers(1, 30), data=st.data(), stamps=st.lists(st.integers(-200, 200), min_size=1, max_size=20))
def test_offset_windows_are_the_epoch_aligned_ones_moved_by_the_offset(size, data, stamps):
    import numpy as np

    from bolts.aggregate.columnar import _windows

    period = data.draw(st.integers(1, size))
    fixed_offset, sliding_offset = data.draw(st.integers(0, size - 1)), data.draw(st.integers(0, period - 1))
    for assigner, step, offset in ((FixedWindows(Duration(size), Duration(fixed_offset)), size, fixed_offset),
                                   (SlidingWindows(Duration(size), Duration(period), Duration(sliding_offset)),
                                    period, sliding_offset)):
        model = sorted((i, s, s + size) for i, t in enumerate(stamps) for s in range(-300, 300)
                       if (s - offset) % step == 0 and s <= t < s + size)
        assigned = sorted((i, w.start, w.end) for i, t in enumerate(stamps) for w in assigner.assign(t))
        rows, starts, ends = _windows(type("Spec", (), {"assigner": assigner})(), np.array(stamps, np.int64))
        columnar = sorted(zip(rows.tolist(), starts.tolist(), ends.tolist(), strict=True))
        assert assigned == model == columnar
