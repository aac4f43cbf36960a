"""A table a columnar bolt emits (``emit_table``) is routed as its rows emitted one by one would be.

Every target task gets the same rows in the same order, every output and
dropped stream the same, the counters move as far, and the task ids a later
``emit`` returns are the same: for turn-taking groupings (cut on the table's
columns) and for a partial-key grouping (which keeps loads, routed row by row).
The emissions also survive their commit: encoded and decoded, they are equal.
"""

from __future__ import annotations

from collections import ChainMap

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import Fields
from bolts.context import TopologyLayout
from topologies.engine.routing import RoutingTable, TaskRoutes, route_emissions
from topologies.engine.wire import decode_emissions, encode_emissions, is_table
from topologies.groupings import AllGrouping, FieldsGrouping, GlobalGrouping, PartialKeyGrouping, ShuffleGrouping

FIELDS = Fields("x", "y")
STREAMS = ("fixed", "chosen", "balanced", "out", "dropped", "kept")
ROUTING = RoutingTable(
    streams={"src": {s: FIELDS for s in STREAMS}},
    subscribers={
        ("src", "fixed"): (("global", GlobalGrouping(), 3), ("one", ShuffleGrouping(), 1),
                           ("every", AllGrouping(), 2)),
        ("src", "chosen"): (("two", ShuffleGrouping(), 2), ("by_x", FieldsGrouping(Fields("x")), 3)),
        ("src", "balanced"): (("pk", PartialKeyGrouping(Fields("x")), 3), ("two", ShuffleGrouping(), 2)),
        ("src", "kept"): (("one", ShuffleGrouping(), 1),),
    },
    position={"src": 1, "global": 2, "one": 3, "every": 4, "two": 5, "by_x": 6, "pk": 7},
    layout=TopologyLayout({"src": 2, "global": 3, "one": 1, "every": 2, "two": 2, "by_x": 3, "pk": 3},
                          {"src": {s: FIELDS for s in STREAMS}}),
)
KEPT, DROPPED = frozenset({"kept"}), frozenset({"dropped"})


class Recorder:
    """What reached each target task, in order, and the outputs, a table's rows one by one."""

    def __init__(self) -> None:
        self.inputs: dict[tuple[str, int], list] = {}
        self.outputs: list = []

    def rows(self, bolt, task, source, source_task, stream, values):
        self.inputs.setdefault((bolt, task), []).append((source, source_task, stream, list(values)))

    def rows_many(self, bolt, task, source, source_task, stream, rows):
        for values in rows:
            self.rows(bolt, task, source, source_task, stream, values)

    def rows_table(self, bolt, task, source, source_task, stream, rows):
        assert rows.num_rows  # no empty share is sent
        self.rows_many(bolt, task, source, source_task, stream, [list(r.values()) for r in rows.to_pylist()])

    def outputs_many(self, source, source_task, stream, rows, kept):
        self.outputs.extend((stream, list(values), kept) for values in rows)

    def outputs_table(self, source, source_task, stream, rows, kept):
        self.outputs_many(source, source_task, stream, [list(r.values()) for r in rows.to_pylist()], kept)


def as_rows(emissions):
    """Each table emission as its rows emitted one by one."""
    out = []
    for stream, values, *direct in emissions:
        if is_table(values):
            out.extend((stream, list(r.values())) for r in values.to_pylist())
        else:
            out.append((stream, values, *direct))
    return out


def one_by_one(emissions, starts):
    """The reference: every row routed alone by ``row_targets``."""
    moved: dict = {}
    counters = ChainMap(moved, dict(starts))
    sink = Recorder()
    for stream, values, *direct in as_rows(emissions):
        if stream in DROPPED:
            continue
        if stream in KEPT or ROUTING.is_output("src", stream):
            sink.outputs_many("src", 1, stream, [values], stream in KEPT)
            continue
        for bolt, target in ROUTING.row_targets(counters, "src", 1, stream, values, *direct):
            sink.rows(bolt, target, "src", 1, stream, values)
    return moved, sink


