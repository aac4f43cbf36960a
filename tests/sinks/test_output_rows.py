"""OutputRows: a batch's outputs as runs of records and tables, read as the flat list of records they stand for.

Slices, stream selections and the output log's trimming give what the same
operations on the flat list give, and none of them builds a table's records.
"""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from topologies.sinks.output_log import OutputLog
from topologies.sinks.output_rows import OutputRows, TableRun
from topologies.sinks.records import Output


def run_of(kind, component, stream, values):
    if kind == "table":
        return TableRun(component, 1, stream, pa.table({"v": pa.array(values, pa.int64())}))
    return [Output(component, 1, stream, [v]) for v in values]


runs = st.lists(st.tuples(st.sampled_from(["table", "records"]), st.sampled_from(["a", "b"]),
                          st.sampled_from(["s", "t"]), st.lists(st.integers(0, 99), max_size=5)), max_size=6)


def flat(described):
    return [Output(c, 1, s, [v]) for _, c, s, values in described for v in values]


@settings(max_examples=200, deadline=None)
@given(described=runs, start=st.integers(-3, 25), stop=st.integers(-3, 25))
def test_slices_and_stream_selections_are_the_flat_lists(described, start, stop):
    rows = OutputRows(run_of(*d) for d in described)
    expected = flat(described)
    sliced = rows[start:stop]
    assert isinstance(sliced, OutputRows) and sliced._built is None and rows._built is None  # nothing built
    assert len(sliced) == len(expected[start:stop])
    assert list(sliced) == expected[start:stop]
    chosen = rows.of_streams({"a:s", "b:t"})
    assert list(chosen) == [o for o in expected if f"{o.component}:{o.stream}" in {"a:s", "b:t"}]
    assert len(rows) == len(expected) and rows == expected and list(rows) == expected
    if expected:
        assert rows[-1] == expected[-1] and rows[0] == expected[0]


class Batch:
    """An OutputBatch of ready OutputRows."""

    def __init__(self, key, rows):
        self.key, self.rows = key, rows

    def records(self, streams=None):
        return self.rows if streams is None else self.rows.of_streams(streams)


@settings(max_examples=100, deadline=None)
@given(batches=st.lists(runs, min_size=1, max_size=4), keep=st.integers(0, 12))
def test_the_output_log_keeps_the_last_outputs_of_tables_without_building_the_dropped_ones(batches, keep):
    log = OutputLog(keep=keep or None)
    held = []
    for key, described in enumerate(batches):
        batch = Batch(key, OutputRows(run_of(*d) for d in described))
        log.write(batch)
        held += flat(described)
    expected = held[-keep:] if keep else held
    assert all(rows._built is None for rows in log.batches.values())  # trimmed as runs: no record built yet
    assert log.all() == expected
    assert log.count == len(held)


def test_a_slice_of_a_big_table_keeps_only_its_rows():
    big = TableRun("a", 1, "s", pa.table({"v": pa.array(range(100_000), pa.int64())}))
    kept = OutputRows([big])[-1:]
    assert list(kept) == [Output("a", 1, "s", [99_999])]
    assert kept._runs[0].table.get_total_buffer_size() < 1_000  # a copy of its row, not a view of the whole
