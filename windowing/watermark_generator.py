"""Event-time progress: the watermark is the slowest input stream's latest timestamp minus the lag."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any


class WatermarkGenerator:
    """Storm's ``WaterMarkEventGenerator`` without its timer thread.

    ``track`` records a tuple's timestamp and tells whether the tuple is on time:
    it is late when its timestamp is below the last emitted watermark (a tuple
    exactly at the watermark is on time). ``compute`` is called every watermark
    interval: once every input stream has delivered a tuple, the candidate is the
    minimum over the streams of their largest timestamp, minus the lag, and it is
    emitted only when it moves the watermark forward. Before the first watermark,
    the watermark is 0, as in Storm, so tuples with negative timestamps are late.
    """

    def __init__(self, input_streams: Iterable[Hashable], lag_ms: int) -> None:
        self.input_streams = frozenset(input_streams)
        if not self.input_streams:
            msg = "WatermarkGenerator: at least one input stream is needed"
            raise ValueError(msg)
        self.lag_ms = lag_ms
        self.latest: dict[Hashable, int] = {}
        self.watermark = 0

    def track(self, stream: Hashable, ts: int) -> bool:
        """Record ``ts`` for ``stream``; True when the tuple is on time."""
        current = self.latest.get(stream)
        if current is None or ts > current:
            self.latest[stream] = ts
        return ts >= self.watermark

    def track_max(self, stream: Hashable, ts: int) -> None:
        """Record the largest timestamp of a batch's tuples on ``stream``, as :meth:`track` of each would.

        Lateness is judged apart: the watermark does not move while a batch's tuples are tracked.
        """
        current = self.latest.get(stream)
        if current is None or ts > current:
            self.latest[stream] = ts

    def compute(self) -> int | None:
        """The new watermark if it moved forward, else None."""
        if not self.input_streams.issubset(self.latest):
            return None
        candidate = min(self.latest[s] for s in self.input_streams) - self.lag_ms
        if candidate > self.watermark:
            self.watermark = candidate
            return candidate
        return None

    def state(self) -> dict[str, Any]:
        """The latest timestamp per stream and the watermark, as plain data."""
        return {"latest": [[*_as_list(s), ts] for s, ts in self.latest.items()], "watermark": self.watermark}

    def restore(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state` returned."""
        self.latest = {_as_key(item[:-1]): item[-1] for item in state["latest"]}
        self.watermark = state["watermark"]

    def advance(self, ts: int) -> bool:
        """Take a watermark from upstream; True when it moved the watermark forward."""
        if ts > self.watermark:
            self.watermark = ts
            return True
        return False


def _as_list(stream: Hashable) -> list[Any]:
    return list(stream) if isinstance(stream, tuple) else [stream]


def _as_key(parts: list[Any]) -> Hashable:
    return tuple(parts) if len(parts) > 1 else parts[0]
