"""Small helpers for window tests."""

from __future__ import annotations

from bolts import BaseWindowedBolt, Fields


class Recorder(BaseWindowedBolt):
    """A windowed bolt that emits the names in each window (and nothing else)."""

    def execute(self, window):
        self.collector.emit([[t["name"] for t in window.get()]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("names"))


def names(tuples):
    return [t["name"] for t in tuples]


def summary(harness):
    """(tuples, new, expired, start, end) for each activation, by tuple name."""
    return [
        (names(w.tuples), names(w.new), names(w.expired), w.start_timestamp, w.end_timestamp)
        for w in harness.windows
    ]
