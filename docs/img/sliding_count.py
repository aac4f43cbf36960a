"""A sliding count window in event time: the last 3 tuples, every 2 tuples, lag 2 s, late tuples on "late".

``squall plot docs/img/sliding_count.py --out docs/img/sliding_count.png``
"""

from squall import BaseWindowedBolt, BoltHarness, Count, Duration, Fields


class Sum(BaseWindowedBolt):
    """Emits the sum of the window's values."""

    def execute(self, window):
        """Emit for the window."""
        self.collector.emit([sum(t["value"] for t in window.get())])

    def declare_output_fields(self, declarer):
        """One output field."""
        declarer.declare(Fields("sum"))


S = 1000
# (arrival, event time, value), times in seconds: the tuple at 3 s arrives after the one at 4 s, and the one at
# 5 s arrives after the watermark passed 5 s.
ROWS = [(0.2, 1, 5), (0.5, 4, 7), (0.7, 3, 3), (1.3, 6, 4), (1.6, 8, 3), (2.4, 9.5, 8), (2.6, 5, 9),
        (3.3, 12, 1), (3.5, 11, 2)]


def build_harness():
    """The harness, fed and driven: what the figure shows."""
    bolt = (Sum().with_window(Count(3), Count(2)).with_timestamp_field("ts").with_lag(Duration.seconds(2))
            .with_late_tuple_stream("late"))
    h = BoltHarness(bolt, fields=("ts", "value"))
    for arrival, ts, value in ROWS:
        h.advance_to(int(arrival * S))
        h.feed({"ts": int(ts * S), "value": value})
    h.advance_to(5 * S)
    return h


PLOT_OPTIONS = {"label": "value", "title": "with_window(Count(3), Count(2)), lag 2 s"}
