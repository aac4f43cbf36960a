"""A port of Apache Storm 2.x's event-time windowing code, as a test oracle for squall.

Ported (our own code, same decisions, same order of calls) from apache/storm,
``storm-client/src/jvm/org/apache/storm/``:

* ``windowing/WindowManager.java``: one queue in arrival order; ``add`` queues a
  tuple, passes tuples and watermarks to the policies, then compacts every
  ``EXPIRE_EVENTS_THRESHOLD`` (100) tuples and watermarks; ``scanEvents`` walks
  the queue asking the eviction policy for EXPIRE / PROCESS / KEEP / STOP (a
  compaction stops at the first event that does not expire, and every scan
  restarts the compaction count); ``onTrigger`` reports the window, the events
  not in the previous window's set, and the expired events;
  ``getEventCount``, ``getEarliestEventTs`` and ``getSlidingCountTimestamps``.
* ``windowing/EvictionPolicy.java`` (``Action``),
  ``windowing/WatermarkTimeEvictionPolicy.java`` with
  ``windowing/TimeEvictionPolicy.java``, and
  ``windowing/WatermarkCountEvictionPolicy.java``.
* ``windowing/WatermarkTimeTriggerPolicy.java`` and
  ``windowing/WatermarkCountTriggerPolicy.java``.
* ``windowing/WaterMarkEventGenerator.java``: the per-stream latest timestamp,
  lateness (``ts >= lastWaterMarkTs`` is on time), and the watermark (minimum
  over all input streams, minus the lag) emitted only when it moves forward.
* ``topology/WindowedBoltExecutor.java``: which policies are built (the lag is
  passed to the time eviction policy), and late tuples kept out of the window.

Storm's timer thread becomes an explicit processing-time clock (the generator
runs at ``start + k * interval``), as squall injects time. Two squall additions
with no Storm counterpart are modelled so that whole runs can be compared: a
watermark from upstream (``advance_watermark``) goes through ``WindowManager.add``
as a generated one would, and the end of input (``close``) emits squall's final
watermark once.

``Deviations`` applies squall's three documented departures
(docs/storm-differences.md) to this code; ``STORM`` applies none and ``SQUALL``
all three. Windows are reported with tuples in arrival order (Storm's scan order;
under the count-order deviation squall still lists them in arrival order) and
expired tuples in arrival order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

EXPIRE_EVENTS_THRESHOLD = 100
END_OF_TIME = 2**63 - 1
NO_TS = 2**63 - 1  # Long.MAX_VALUE, getEarliestEventTs's "none"


@dataclass(frozen=True)
class Deviations:
    """Which of squall's departures from Storm to apply."""

    no_stop: bool  # 1. the time scan never stops beyond the lag (it keeps such a tuple and goes on)
    fire_past_end: bool  # 2. a time window fires once the watermark is beyond its end, not when it reaches it
    count_in_ts_order: bool  # 3. count windows scan eligible tuples in timestamp order, ties in arrival order


STORM = Deviations(no_stop=False, fire_past_end=False, count_in_ts_order=False)
SQUALL = Deviations(no_stop=True, fire_past_end=True, count_in_ts_order=True)


class Action(Enum):
    EXPIRE = 1
    PROCESS = 2
    KEEP = 3
    STOP = 4


@dataclass(frozen=True)
class Event:
    id: int
    ts: int
    seq: int  # arrival order (Storm's queue position)


@dataclass(frozen=True)
class Context:
    """DefaultEvictionContext: reference time, current count, sliding count."""

    reference_time: int
    current_count: int | None = None
    sliding_count: int | None = None


@dataclass
class Activation:
    tuples: list[int]
    new: list[int]
    expired: list[int]
    start: int | None
    end: int


# --- eviction policies -----------------------------------------------------------------------------
class WatermarkTimeEviction:
    """WatermarkTimeEvictionPolicy(windowLength, lag) over TimeEvictionPolicy (delta stays 0 in event time)."""

    def __init__(self, window_length: int, lag: int, dev: Deviations) -> None:
        self.window_length = window_length
        self.lag = lag
        self.dev = dev
        self.context: Context | None = None

    def set_context(self, context: Context) -> None:
        self.context = context

    def scan_order(self, queue: list[Event]) -> list[Event]:
        return queue

    def evict(self, event: Event) -> Action:
        if self.context is None:
            return Action.STOP  # compaction before the first watermark
        diff = self.context.reference_time - event.ts
        if diff < -self.lag:
            return Action.KEEP if self.dev.no_stop else Action.STOP
        if diff < 0:
            return Action.KEEP
        if diff >= self.window_length:
            return Action.EXPIRE
        return Action.PROCESS


