"""Groupings on columns choose exactly the tasks that ``targets`` chooses row by row."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from bolts import Fields
from topologies.groupings import AllGrouping, FieldsGrouping, GlobalGrouping, Grouping, ShuffleGrouping

FIELDS = Fields("key", "n", "value")

rows = st.lists(st.tuples(st.none() | st.sampled_from(["a", "b", "k1", "é", ""]), st.none() | st.integers(-3, 3),
                          st.integers(0, 100)), max_size=40)


class EvenOdd(Grouping):
    """A user's grouping with only ``targets``: the default ``split`` asks it row by row."""

    def targets(self, values, fields, n, counter):
        return [values[2] % n]


GROUPINGS = [ShuffleGrouping(), GlobalGrouping(), AllGrouping(), FieldsGrouping(Fields("key")),
             FieldsGrouping(Fields("key", "n")), FieldsGrouping(Fields("n")), EvenOdd()]


def by_rows(grouping: Grouping, data, n: int, counter: int) -> list[list[tuple]]:
    per_task: list[list[tuple]] = [[] for _ in range(n)]
    for i, row in enumerate(data):
        for task in grouping.targets(row, FIELDS, n, counter + i):
            per_task[task].append(row)
    return per_task


@settings(max_examples=300, deadline=None)  # no wall-clock limit: the first example sets up pyarrow compute
@given(rows, st.integers(1, 5), st.integers(0, 50), st.sampled_from(GROUPINGS), st.integers(1, 3))
def test_split_sends_every_row_where_targets_does_in_row_order(data, n, counter, grouping, chunks):
    columns = {name: [row[i] for row in data] for i, name in enumerate(FIELDS)}
    schema = pa.schema([("key", pa.string()), ("n", pa.int64()), ("value", pa.int64())])
    table = pa.table(columns, schema=schema)
    if data and chunks > 1:  # several record batches, as Spark's toArrow gives
        step = max(1, len(data) // chunks)
        table = pa.concat_tables([table.slice(i, step) for i in range(0, len(data), step)])
    parts = grouping.split(table, FIELDS, n, counter)
    got = [list(zip(*(part.column(f).to_pylist() for f in FIELDS), strict=True)) for part in parts]
    assert got == by_rows(grouping, data, n, counter)
