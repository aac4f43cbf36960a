"""Bad configuration is refused when it is made, naming the method and the value; bad tuples raise TupleError."""

import pytest

from bolts.aggregate.windowed_aggregate_bolt import WindowedAggregateBolt
from bolts.errors import TupleError
from tests.event_time.helpers import harness, sum_bolt
from windowing import Duration, aggregators
from windowing.assigners import FixedWindows, GlobalWindows, SlidingWindows, TimeDifferenceWindows
from windowing.triggers import AfterCount, AfterEach, Repeatedly


@pytest.mark.parametrize(
    ("make", "error", "text"),
    [
        (lambda: FixedWindows(Duration(0)), ValueError, "FixedWindows: `size` must be positive"),
        (lambda: SlidingWindows(Duration(10), 1), TypeError, "`period` must be a Duration"),
        (lambda: TimeDifferenceWindows(Duration(10), Duration(-1)), ValueError, "`grace` must not be negative"),
        (lambda: AfterCount(0), ValueError, "AfterCount: `n` must be at least 1; got 0"),
        (lambda: Repeatedly(AfterCount), TypeError, "did you pass the class"),
        (lambda: AfterEach(), ValueError, "AfterEach: needs at least one trigger"),
        (lambda: WindowedAggregateBolt(object()), TypeError, "lacks create, add, merge, extract"),
        (lambda: sum_bolt(GlobalWindows()).with_timestamp_combiner("first"), ValueError, "'end_of_window'"),
        (
            lambda: sum_bolt(GlobalWindows()).with_accumulation_mode("discarding"),
            TypeError,
            "AccumulationMode.DISCARDING",
        ),
        (lambda: sum_bolt(GlobalWindows()).with_allowed_lateness(Duration(-1)), ValueError, "with_allowed_lateness"),
        (
            lambda: sum_bolt(GlobalWindows()).with_closing_behavior("FIRE_ALWAYS"),
            ValueError,
            "with_closing_behavior: `behavior` must be one of 'fire_if_non_empty', 'fire_always'; got 'FIRE_ALWAYS'",
        ),
        (
            lambda: sum_bolt(GlobalWindows()).with_on_time_behavior("never"),
            ValueError,
            "with_on_time_behavior: `behavior` must be one of 'fire_always', 'fire_if_non_empty'; got 'never'",
        ),
        (
            lambda: sum_bolt(GlobalWindows()).with_on_time_behavior(True),
            TypeError,
            "with_on_time_behavior: .* got True",
        ),
    ],
)
def test_refused_at_construction(make, error, text):
    with pytest.raises(error, match=text.replace("(", r"\(").replace(")", r"\)")):
        make()


def test_closing_and_on_time_behaviors_default_as_in_beam_java():
    """``WindowingStrategy.of``: ``ClosingBehavior.FIRE_IF_NON_EMPTY`` and ``OnTimeBehavior.FIRE_ALWAYS``."""
    spec = sum_bolt(GlobalWindows()).build_spec()
    assert (spec.closing_behavior, spec.on_time_behavior) == ("fire_if_non_empty", "fire_always")


def test_lateness_contradicting_grace_is_refused_at_build():
    bolt = sum_bolt(TimeDifferenceWindows(Duration(10), Duration(5))).with_allowed_lateness(Duration(7))
    with pytest.raises(ValueError, match="contradicts the grace"):
        harness(bolt)


def test_bad_tuples_raise_tuple_error():
    h = harness(sum_bolt(FixedWindows(Duration(10))))
    with pytest.raises(TupleError, match=r"timestamp in 'ts' must be an int of epoch milliseconds or a datetime"):
        h.feed_batch([("k", "soon", 1)])
    with pytest.raises(TupleError, match="cannot take"):
        h.feed_batch([("k", 1, "x")])
    inherit = harness(WindowedAggregateBolt(aggregators.count()).with_timestamp_field("ts"))
    with pytest.raises(TupleError, match="with_windows"):
        inherit.feed_batch([("k", 1, 1)])