class WatermarkCountEviction:
    """WatermarkCountEvictionPolicy(count)."""

    def __init__(self, threshold: int, dev: Deviations) -> None:
        self.threshold = threshold
        self.dev = dev
        self.context: Context | None = None
        self.current_count = 0
        self.processed = 0

    def set_context(self, context: Context) -> None:
        self.context = context
        if context.current_count is not None:
            self.current_count = context.current_count
        else:
            self.current_count = self.processed + context.sliding_count
        self.processed = 0

    def scan_order(self, queue: list[Event]) -> list[Event]:
        return sorted(queue, key=lambda e: (e.ts, e.seq)) if self.dev.count_in_ts_order else queue

    def evict(self, event: Event) -> Action:
        if self.context is None:
            return Action.STOP
        if event.ts <= self.context.reference_time and self.processed < self.current_count:
            if self.current_count > self.threshold:
                self.current_count -= 1
                return Action.EXPIRE
            self.processed += 1
            return Action.PROCESS
        return Action.KEEP


# --- the window manager ---------------------------------------------------------------------------
class WindowManager:
    def __init__(self, window_length: int | None) -> None:
        self.window_length = window_length  # for the window start (WindowedBoltExecutor.getWindowStartTs)
        self.queue: list[Event] = []
        self.expired_events: list[Event] = []
        self.prev_window_events: set[Event] = set()
        self.events_since_last_expiry = 0
        self.eviction: WatermarkTimeEviction | WatermarkCountEviction
        self.trigger: WatermarkTimeTrigger | WatermarkCountTrigger
        self.activations: list[Activation] = []
        self.compactions = 0

    def add(self, event: Event) -> None:
        self.queue.append(event)
        self.trigger.track(None)
        self.compact_window()

    def add_watermark(self, ts: int) -> None:
        self.trigger.track(ts)
        self.compact_window()

    def on_trigger(self) -> bool:
        window = self.scan_events(full_scan=True)
        expired, self.expired_events = self.expired_events, []
        if self.eviction.dev.count_in_ts_order:
            expired.sort(key=lambda e: e.seq)  # squall reports expired tuples in arrival order (Storm's scan order)
        window.sort(key=lambda e: e.seq)  # squall lists a window in arrival order (Storm's scan order)
        new = [e for e in window if e not in self.prev_window_events]
        self.prev_window_events = set(window)
        if window:
            end = self.eviction.context.reference_time
            start = end - self.window_length if self.window_length is not None else None
            self.activations.append(
                Activation([e.id for e in window], [e.id for e in new], [e.id for e in expired], start, end)
            )
        return bool(window)

    def compact_window(self) -> None:
        self.events_since_last_expiry += 1
        if self.events_since_last_expiry >= EXPIRE_EVENTS_THRESHOLD:
            self.compactions += 1
            self.scan_events(full_scan=False)

    def scan_events(self, full_scan: bool) -> list[Event]:
        to_expire: list[Event] = []
        to_process: list[Event] = []
        removed: set[int] = set()
        for event in self.eviction.scan_order(self.queue):
            action = self.eviction.evict(event)
            if action is Action.EXPIRE:
                to_expire.append(event)
                removed.add(event.seq)
            elif not full_scan or action is Action.STOP:
                break
            elif action is Action.PROCESS:
                to_process.append(event)
        self.queue = [e for e in self.queue if e.seq not in removed]
        self.expired_events.extend(to_expire)
        self.events_since_last_expiry = 0
        return to_process

    def get_earliest_event_ts(self, start_ts: int, end_ts: int) -> int:
        return min((e.ts for e in self.queue if start_ts < e.ts <= end_ts), default=NO_TS)

    def get_event_count(self, reference_time: int) -> int:
        return sum(1 for e in self.queue if e.ts <= reference_time)

    def get_sliding_count_timestamps(self, start_ts: int, end_ts: int, sliding_count: int) -> list[int]:
        timestamps: list[int] = []
        if end_ts > start_ts:
            count = 0
            ts = -(2**63)
            for e in self.queue:
                if start_ts < e.ts <= end_ts:
                    ts = max(ts, e.ts)
                    count += 1
                    if count % sliding_count == 0:
                        timestamps.append(ts)
        return timestamps


