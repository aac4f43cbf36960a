"""A window's record (WindowState.to_data) in either form reads back as the same window."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bolts.aggregate.window_state import NO_PANES, WindowState
from bolts.codecs.value_codec import pack_value, unpack_value
from windowing.assigners import Window
from windowing.panes import PaneHistory

ints = st.integers(-(2**40), 2**40)
holds = st.none() | st.tuples(ints, ints).map(sorted)


@st.composite
def windows(draw) -> WindowState:
    """A window whose fields other than key, bounds, accumulator, number, has_new and hold are sometimes not a new
    window's, one field at a time or several."""
    start = draw(ints)
    ws = WindowState((draw(st.text(max_size=3)), draw(ints)), Window(start, start + draw(st.integers(1, 10**6))),
                     draw(st.none() | ints | st.lists(ints, max_size=3)), draw(st.integers(0, 2**40)),
                     has_new=draw(st.booleans()), hold=draw(holds))
    if draw(st.booleans()):
        ws.trigger = draw(st.dictionaries(st.sampled_from(["count", "phase"]), ints, max_size=2))
        ws.timers = draw(st.lists(ints, max_size=2))
        ws.extra_hold = draw(st.none() | ints)
        ws.history = draw(st.just(NO_PANES) | st.builds(PaneHistory, st.integers(0, 5), st.integers(-1, 5),
                                                        st.sampled_from([None, "EARLY", "ON_TIME", "LATE"])))
        ws.last = draw(st.none() | st.lists(ints, min_size=3, max_size=3))
        ws.retractions = draw(st.lists(st.lists(ints, min_size=5, max_size=5), max_size=2))
        ws.closed = draw(st.booleans())
        ws.batch_tuples = draw(st.integers(0, 3))
    return ws


@given(windows())
def test_a_window_reads_back_from_its_record_as_it_was(ws):
    data = unpack_value(pack_value(ws.to_data()))  # as the store keeps it
    assert WindowState.from_data(data) == ws


@given(windows())
def test_the_short_form_is_written_exactly_when_the_other_fields_are_a_new_windows(ws):
    fresh = WindowState(ws.key, ws.window, ws.acc, ws.seq, has_new=ws.has_new, hold=ws.hold)
    assert (len(ws.to_data()) == 7) == (ws == fresh)
