"""TupleWindow is a view: readable inside execute, lazy, and columnar on request."""

import pytest

from bolts import BaseWindowedBolt
from topologies.testing import BoltHarness
from windowing import Count, Duration


class Keeper(BaseWindowedBolt):
    def __init__(self):
        self.kept = []
        self.seen = []

    def execute(self, window):
        self.kept.append(window)
        self.seen.append((len(window), list(window.iter()), window.to_arrow().to_pydict()))


def test_the_window_is_only_readable_inside_execute():
    bolt = Keeper().with_tumbling_window(Count(2))
    h = BoltHarness(bolt, fields=("k", "v"))
    h.feed(["a", 1])
    h.feed(["b", 2])
    assert h.bolt.seen == [(2, [h.windows[0].tuples[0], h.windows[0].tuples[1]], {"k": ["a", "b"], "v": [1, 2]})]
    with pytest.raises(RuntimeError, match=r"TupleWindow\.get: the window is only readable inside execute"):
        h.bolt.kept[0].get()


def test_iteration_is_in_arrival_order_in_event_time():
    bolt = Keeper().with_tumbling_window(Duration(10)).with_timestamp_field("v").with_lag(Duration(5))
    h = BoltHarness(bolt, fields=("k", "v"))
    for k, v in [("a", 7), ("b", 3), ("c", 5), ("d", 20)]:
        h.feed([k, v])
    h.advance(Duration.seconds(1))
    assert [t["k"] for t in h.bolt.seen[0][1]] == ["a", "b", "c"]
    assert [t["k"] for t in h.windows[0].tuples] == ["a", "b", "c"]


class Columns(BaseWindowedBolt):
    """Keeps each window's ``to_arrow()`` table, or the error it raised."""

    def prepare(self, conf, context, collector):
        self.tables = []

    def execute(self, window):
        try:
            self.tables.append(window.to_arrow())
        except ValueError as err:
            self.tables.append(err)


def test_to_arrow_gives_a_column_per_field_with_nulls_and_refuses_tuples_of_other_fields():
    h = BoltHarness(Columns().with_tumbling_window(Count(3)), fields={"default": ("k", "v"), "other": ("x",)},
                    streams=("default", "other"))
    for values in (["a", 1], ["b", None], ["c", 3]):
        h.feed(values)
    h.feed(["a", 4])
    h.feed(["only x"], stream="other")
    h.feed(["b", 5])
    first, second = h.bolt.tables
    assert first.to_pydict() == {"k": ["a", "b", "c"], "v": [1, None, 3]}
    assert isinstance(second, ValueError) and "different fields" in str(second)