# --- trigger policies -----------------------------------------------------------------------------
class WatermarkTimeTrigger:
    def __init__(self, interval: int, manager: WindowManager, dev: Deviations) -> None:
        self.interval = interval
        self.manager = manager
        self.dev = dev
        self.next_window_end_ts = 0
        self.started = True  # WindowedBoltExecutor.prepare starts it before any tuple

    def _due(self, end: int, watermark: int) -> bool:
        return end < watermark if self.dev.fire_past_end else end <= watermark

    def track(self, watermark: int | None) -> None:
        if not self.started or watermark is None:
            return
        end = self.next_window_end_ts
        while self._due(end, watermark):
            count = self.manager.get_event_count(end)
            self.manager.eviction.set_context(Context(end, current_count=count))
            if self.manager.on_trigger():
                end += self.interval
            else:
                ts = self._next_aligned_window_ts(end, watermark)
                if ts == NO_TS:
                    break
                end = ts
        self.next_window_end_ts = end

    def _next_aligned_window_ts(self, start_ts: int, end_ts: int) -> int:
        next_ts = self.manager.get_earliest_event_ts(start_ts, end_ts)
        if next_ts == NO_TS or next_ts % self.interval == 0:
            return next_ts
        return next_ts + (self.interval - next_ts % self.interval)


class WatermarkCountTrigger:
    def __init__(self, count: int, manager: WindowManager) -> None:
        self.count = count
        self.manager = manager
        self.last_processed_ts = 0
        self.started = True

    def track(self, watermark: int | None) -> None:
        if not self.started or watermark is None:
            return
        for ts in self.manager.get_sliding_count_timestamps(self.last_processed_ts, watermark, self.count):
            self.manager.eviction.set_context(Context(ts, sliding_count=self.count))
            self.manager.on_trigger()
            self.last_processed_ts = ts


# --- the bolt executor with its watermark generator -------------------------------------------------
@dataclass
class StormOracle:
    """An event-time windowed bolt as Storm runs it; tuples are ``(id, ts, stream)``."""

    length: tuple[str, int]  # ("count" | "time", value)
    slide: tuple[str, int]
    lag: int = 0
    watermark_interval: int = 1000
    streams: tuple[str, ...] = ("default",)
    dev: Deviations = STORM
    now: int = 0
    late: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        kind, n = self.length
        self.manager = WindowManager(n if kind == "time" else None)
        if kind == "count":
            self.manager.eviction = WatermarkCountEviction(n, self.dev)
        else:
            self.manager.eviction = WatermarkTimeEviction(n, self.lag, self.dev)
        kind, n = self.slide
        if kind == "count":
            self.manager.trigger = WatermarkCountTrigger(n, self.manager)
        else:
            self.manager.trigger = WatermarkTimeTrigger(n, self.manager, self.dev)
        self.stream_to_ts: dict[str, int] = {}
        self.last_watermark_ts = 0
        self.next_run = self.now + self.watermark_interval
        self._seq = 0

    @property
    def windows(self) -> list[Activation]:
        return self.manager.activations

    def feed(self, tid: int, ts: int, stream: str = "default") -> None:
        """WindowedBoltExecutor.execute: track the timestamp; queue the tuple or report it late."""
        current = self.stream_to_ts.get(stream)
        if current is None or ts > current:
            self.stream_to_ts[stream] = ts
        if ts >= self.last_watermark_ts:
            self.manager.add(Event(tid, ts, self._seq))
            self._seq += 1
        else:
            self.late.append(tid)

    def advance_to(self, t: int) -> None:
        """Processing time moves to ``t``; the generator runs at each of its instants on the way."""
        while self.next_run <= t:
            self.now = self.next_run
            self.run()
            self.next_run += self.watermark_interval
        self.now = t

    def run(self) -> None:
        """WaterMarkEventGenerator.run."""
        ts = self._compute_watermark_ts()
        if ts > self.last_watermark_ts:
            self.manager.add_watermark(ts)
            self.last_watermark_ts = ts

    def _compute_watermark_ts(self) -> int:
        ts = 0
        if len(self.stream_to_ts) >= len(self.streams):
            ts = min(self.stream_to_ts.values())
        return ts - self.lag

    def advance_watermark(self, ts: int) -> None:
        """A watermark from upstream (squall): delivered as a generated one when it moves forward."""
        if ts > self.last_watermark_ts:
            self.manager.add_watermark(ts)
            self.last_watermark_ts = ts

    def close(self) -> None:
        """squall's end of input: one final watermark that fires every window holding a tuple."""
        final = END_OF_TIME
        if self.length[0] == "count" and self.slide[0] == "time":
            if not self.manager.queue:
                return
            reach = 0 if self.dev.fire_past_end else 1  # stop on the first window end holding the newest tuple
            final = max(e.ts for e in self.manager.queue) + self.slide[1] - reach
        self.advance_watermark(final)
