"""squall's event-time windows against a port of Storm 2.x's windowing code, on random streams.

``with_storm_semantics()`` must equal the oracle exactly (``STORM``); the default
must equal the oracle with squall's three documented deviations applied
(``SQUALL``). Both compare every window (tuples, new, expired, start, end) and
every late tuple after every step. Streams are long enough to pass Storm's
queue compaction (every 100 tuples and watermarks) several times. In event time
that compaction changes no window (as Storm's own comment says): it runs under
the last evaluation's context, which left no tuple to expire at the queue's
front, and it cannot move a count window's counters once an evaluation reached
its count; the same runs pass with it switched off.

The number of random streams per mode is ``SQUALL_EXAMPLES`` (100 by default;
the long run is ``SQUALL_EXAMPLES=5000``).
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.bolts_for_tests import Noop
from tests.windowing.helpers import unit
from tests.windowing.storm_model import assert_same_windows
from tests.windowing.storm_oracle import SQUALL, STORM, StormOracle
from topologies.testing import BoltHarness
from windowing import Duration

EXAMPLES = int(os.environ.get("SQUALL_EXAMPLES", "100"))


config = st.fixed_dictionaries(
    {
        "length": st.tuples(st.sampled_from(["count", "time"]), st.integers(1, 30) | st.integers(30, 200)),
        "slide": st.tuples(st.sampled_from(["count", "time"]), st.integers(1, 20) | st.integers(20, 150)),
        "lag": st.sampled_from([0, 0, 1, 3, 8, 15]),
        "interval": st.integers(1, 12),
        "streams": st.sampled_from([("default",), ("s1", "s2")]),
    }
)



def _stream(seed):
    """Random operations: feeds, processing-time advances, upstream watermarks (timestamps absolute).

    Event time drifts forward with every feed and with processing time. Each
    stream draws its own mix: how often processing time moves (so how often the
    watermark does), how far tuples are out of order (within about the lag, or
    far beyond it), how far the second input stream runs behind the first, and
    how often an upstream watermark arrives.
    """
    rnd = random.Random(seed)
    length = rnd.choice([rnd.randint(0, 40), rnd.randint(100, 300), rnd.randint(250, 600)])
    p_advance = rnd.choice([0.005, 0.02, 0.05, 0.15, 0.3])
    drift = rnd.choice([0, 1, 3])
    jitter = rnd.choice([0, 3, 10, 25])
    p_far = rnd.choice([0.0, 0.05, 0.2])
    skew = rnd.choice([0, 0, 5, 30])
    p_watermark = rnd.choice([0.0, 0.0, 0.02])
    clock = 0
    ops = []
    for _ in range(length):
        r = rnd.random()
        if r < p_advance:
            step = rnd.randint(0, 15)
            clock += step
            ops.append(("advance", step, 0))
        elif r < p_advance + p_watermark:
            ops.append(("watermark", clock + rnd.randint(-5, 20), 0))
        else:
            clock += rnd.randint(0, drift)
            stream = rnd.randint(0, 1)
            ts = clock + rnd.randint(-jitter, jitter) - skew * stream
            if rnd.random() < p_far:
                ts += rnd.randint(-40, 60)
            ops.append(("feed", ts, stream))
    return ops


ops_strategy = st.builds(_stream, st.integers(0, 2**32 - 1))


def _build(cfg, storm):
    bolt = Noop().with_window(unit(*cfg["length"]), unit(*cfg["slide"]))
    bolt = bolt.with_timestamp_field("ts").with_lag(Duration(cfg["lag"]))
    bolt = bolt.with_watermark_interval(Duration(cfg["interval"]))
    if storm:
        bolt = bolt.with_storm_semantics()
    harness = BoltHarness(bolt, fields=("id", "ts"), streams=cfg["streams"])
    oracle = StormOracle(
        cfg["length"], cfg["slide"], lag=cfg["lag"], watermark_interval=cfg["interval"],
        streams=cfg["streams"], dev=STORM if storm else SQUALL,
    )
    return harness, oracle


def _run(cfg, ops, storm):
    harness, oracle = _build(cfg, storm)
    for i, (kind, a, b) in enumerate(ops):
        if kind == "feed":
            stream = cfg["streams"][b % len(cfg["streams"])]
            harness.feed({"id": i, "ts": a}, stream=stream)
            oracle.feed(i, a, stream)
        elif kind == "advance":
            harness.advance(a)
            oracle.advance_to(oracle.now + a)
        else:
            harness.advance_watermark(a)
            oracle.advance_watermark(a)
        assert_same_windows(harness, oracle)
    harness.close()
    oracle.close()
    assert_same_windows(harness, oracle)
    return oracle


@pytest.mark.parametrize("storm", [True, False], ids=["storm_semantics", "default"])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=config, ops=ops_strategy)
def test_squall_matches_the_storm_oracle(storm, cfg, ops):
    oracle = _run(cfg, ops, storm)
    event(f"compactions: {min(oracle.manager.compactions, 3)}{'+' if oracle.manager.compactions >= 3 else ''}")
    event(f"windows: {min(len(oracle.windows) // 10 * 10, 50)}+")