rows = st.lists(st.tuples(st.integers(0, 6), st.integers(-5, 5)), min_size=0, max_size=12)
row_emission = st.tuples(st.sampled_from(STREAMS), st.tuples(st.integers(0, 6), st.integers(-5, 5)).map(list))
table_emission = st.tuples(st.sampled_from(STREAMS), rows.map(
    lambda r: pa.table({"x": pa.array([a for a, _ in r], pa.int64()), "y": pa.array([b for _, b in r], pa.int64())})))
emissions_st = st.lists(row_emission | table_emission, max_size=25)


@settings(max_examples=300, deadline=None)
@given(emissions=emissions_st, start=st.integers(0, 7))
def test_a_table_reaches_each_task_and_output_as_its_rows_one_by_one_would(emissions, start):
    starts = {("src", 1, "chosen", "two"): start, ("src", 1, "fixed", "global"): start + 1,
              ("src", 1, "balanced", "two"): start + 2}
    sink = Recorder()
    moved = route_emissions(ROUTING, "src", 1, emissions, starts, sink, KEPT, DROPPED)
    expected_moved, expected = one_by_one(emissions, starts)
    assert sink.inputs == expected.inputs
    assert sink.outputs == expected.outputs
    assert moved == expected_moved


@settings(max_examples=150, deadline=None)
@given(emissions=emissions_st, start=st.integers(0, 7))
def test_the_ids_an_emit_returns_after_a_table_count_its_rows_turns(emissions, start):
    starts = {("src", 1, "chosen", "two"): start}
    routes, reference = TaskRoutes(ROUTING, "src", 1), TaskRoutes(ROUTING, "src", 1)
    routes.begin(starts)
    reference.begin(starts)
    ids, expected = [], []
    for stream, values in emissions:
        if is_table(values):
            routes.note_table(stream, values)
            expected_ids = [reference.targets(stream, list(r.values())) for r in values.to_pylist()]
        else:
            ids.append(routes.targets(stream, values))
            expected_ids = [reference.targets(stream, values)]
            expected.append(expected_ids[-1])
    for got, want in zip(ids, expected, strict=True):
        assert list(got) == list(want)


@settings(max_examples=100, deadline=None)
@given(emissions=emissions_st)
def test_table_emissions_come_back_from_their_commit_equal(emissions):
    back = decode_emissions(encode_emissions(emissions, "src", 1))
    assert len(back) == len(emissions)
    for (stream, values, *rest), (got_stream, got, *got_rest) in zip(emissions, back, strict=True):
        assert (stream, rest) == (got_stream, got_rest)
        assert got.equals(values) if is_table(values) else got == values


def test_a_fields_grouping_on_a_list_or_dictionary_key_routes_a_table_as_its_rows():
    """Nested and dictionary key columns (nulls among them) are hashed row by row, as emit does: no row is lost."""
    routing = RoutingTable(streams={"src": {"default": Fields("k", "v")}},
                           subscribers={("src", "default"): (("by_k", FieldsGrouping(Fields("k")), 3),)},
                           position={"src": 1, "by_k": 2})
    for keys in ([[1, 2], [3], [], [1, 2], None], pa.array(["a", None, "b", "a", None]).dictionary_encode()):
        table = pa.table({"k": keys, "v": [10, 20, 30, 40, 50]})
        assert routed_values(routing, table) == row_by_row_values(routing, table)


def routed_values(routing, table):
    routed = routing.table_routes({}, "src", 0, "default", table)
    return {task: share.column("v").to_pylist() for _, task, share in routed}


def row_by_row_values(routing, table):
    expected: dict[int, list[int]] = {}
    for row in table.to_pylist():
        (_, task), = routing.row_targets({}, "src", 0, "default", [row["k"], row["v"]])
        expected.setdefault(task, []).append(row["v"])
    return expected
