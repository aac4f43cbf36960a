"""A task's emissions routed at once where every subscriber takes a whole run to one task: as one by one.

Runs of tuples on a stream whose subscribers each send every tuple to one task
(a global grouping; a shuffle, all or none grouping into a bolt of one task)
go to the sink together. Each target must get the same tuples in the same
order, every output and dropped stream the same, and the shuffle counters must
move as :meth:`RoutingTable.row_targets` moves them one tuple at a time.
"""

from __future__ import annotations

from collections import ChainMap

from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import Fields
from topologies.engine.routing import RoutingTable, route_emissions
from topologies.groupings import AllGrouping, FieldsGrouping, GlobalGrouping, NoneGrouping, ShuffleGrouping

FIELDS = Fields("x")
ROUTING = RoutingTable(
    streams={"src": {s: FIELDS for s in ("fixed", "chosen", "out", "dropped", "kept")}},
    subscribers={
        ("src", "fixed"): (("global", GlobalGrouping(), 3), ("one", ShuffleGrouping(), 1),
                           ("all_of_one", AllGrouping(), 1), ("none_of_one", NoneGrouping(), 1)),
        ("src", "chosen"): (("global", GlobalGrouping(), 3), ("two", ShuffleGrouping(), 2),
                            ("by_x", FieldsGrouping(FIELDS), 2)),
        ("src", "kept"): (("one", ShuffleGrouping(), 1),),
    },
    position={"src": 1, "global": 2, "one": 3, "all_of_one": 4, "none_of_one": 5, "two": 6, "by_x": 7},
)


class Recorder:
    """What reached each target task, in order, and the outputs."""

    def __init__(self) -> None:
        self.inputs: dict[tuple[str, int], list] = {}
        self.outputs: list = []
        self.runs: list[int] = []  # the rows of each outputs_many call

    def rows(self, bolt, task, source, source_task, stream, values):
        self.inputs.setdefault((bolt, task), []).append((source, source_task, stream, list(values)))

    def rows_many(self, bolt, task, source, source_task, stream, rows):
        for values in rows:
            self.rows(bolt, task, source, source_task, stream, values)

    def output(self, source, source_task, stream, values, kept):
        self.outputs.append((stream, list(values), kept))

    def outputs_many(self, source, source_task, stream, rows, kept):
        self.runs.append(len(rows))
        for values in rows:
            self.output(source, source_task, stream, values, kept)


def one_by_one(emissions, starts, kept, dropped):
    """The reference: every emission routed alone by ``row_targets``."""
    moved: dict = {}
    counters = ChainMap(moved, dict(starts))
    sink = Recorder()
    for stream, values, *direct in emissions:
        if stream in dropped:
            continue
        if stream in kept or ROUTING.is_output("src", stream):
            sink.output("src", 1, stream, values, stream in kept)
            continue
        for bolt, target in ROUTING.row_targets(counters, "src", 1, stream, values, *direct):
            sink.rows(bolt, target, "src", 1, stream, values)
    return moved, sink


emission = st.tuples(st.sampled_from(["fixed", "fixed", "chosen", "out", "dropped", "kept"]),
                     st.lists(st.integers(0, 9), min_size=1, max_size=1))
direct_emission = st.tuples(st.sampled_from(["fixed", "chosen", "out"]),
                            st.lists(st.integers(0, 9), min_size=1, max_size=1), st.integers(0, 5))


@settings(max_examples=300, deadline=None)
@given(emissions=st.lists(emission | direct_emission, max_size=40), start=st.integers(0, 7))
def test_runs_to_fixed_targets_reach_them_as_one_by_one_and_move_the_counters_as_much(emissions, start):
    starts = {("src", 1, "fixed", "one"): start, ("src", 1, "chosen", "two"): start + 1}
    kept, dropped = frozenset({"kept"}), frozenset({"dropped"})
    sink = Recorder()
    moved = route_emissions(ROUTING, "src", 1, emissions, starts, sink, kept, dropped)
    expected_moved, expected = one_by_one(emissions, starts, kept, dropped)
    assert moved == expected_moved
    assert sink.inputs == expected.inputs
    assert sink.outputs == expected.outputs


def test_a_run_of_outputs_on_one_stream_is_kept_at_once_in_order():
    emissions = [("out", [1]), ("out", [2]), ("kept", [3]), ("kept", [4], 0), ("out", [5]), ("dropped", [6]),
                 ("out", [7])]
    sink = Recorder()
    route_emissions(ROUTING, "src", 1, emissions, {}, sink, frozenset({"kept"}), frozenset({"dropped"}))
    assert sink.outputs == [("out", [1], False), ("out", [2], False), ("kept", [3], True), ("kept", [4], True),
                            ("out", [5], False), ("out", [7], False)]
    assert sink.runs == [2, 2, 1, 1]  # [1, 2], [3, 4], then [5] and [7] (the dropped [6] parts them)


def test_only_subscribers_that_ignore_values_and_counters_have_fixed_targets():
    assert ROUTING.fixed_targets("src", "fixed") == [("global", 0, True), ("one", 0, True), ("all_of_one", 0, True),
                                                     ("none_of_one", 0, True)]
    assert ROUTING.fixed_targets("src", "chosen") is None  # a shuffle over two tasks, a fields grouping
    assert ROUTING.fixed_targets("src", "out") is None  # nobody subscribes
