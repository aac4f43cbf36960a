"""squall's incremental window manager against a brute-force model of Storm's code, on random streams."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bolts_for_tests import Noop
from tests.windowing.helpers import unit
from tests.windowing.storm_model import StormModel, assert_same_windows, ids
from topologies.testing import BoltHarness
from windowing import Duration

config = st.fixed_dictionaries(
    {
        "length": st.tuples(st.sampled_from(["count", "time"]), st.integers(1, 40)),
        "slide": st.tuples(st.sampled_from(["count", "time"]), st.integers(1, 25)),
        "event_time": st.booleans(),
        "lag": st.integers(0, 15),
        "interval": st.integers(1, 12),
        "streams": st.sampled_from([("default",), ("s1", "s2")]),
    }
)

op = st.one_of(
    st.tuples(st.just("feed"), st.integers(-3, 30), st.integers(0, 1)),  # ts jitter, stream index
    st.tuples(st.just("advance"), st.integers(0, 20), st.just(0)),
)


def _build(cfg):
    bolt = Noop().with_window(unit(*cfg["length"]), unit(*cfg["slide"]))
    if cfg["event_time"]:
        bolt = bolt.with_timestamp_field("ts").with_lag(Duration(cfg["lag"]))
        bolt = bolt.with_watermark_interval(Duration(cfg["interval"]))
    harness = BoltHarness(bolt, fields=("id", "ts"), streams=cfg["streams"])
    model = StormModel(
        cfg["length"], cfg["slide"], cfg["event_time"], lag=cfg["lag"],
        watermark_interval=cfg["interval"], streams=cfg["streams"],
    )
    return harness, model


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=config, ops=st.lists(op, max_size=80))
def test_window_manager_matches_storm_model(cfg, ops):
    harness, model = _build(cfg)
    clock_ts = 0  # event time drifts forward with processing time, plus jitter
    for i, (kind, a, b) in enumerate(ops):
        if kind == "feed":
            stream = cfg["streams"][b % len(cfg["streams"])]
            ts = clock_ts + a
            harness.feed({"id": i, "ts": ts}, stream=stream)
            model.feed(i, ts, stream)
        else:
            harness.advance(a)
            model.advance_to(model.now + a)
            clock_ts += a
        assert_same_windows(harness, model)
    harness.close()
    model.close()
    assert_same_windows(harness, model)


@settings(max_examples=300, deadline=None)
@given(cfg=config, ops=st.lists(op, max_size=60))
def test_no_tuple_is_both_late_and_windowed_and_none_is_lost(cfg, ops):
    harness, _ = _build(cfg)
    expired_ids: list[int] = []
    harness.task.on_expiry = lambda events: expired_ids.extend(e.value["id"] for e in events)
    fed = []
    clock_ts = 0
    for i, (kind, a, b) in enumerate(ops):
        if kind == "feed":
            harness.feed({"id": i, "ts": clock_ts + a}, stream=cfg["streams"][b % len(cfg["streams"])])
            fed.append(i)
        else:
            harness.advance(a)
            clock_ts += a
    harness.close()
    late = set(ids(harness.late))
    windowed = {t for w in harness.windows for t in ids(w.tuples)}
    held = {e.value["id"] for e in harness.task.manager.held()}
    # expired since the last evaluation, reported to on_expiry at the next one
    expired_ids.extend(e.value["id"] for e in harness.task.manager.eviction.expired)
    assert not late & windowed
    assert not late & held
    for tid in fed:
        if tid in late:
            continue
        if _windows_cover_every_tuple(cfg):
            assert tid in windowed or tid in held, tid
        else:  # a window shorter than its slide may expire a tuple it never held
            assert tid in windowed or tid in held or tid in expired_ids, tid


def _windows_cover_every_tuple(cfg):
    (length_kind, length), (slide_kind, slide) = cfg["length"], cfg["slide"]
    return length_kind == slide_kind and length >= slide
