"""A brute-force model of Storm 2.x windowing, written as plainly as Storm's own code.

It keeps one queue in arrival order and evaluates every queued tuple at every
trigger with Storm's EXPIRE/PROCESS/KEEP rules, the previous window as a set,
and the watermark generator and triggers as Storm writes them. It differs from
Storm only by squall's documented deviations, each of which keeps an on-time
tuple from missing every window: the event-time scan never stops early (no
STOP); event-time count windows count tuples in timestamp order, not arrival
order; an event-time window fires once the watermark passes its end, not when
it reaches it. It is slow on purpose: squall's incremental window manager must
agree with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

INT_MAX = 2**31 - 1
END_OF_TIME = 2**63 - 1


@dataclass
class ModelActivation:
    tuples: list[int]
    new: list[int]
    expired: list[int]
    start: int | None
    end: int | None


@dataclass
class StormModel:
    """Run with ids for tuples; windows and late tuples are recorded by id."""

    length: tuple[str, int]  # ("count" | "time", value)
    slide: tuple[str, int]
    event_time: bool
    lag: int = 0
    watermark_interval: int = 1000
    streams: tuple[str, ...] = ("default",)
    now: int = 0
    queue: list[tuple[int, int]] = field(default_factory=list)  # (id, ts)
    windows: list[ModelActivation] = field(default_factory=list)
    late: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.expired: list[int] = []
        self.prev: set[int] = set()
        self.ref: int | None = None  # eviction context reference time
        self.ctx_count: int | None = None
        self.ctx_slide_count: int | None = None
        self.delta = 0
        self.cur_count = 0  # count eviction's currentCount
        self.processed = 0  # watermark count eviction
        self.trigger_count = 0
        self.next_window_end = 0
        self.last_processed_ts = 0
        self.stream_ts: dict[str, int] = {}
        self.watermark = 0
        self.start = self.now
        if self.event_time:
            self.next_timer = self.now + self.watermark_interval
        elif self.slide[0] == "time":
            self.next_timer = self.now + self.slide[1]
        else:
            self.next_timer = END_OF_TIME  # count triggers have no timer

    # --- eviction ------------------------------------------------------------------------
    def evict(self, ts: int) -> str:
        kind, n = self.length
        if kind == "count" and not self.event_time:
            if self.cur_count > n:
                self.cur_count -= 1
                return "EXPIRE"
            return "PROCESS"
        if kind == "count":
            if ts <= self.ref and self.processed < self.cur_count:
                if self.cur_count > n:
                    self.cur_count -= 1
                    return "EXPIRE"
                self.processed += 1
                return "PROCESS"
            return "KEEP"
        diff = self.ref - ts
        if diff >= n + self.delta:
            return "EXPIRE"
        if diff < 0:
            return "KEEP"
        return "PROCESS"

    def set_context(self, ref: int, count: int | None = None, slide_count: int | None = None,
                    interval: int | None = None) -> None:
        prev_ref = self.ref
        self.ref = ref
        kind, _ = self.length
        if kind == "time" and interval is not None:
            self.delta = INT_MAX if prev_ref is None else ref - prev_ref - interval
        if kind == "count" and self.event_time:
            self.cur_count = count if count is not None else self.processed + slide_count
            self.processed = 0

    def on_trigger(self) -> bool:
        window: list[int] = []
        keep: list[tuple[int, int]] = []
        order = list(self.queue)
        if self.length[0] == "count" and self.event_time:
            # squall's deviation: event-time count windows count in timestamp order
            order.sort(key=lambda item: (item[1], self.queue.index(item)))
        for tid, ts in order:
            action = self.evict(ts)
            if action == "EXPIRE":
                self.expired.append(tid)
            else:
                keep.append((tid, ts))
                if action == "PROCESS":
                    window.append(tid)
        self.queue = [item for item in self.queue if item in keep]
        window.sort(key=lambda tid: [t for t, _ in self.queue].index(tid))
        expired, self.expired = self.expired, []
        expired.sort()  # ids grow with arrival; squall reports expired tuples in arrival order
        new = [t for t in window if t not in self.prev]
        self.prev = set(window)
        if window:
            end = self.ref
            start = end - self.length[1] if self.length[0] == "time" else None
            self.windows.append(ModelActivation(window, new, expired, start, end))
        self.trigger_count = 0
        return bool(window)

    # --- input and time --------------------------------------------------------------------
    def feed(self, tid: int, ts: int | None, stream: str = "default") -> None:
        if not self.event_time:
            ts = self.now
        else:
            cur = self.stream_ts.get(stream)
            if cur is None or ts > cur:
                self.stream_ts[stream] = ts
            if ts < self.watermark:
                self.late.append(tid)
                return
        self.queue.append((tid, ts))
        if self.length[0] == "count" and not self.event_time:
            self.cur_count += 1
        if self.slide[0] == "count" and not self.event_time:
            self.trigger_count += 1
            if self.trigger_count >= self.slide[1]:
                self.set_context(self.now)
                self.on_trigger()

    def advance_to(self, t: int) -> None:
        while self.next_timer <= t:
            self.now = self.next_timer
            if self.event_time:
                self.emit_watermark()
                self.next_timer += self.watermark_interval
            else:
                self.set_context(self.now - 1, interval=self.slide[1])
                self.on_trigger()
                self.next_timer += self.slide[1]
        self.now = t

    def emit_watermark(self) -> None:
        if len(self.stream_ts) < len(self.streams):
            return
        wm = min(self.stream_ts.values()) - self.lag
        if wm > self.watermark:
            self.watermark = wm
            self.on_watermark(wm)

    def on_watermark(self, wm: int) -> None:
        kind, n = self.slide
        if kind == "count":
            for ts in self.sliding_count_timestamps(self.last_processed_ts, wm, n):
                self.set_context(ts, slide_count=n)
                self.on_trigger()
                self.last_processed_ts = ts
            return
        end = self.next_window_end
        while end < wm:  # squall's deviation: a window fires once the watermark passes its end
            count = sum(1 for _, ts in self.queue if ts <= end)
            self.set_context(end, count=count)
            if self.on_trigger():
                end += n
            else:
                cands = [ts for _, ts in self.queue if end < ts <= wm]
                if not cands:
                    break
                nxt = min(cands)
                end = nxt if nxt % n == 0 else nxt + (n - nxt % n)
        self.next_window_end = end

    def sliding_count_timestamps(self, start: int, end: int, n: int) -> list[int]:
        out, count, mx = [], 0, None
        if end > start:
            for _, ts in self.queue:
                if start < ts <= end:
                    mx = ts if mx is None else max(mx, ts)
                    count += 1
                    if count % n == 0:
                        out.append(mx)
        return out

    def close(self) -> None:
        if not self.event_time:
            return
        final = END_OF_TIME
        if self.length[0] == "count" and self.slide[0] == "time":
            if not self.queue:
                return
            final = max(ts for _, ts in self.queue) + self.slide[1]
        if final > self.watermark:
            self.watermark = final
            self.on_watermark(final)


def ids(tuples: Any) -> list[Any]:
    """The ``id`` field of each tuple, in order."""
    return [t["id"] for t in tuples]


def assert_same_windows(harness: Any, model: Any) -> None:
    """The harness's window activations and late tuples equal a model's (ids, bounds, new and expired)."""
    got = [(ids(w.tuples), ids(w.new), ids(w.expired), w.start_timestamp, w.end_timestamp) for w in harness.windows]
    want = [(w.tuples, w.new, w.expired, w.start, w.end) for w in model.windows]
    assert got == want
    assert ids(harness.late) == model.late
