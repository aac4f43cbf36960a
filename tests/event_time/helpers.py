"""Shared helpers for the event-time tests: build bolts, run streams, read panes."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from bolts.aggregate.windowed_aggregate_bolt import WindowedAggregateBolt
from topologies.testing import BoltHarness
from windowing import aggregators
from windowing.accumulation import AccumulationMode

FIELDS = ("key", "ts", "v")
OUT = ("key", "window_start", "window_end", "value", "timestamp", "pane", "is_retraction")


def sum_bolt(assigner: Any, *, mode: AccumulationMode = AccumulationMode.ACCUMULATING, keyed: bool = True,
             aggregator: Any = None) -> WindowedAggregateBolt:
    bolt = WindowedAggregateBolt(aggregator or aggregators.sum("v"), key_fields=("key",) if keyed else None)
    return bolt.with_windows(assigner).with_timestamp_field("ts").with_accumulation_mode(mode)


def harness(bolt: WindowedAggregateBolt, **kwargs: Any) -> BoltHarness:
    return BoltHarness(bolt, fields=FIELDS, **kwargs)


def replay(h: BoltHarness, steps: list[tuple[str, Any]]) -> None:
    """Drive ``h`` through ``steps``: ``("batch", rows)`` (one micro-batch), ``("feed", rows)`` (fed
    one by one into a batch left open), ``("advance", ms)`` of processing time, ``("watermark", ts)``
    from upstream."""
    for kind, arg in steps:
        if kind == "batch":
            h.feed_batch(arg)
        elif kind == "feed":
            for row in arg:
                h.feed(row)
        elif kind == "advance":
            h.advance(arg)
        elif kind == "watermark":
            h.advance_watermark(arg)
        else:
            msg = f"replay: unknown step {kind!r}"
            raise ValueError(msg)


def panes(h: BoltHarness, start: int = 0) -> list[dict[str, Any]]:
    """The emitted panes (default stream) as dicts, from emission ``start`` on."""
    return [dict(zip(OUT, values, strict=True)) for stream, values in h.emitted[start:] if stream == "default"]


def brief(p: dict[str, Any]) -> tuple[Any, ...]:
    """(key, start, end, value, timing, retraction) of a pane."""
    return (p["key"], p["window_start"], p["window_end"], p["value"], p["pane"].timing, p["is_retraction"])


def net_by_window(ps: list[dict[str, Any]]) -> dict[tuple[Any, int, int], Any]:
    """Per (key, window): the sum of pane values minus retracted values; zero entries removed."""
    total: dict[tuple[Any, int, int], Any] = defaultdict(int)
    for p in ps:
        sign = -1 if p["is_retraction"] else 1
        total[(p["key"], p["window_start"], p["window_end"])] += sign * p["value"]
    return {k: v for k, v in total.items() if v != 0}


def last_by_window(ps: list[dict[str, Any]]) -> dict[tuple[Any, int, int], Any]:
    """Per (key, window): the value of its last non-retraction pane."""
    out: dict[tuple[Any, int, int], Any] = {}
    for p in ps:
        if not p["is_retraction"]:
            out[(p["key"], p["window_start"], p["window_end"])] = p["value"]
    return out
