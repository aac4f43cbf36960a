"""Triggers and accumulation modes on random streams of batches, watermarks and processing time.

- A brute-force model of ``Repeatedly(AfterCount(n))`` and ``AfterWatermark(early=AfterCount(n))``
  (counted per batch, since triggers are consulted once per window per batch).
- For random trigger trees: DISCARDING panes of a window sum to the ACCUMULATING
  window's last pane; in ACCUMULATING_AND_RETRACTING the running sum of panes
  minus retractions equals the last pane; pane indexes count up from 0 and the
  last pane of every window says ``is_last``.
"""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.event_time.helpers import harness, last_by_window, net_by_window, panes, replay, sum_bolt
from windowing import Duration
from windowing.accumulation import AccumulationMode as M
from windowing.assigners import FixedWindows
from windowing.triggers import (
    AfterAll,
    AfterAny,
    AfterCount,
    AfterEach,
    AfterProcessingTime,
    AfterWatermark,
    DefaultTrigger,
    Never,
    OrFinally,
    Repeatedly,
)

SIZE = 20
leaf = st.one_of(
    st.builds(AfterCount, st.integers(1, 3)),
    st.builds(AfterProcessingTime, st.builds(Duration, st.integers(0, 30))),
    st.just(AfterWatermark()), st.just(Never()), st.just(DefaultTrigger()),
)
triggers = st.recursive(
    leaf,
    lambda kids: st.one_of(
        st.builds(Repeatedly, kids),
        st.builds(lambda ts: AfterEach(*ts), st.lists(kids, min_size=1, max_size=3)),
        st.builds(lambda ts: AfterAny(*ts), st.lists(kids, min_size=1, max_size=3)),
        st.builds(lambda ts: AfterAll(*ts), st.lists(kids, min_size=1, max_size=3)),
        st.builds(OrFinally, kids, kids),
        st.builds(lambda e, late: AfterWatermark(early=e, late=late), st.none() | kids, st.none() | kids),
    ),
    max_leaves=5,
)
step = st.one_of(
    st.tuples(st.just("batch"), st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 79), st.integers(1, 5)),
                                         min_size=1, max_size=4)),
    st.tuples(st.just("watermark"), st.integers(0, 100)),
    st.tuples(st.just("advance"), st.integers(1, 25)),
)
streams = st.lists(step, min_size=1, max_size=12)


def run(trigger, mode, stream, lateness=30):
    bolt = (sum_bolt(FixedWindows(Duration(SIZE)), mode=mode).with_trigger(trigger)
            .with_allowed_lateness(Duration(lateness)).with_lag(Duration(10_000)))
    h = harness(bolt)
    replay(h, stream)
    h.close()
    return panes(h)


@settings(max_examples=80, deadline=None)
@given(triggers, streams)
def test_accumulation_modes_agree(trigger, stream):
    acc = run(trigger, M.ACCUMULATING, stream)
    final = last_by_window(acc)
    discarding = defaultdict(int)
    for p in run(trigger, M.DISCARDING, stream):
        discarding[(p["key"], p["window_start"], p["window_end"])] += p["value"]
    assert {k: v for k, v in discarding.items() if v} == {k: v for k, v in final.items() if v}
    retracting = run(trigger, M.ACCUMULATING_AND_RETRACTING, stream)
    assert net_by_window(retracting) == {k: v for k, v in final.items() if v}
    by_window = defaultdict(list)
    for p in acc:
        by_window[(p["key"], p["window_start"], p["window_end"])].append(p["pane"])
    for ps in by_window.values():
        assert [p.index for p in ps] == list(range(len(ps)))
        assert not any(p.is_last for p in ps[:-1])
        assert all((p.timing == "EARLY") == (p.nonspeculative_index == -1) for p in ps)
        assert sum(p.timing == "ON_TIME" for p in ps) <= 1


def count_model(stream, n, early_only):
    """Brute force, DISCARDING sums: per window, fire at a batch end with >= n new tuples.

    Garbage collection flushes what is left, and emits the (possibly empty) ON_TIME pane of a
    window that emitted only EARLY panes while its key's output watermark is still before its end.
    Holds as Beam's ``WatermarkHold`` (``end_of_window`` combiner): a tuple holds the output
    watermark at ``end - 1`` when that is not behind the key's output watermark and the input
    watermark is before ``end``, else at ``end - 1 + lateness`` (the garbage-collection hold);
    every pane releases the window's holds. A key's output watermark is the input watermark held
    back by its windows' holds, recomputed after each watermark move.
    """
    pending, fired, closed, watermark = defaultdict(lambda: [0, 0]), defaultdict(list), set(), 0
    settled = set()  # windows that emitted a non-EARLY pane
    holds, outputs, base = {}, {}, 0  # window -> hold; key -> output watermark where held; else base
    lateness = 30

    def fire(w):
        fired[w].append(pending[w][0])
        pending[w] = [0, 0]
        holds.pop(w, None)
        if watermark >= w[1] + SIZE:
            settled.add(w)

    def hold(w):
        end = w[1] + SIZE
        if end - 1 >= outputs.get(w[0], base) and watermark < end:
            at = end - 1
        elif end - 1 + lateness >= watermark:
            at = end - 1 + lateness
        else:
            return
        holds[w] = min(holds.get(w, at), at)

    def move(to):
        nonlocal watermark, base
        for w in sorted(pending, key=lambda w: (w[1], w[0])):
            end = w[1] + SIZE
            if early_only and w not in closed and watermark < end <= to:
                fired[w].append(pending[w][0])  # the ON_TIME pane, emitted even when empty
                pending[w] = [0, 0]
                holds.pop(w, None)
                closed.add(w)
            if end + lateness <= to and w not in closed:
                on_time = w not in settled and outputs.get(w[0], base) < end
                if pending[w][1] or on_time:
                    fired[w].append(pending[w][0])
                    pending[w] = [0, 0]
                holds.pop(w, None)
                closed.add(w)  # collected: nothing more comes out of it
        watermark = max(watermark, to)
        outputs.clear()
        base = watermark
        for (key, _), at in holds.items():
            if at < min(watermark, outputs.get(key, watermark)):
                outputs[key] = at

    for kind, arg in stream:
        if kind == "batch":
            touched = []
            for key, ts, v in arg:
                w = (key, ts - ts % SIZE)
                if w[1] + SIZE + lateness <= watermark or w in closed:
                    continue
                pending[w][0] += v
                pending[w][1] += 1
                hold(w)
                touched.append(w)
            for w in dict.fromkeys(touched):
                if early_only and watermark >= w[1] + SIZE:  # first seen after the watermark passed its end
                    fire(w)
                    closed.add(w)
                elif pending[w][1] >= n:
                    fire(w)
        elif kind == "watermark":
            move(arg)
    move(2**63 - 1)
    return {(k, s, s + SIZE): v for (k, s), v in fired.items()}


def fired_by_window(ps):
    out = defaultdict(list)
    for p in ps:
        out[(p["key"], p["window_start"], p["window_end"])].append(p["value"])
    return dict(out)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 4), streams)
def test_repeated_count_against_model(n, stream):
    got = fired_by_window(run(Repeatedly(AfterCount(n)), M.DISCARDING, stream))
    assert got == count_model(stream, n, early_only=False)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 4), streams)
def test_watermark_with_early_counts_against_model(n, stream):
    got = fired_by_window(run(AfterWatermark(early=AfterCount(n)), M.DISCARDING, stream))
    assert got == count_model(stream, n, early_only=True)
