"""A bolt's watermark: the minimum over its input streams of the upstream watermark or its own estimate.

For each input stream, the watermark is the one delivered from upstream
(``advance_watermark``) once there has been one; until then it is the
stream's own :class:`WatermarkGenerator` (latest timestamp minus the lag,
recomputed every watermark interval). The bolt's watermark is the minimum over
its streams, never moves back, and is what it forwards downstream. As in Storm,
it is 0 until every stream has moved it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from windowing.watermark_generator import WatermarkGenerator


class InputWatermarks:
    """Per-stream watermarks and their minimum."""

    def __init__(self, streams: Iterable[Hashable], lag_ms: int) -> None:
        self.streams = sorted(set(streams), key=repr)
        if not self.streams:
            msg = "InputWatermarks: at least one input stream is needed"
            raise ValueError(msg)
        self.generators = {s: WatermarkGenerator([s], lag_ms) for s in self.streams}
        self.upstream: dict[Hashable, int] = {}

    def track(self, stream: Hashable, ts: int) -> None:
        """Record a tuple's timestamp on its stream (unknown streams are ignored)."""
        gen = self.generators.get(stream)
        if gen is not None:
            gen.track(stream, ts)

    def compute(self) -> None:
        """Recompute every stream's own estimate (the periodic watermark timer)."""
        for gen in self.generators.values():
            gen.compute()

    def set_upstream(self, ts: int, stream: Hashable | None = None) -> None:
        """Take a watermark from upstream for ``stream``, or for every input stream when None."""
        targets = self.streams if stream is None else [stream]
        for s in targets:
            if s not in self.generators:
                known = ", ".join(map(repr, self.streams))
                msg = f"advance_watermark: {s!r} is not an input stream; inputs are: {known}"
                raise ValueError(msg)
            self.upstream[s] = max(self.upstream.get(s, ts), ts)

    def current(self) -> int:
        """The minimum over the streams."""
        return min(self.upstream.get(s, self.generators[s].watermark) for s in self.streams)

    def state(self) -> list[list[Any]]:
        """Plain data: ``[stream parts, generator state, upstream or None]`` per stream."""
        return [
            [list(s) if isinstance(s, tuple) else [s], self.generators[s].state(), self.upstream.get(s)]
            for s in self.streams
        ]

    def restore(self, state: list[list[Any]]) -> None:
        """Restore :meth:`state`."""
        for parts, gen_state, upstream in state:
            s = tuple(parts) if len(parts) > 1 else parts[0]
            self.generators[s].restore(gen_state)
            if upstream is not None:
                self.upstream[s] = upstream
