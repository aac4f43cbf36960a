"""A bolt's watermark: the minimum over its input streams of the upstream watermark or its own estimate.

For each input stream, the watermark is the one delivered from upstream
(``advance_watermark``) once there has been one; until then it is the
stream's own :class:`WatermarkGenerator` (latest timestamp minus the lag,
recomputed every watermark interval). The bolt's watermark is the minimum over
its streams, never moves back, and is what it forwards downstream. As in Storm,
it is 0 until every stream has moved it.

A bolt fed panes (``upstream_only``) never estimates: its watermark is the
upstream one alone, as a Beam transform's input watermark is its producers'
output watermark. The panes of one window come from several upstream tasks,
each emitting when its own watermark passes the window's end, so a pane's
timestamp says nothing of the panes still to come from the other tasks: an
estimate from them would close a window before its last pane arrives.

Spark's rules (``with_spark_semantics``) compute it once per batch instead, from
the largest event times *seen*: those of the batches before the current one,
over every task of the bolt (:meth:`observe` takes the other tasks', and
:meth:`publish_seen` this task's own at the end of a batch). Each stream's
watermark is then its largest seen time minus the lag (0 before it has seen one,
as Spark's ``WatermarkTracker`` gives an operator without data), and the streams
combine by Spark's multiple-watermark policy, ``min`` or ``max``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from windowing.watermark_generator import WatermarkGenerator


class InputWatermarks:
    """Per-stream watermarks and their minimum."""

    def __init__(self, streams: Iterable[Hashable], lag_ms: int, policy: str = "min", *,
                 upstream_only: bool = False) -> None:
        self.streams = sorted(set(streams), key=repr)
        if not self.streams:
            msg = "InputWatermarks: at least one input stream is needed"
            raise ValueError(msg)
        self.generators = {s: WatermarkGenerator([s], lag_ms) for s in self.streams}
        self.upstream: dict[Hashable, int] = {}
        self.lag_ms = lag_ms
        self.policy = policy
        self.upstream_only = upstream_only
        self.seen: dict[Hashable, int] = {}  # Spark's rules: the largest event time of the batches before

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
        """The minimum over the streams (of their upstream watermarks alone when ``upstream_only``)."""
        if self.upstream_only:
            return min(self.upstream.get(s, 0) for s in self.streams)
        return min(self.upstream.get(s, self.generators[s].watermark) for s in self.streams)

    # Spark's rules ------------------------------------------------------------------------------
    def maxima(self) -> dict[Hashable, int]:
        """The largest timestamp this task has tracked on each stream that has had one."""
        return {s: gen.latest[s] for s, gen in self.generators.items() if s in gen.latest}

    def observe(self, maxima: Mapping[Hashable, int]) -> None:
        """Take the largest event times other tasks saw before this batch (streams not among the inputs are ignored)."""
        for s, ts in maxima.items():
            if s in self.generators:
                self.seen[s] = max(self.seen.get(s, ts), ts)

    def publish_seen(self) -> None:
        """End of a batch: this task's own timestamps count from the next batch on."""
        self.observe(self.maxima())

    def spark_watermark(self) -> int:
        """Spark's watermark from what was seen: each stream's upstream watermark or largest seen time - lag, combined.

        A stream that has seen nothing counts as 0; ``policy`` ``min`` or ``max`` combines the streams.
        """
        values = [
            self.upstream[s] if s in self.upstream else (self.seen[s] - self.lag_ms if s in self.seen else 0)
            for s in self.streams
        ]
        return max(values) if self.policy == "max" else min(values)

    # Plain data ---------------------------------------------------------------------------------
    def state(self) -> list[list[Any]]:
        """Plain data: ``[stream parts, generator state, upstream or None, seen or None]`` per stream."""
        return [
            [list(s) if isinstance(s, tuple) else [s], self.generators[s].state(), self.upstream.get(s),
             self.seen.get(s)]
            for s in self.streams
        ]

    def restore(self, state: list[list[Any]]) -> None:
        """Restore :meth:`state` (also the three-item form written before ``seen`` was kept)."""
        for parts, gen_state, upstream, *rest in state:
            s = tuple(parts) if len(parts) > 1 else parts[0]
            self.generators[s].restore(gen_state)
            if upstream is not None:
                self.upstream[s] = upstream
            if rest and rest[0] is not None:
                self.seen[s] = rest[0]
