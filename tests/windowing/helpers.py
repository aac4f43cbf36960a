"""Small helpers for window tests."""

from __future__ import annotations

from tests.bolts_for_tests import WindowIds
from windowing import Count, Duration


class Recorder(WindowIds):
    """A windowed bolt that emits the names in each window (and nothing else)."""

    def __init__(self) -> None:
        super().__init__("name")


def unit(kind, value):
    """A window length or slide of a random configuration: ``Count(value)`` for ``"count"``, else ``Duration``."""
    return Count(value) if kind == "count" else Duration(value)


def names(tuples):
    return [t["name"] for t in tuples]


def summary(harness):
    """(tuples, new, expired, start, end) for each activation, by tuple name."""
    return [
        (names(w.tuples), names(w.new), names(w.expired), w.start_timestamp, w.end_timestamp)
        for w in harness.windows
    ]
