"""The worked example of Storm's windowing docs: 20 s windows sliding by 10 s, lag 5 s, watermark every 1 s.

``squall plot docs/img/storm_watermark.py --out docs/img/storm_watermark.png``
"""

from squall import BaseWindowedBolt, BoltHarness, Duration, Fields


class Names(BaseWindowedBolt):
    """Emits the names of the tuples in each window."""

    def execute(self, window):
        """Emit for the window."""
        self.collector.emit([[t["name"] for t in window.get()]])

    def declare_output_fields(self, declarer):
        """One output field."""
        declarer.declare(Fields("names"))


def at(h, m, s, ms=0):
    """A time of day as epoch milliseconds (day 0)."""
    return ((h * 60 + m) * 60 + s) * 1000 + ms


def build_harness():
    """The harness, fed and driven: what the figure shows."""
    bolt = (Names().with_window(Duration.seconds(20), Duration.seconds(10)).with_timestamp_field("ts")
            .with_lag(Duration.seconds(5)).with_watermark_interval(Duration.seconds(1)))
    h = BoltHarness(bolt, fields=("name", "ts"), start_time_ms=at(9, 0, 0))
    # e1..e6 arrive between 09:00:00 and 09:00:01, e7..e10 between 09:00:01 and 09:00:02.
    for second, events in ((0, [("e1", 3), ("e2", 5), ("e3", 7), ("e4", 18), ("e5", 26), ("e6", 36)]),
                           (1, [("e7", 7225), ("e8", 7226), ("e9", 7227), ("e10", 7239)])):
        for i, (name, ts) in enumerate(events):
            h.advance_to(at(9, 0, second, 100 + 150 * i))
            h.feed({"name": name, "ts": at(6, 0, ts)})
        h.advance_to(at(9, 0, second + 1))  # the watermark: 06:00:31, then 08:00:34
    return h


PLOT_OPTIONS = {
    "label": "name",
    "title": "Storm's docs: 20 s windows every 10 s, lag 5 s",
    "event_time_ranges": [(at(5, 59, 45), at(6, 0, 55)), (at(8, 0, 5), at(8, 0, 45))],
}
