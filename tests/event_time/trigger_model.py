"""A brute-force model of squall's triggers and of the panes of a ``WindowedAggregateBolt``.

Written apart from ``windowing/trigger_*.py`` and ``bolts/aggregate_*.py`` on purpose, in another
style: no trigger objects with state, no namespaced dict. A trigger is a plain tuple tree
(:func:`tree_of`), and what it does is recomputed *from scratch* from the full history of one
window every time it is asked:

- a history is a tuple of :class:`Arrival` (a tuple was added to the window, at processing time
  ``now``) and :class:`Look` (the window was consulted at ``now`` with watermark ``watermark``;
  ``fired`` says whether this node fired there, ``None`` for the consultation being decided);
- :func:`ready` says whether a node fires at the consultation that ends a history,
  :func:`finished` whether it has finished after a history of decided consultations, and
  :func:`deadlines` which processing-time timers it asked for;
- a composite derives each child's own history from its history (which arrivals and
  consultations the child saw and whether it fired at each), calling the same three functions on
  the children's histories. Results are memoised, so the brute force stays cheap.

The semantics are Beam's (Java ``*StateMachine`` classes and Python ``trigger.py``), generalised
as squall documents it to children that are not once-triggers:

- ``AfterCount(n)``: ready once the node saw ``n`` arrivals; finishes when fired.
- ``AfterProcessingTime(d)``: ready once processing time reaches the first arrival's time plus
  ``d`` (squall fires *at* the instant; Beam's ``AfterDelayFromFirstElementStateMachine`` uses
  ``isAfter``, and its timers fire after their instant too, so that is the same shift on both
  sides); finishes when fired.
- ``AfterWatermark()``: ready when the watermark reached the window's end; finishes when fired.
  With ``early``/``late``: before the on-time firing, arrivals go to ``Repeatedly(early)``, which
  fires while the end is not reached; the on-time firing takes precedence; then arrivals go to
  ``Repeatedly(late)`` (without ``late`` the on-time firing finishes). As Beam's
  ``AfterWatermarkEarlyAndLate`` and Python's ``AfterWatermark``.
- ``Never``: never ready. ``DefaultTrigger``: ready whenever the end is reached; never finishes.
- ``Repeatedly(t)``: ready as ``t``; ``t`` starts afresh (a new history) after it finishes.
- ``AfterEach(t1, ...)``: only the current child sees arrivals and consultations; the next one
  starts with an empty history after the current one finishes; finishes after the last.
- ``AfterAny``/``AfterAll``: all unfinished children see everything; ready when any/all are
  (a finished child counts as not ready/ready); a firing fires every ready child; finishes when
  any/all children have finished.
- ``OrFinally(t, until)``: both children see everything; ready when either is; when ``until`` is
  ready the firing is ``until``'s and the node finishes; otherwise ``t`` fires and the node
  finishes when ``t`` has.

:func:`expected_output` then replays a whole harness run (batches, processing time, watermarks,
``close``) for fixed, sliding or global windows and lists the panes the bolt must emit.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from windowing.triggers import (
    AfterAll,
    AfterAny,
    AfterCount,
    AfterEach,
    AfterProcessingTime,
    AfterWatermark,
    DefaultTrigger,
    Never,
    OrFinally,
    Repeatedly,
)

END_OF_TIME = 2**63 - 1
MIN_TIMESTAMP = -(2**63)


# Trigger trees ------------------------------------------------------------------------------------
def tree_of(trigger: Any) -> tuple[Any, ...]:
    """The trigger as a plain tuple tree, read from its public fields only."""
    match trigger:
        case AfterCount():
            return ("count", trigger.n)
        case AfterProcessingTime():
            return ("delay", trigger.delay.value)
        case AfterWatermark():
            early = None if trigger.early is None else tree_of(trigger.early)
            late = None if trigger.late is None else tree_of(trigger.late)
            return ("watermark", early, late)
        case Never():
            return ("never",)
        case DefaultTrigger():
            return ("default",)
        case Repeatedly():
            return ("repeat", tree_of(trigger.trigger))
        case AfterEach():
            return ("each", tuple(tree_of(t) for t in trigger.triggers))
        case AfterAny():
            return ("any", tuple(tree_of(t) for t in trigger.triggers))
        case AfterAll():
            return ("all", tuple(tree_of(t) for t in trigger.triggers))
        case OrFinally():
            return ("until", tree_of(trigger.trigger), tree_of(trigger.until))
    raise TypeError(f"no model for {trigger!r}")


# Histories ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Arrival:
    """A tuple joined the window at processing time ``now``."""

    now: int


@dataclass(frozen=True)
class Look:
    """The window was consulted; ``fired``: whether the node fired there (None: being decided)."""

    now: int
    watermark: int
    fired: bool | None = None

    def decided(self, fired: bool) -> Look:
        return Look(self.now, self.watermark, fired)

    def pending(self) -> Look:
        return Look(self.now, self.watermark, None)


History = tuple[Arrival | Look, ...]


@dataclass(frozen=True)
class Replay:
    """What a composite's decided history says: finished or not, and its children's histories.

    ``current``: ``(child tree, child history)`` of the children that would be asked at the next
    consultation (a finished child of AfterAny/AfterAll appears with ``None`` as its history).
    ``every``: every child history there ever was (restarted children included), for timers.
    """

    finished: bool
    current: tuple[tuple[Any, History | None], ...]
    every: tuple[tuple[Any, History], ...]
    late_phase: bool = False


def _arrivals(hist: History) -> list[Arrival]:
    return [e for e in hist if isinstance(e, Arrival)]


def _looks(hist: History) -> list[Look]:
    return [e for e in hist if isinstance(e, Look)]


@lru_cache(maxsize=400_000)
def ready(tree: tuple[Any, ...], end: int, hist: History) -> bool:
    """Whether the node fires at the consultation that ends ``hist`` (it must not have finished)."""
    look = hist[-1]
    assert isinstance(look, Look) and look.fired is None, hist
    past = hist[:-1]
    kind = tree[0]
    if kind == "count":
        return len(_arrivals(past)) >= tree[1]
    if kind == "delay":
        arrivals = _arrivals(past)
        return bool(arrivals) and look.now >= arrivals[0].now + tree[1]
    if kind == "default":
        return look.watermark >= end
    if kind == "never":
        return False
    replay = _replay(tree, end, past)
    assert not replay.finished, (tree, hist)
    asked = [None if h is None else ready(t, end, (*h, look)) for t, h in replay.current]
    if kind == "watermark":
        if not replay.late_phase:
            return look.watermark >= end or bool(asked and asked[0])
        return bool(asked and asked[0])
    if kind in ("repeat", "each"):
        return asked[0]
    if kind == "any":
        return any(a is True for a in asked)
    if kind == "all":
        return all(a is None or a for a in asked)
    if kind == "until":
        return asked[0] or asked[1]
    raise ValueError(tree)


@lru_cache(maxsize=400_000)
def finished(tree: tuple[Any, ...], end: int, hist: History) -> bool:
    """Whether the node has finished after ``hist`` (decided consultations only)."""
    kind = tree[0]
    if kind in ("count", "delay"):
        return any(look.fired for look in _looks(hist))
    if kind in ("default", "never"):
        return False
    return _replay(tree, end, hist).finished


@lru_cache(maxsize=400_000)
def deadlines(tree: tuple[Any, ...], end: int, hist: History) -> tuple[int, ...]:
    """Every processing-time instant the node asked to be consulted at, sorted (a multiset)."""
    kind = tree[0]
    if kind == "delay":
        arrivals = _arrivals(hist)
        return (arrivals[0].now + tree[1],) if arrivals else ()
    if kind in ("count", "default", "never"):
        return ()
    out: list[int] = []
    for child, child_hist in _replay(tree, end, hist).every:
        out.extend(deadlines(child, end, child_hist))
    return tuple(sorted(out))


@lru_cache(maxsize=400_000)
def _replay(tree: tuple[Any, ...], end: int, hist: History) -> Replay:
    """Walk a composite's decided history and split it into its children's histories."""
    kind = tree[0]
    if kind == "repeat":
        return _replay_repeat(tree[1], end, hist)
    if kind == "each":
        return _replay_each(tree[1], end, hist)
    if kind in ("any", "all"):
        return _replay_parallel(tree[1], end, hist, any if kind == "any" else all)
    if kind == "until":
        return _replay_until(tree[1], tree[2], end, hist)
    if kind == "watermark":
        return _replay_watermark(tree[1], tree[2], end, hist)
    raise ValueError(tree)


def _replay_repeat(child: Any, end: int, hist: History) -> Replay:
    lives: list[list[Arrival | Look]] = [[]]
    for event in hist:
        lives[-1].append(event)  # the child fires exactly when Repeatedly does
        if isinstance(event, Look) and event.fired and finished(child, end, tuple(lives[-1])):
            lives.append([])  # it starts again with nothing seen
    every = tuple((child, tuple(life)) for life in lives)
    return Replay(False, (every[-1],), every)


def _replay_each(children: tuple[Any, ...], end: int, hist: History) -> Replay:
    lives: list[list[Arrival | Look]] = [[]]
    for event in hist:
        i = len(lives) - 1
        lives[-1].append(event)
        if isinstance(event, Look) and event.fired and finished(children[i], end, tuple(lives[-1])):
            if i + 1 == len(children):
                every = tuple((children[j], tuple(life)) for j, life in enumerate(lives))
                return Replay(True, (), every)
            lives.append([])
    every = tuple((children[j], tuple(life)) for j, life in enumerate(lives))
    return Replay(False, (every[-1],), every)


def _replay_parallel(children: tuple[Any, ...], end: int, hist: History, combine: Any) -> Replay:
    lives: list[list[Arrival | Look]] = [[] for _ in children]
    done = [False] * len(children)
    over = False
    for event in hist:
        if isinstance(event, Arrival):
            for j in range(len(children)):
                if not done[j]:
                    lives[j].append(event)
            continue
        fired_now = [
            bool(event.fired) and ready(children[j], end, (*lives[j], event.pending())) if not done[j] else False
            for j in range(len(children))
        ]
        for j in range(len(children)):
            if not done[j]:
                lives[j].append(event.decided(fired_now[j]))
                done[j] = finished(children[j], end, tuple(lives[j]))
        if event.fired and combine(done):
            over = True
            break
    every = tuple((children[j], tuple(life)) for j, life in enumerate(lives))
    current = () if over else tuple((children[j], None if done[j] else tuple(lives[j])) for j in range(len(children)))
    return Replay(over, current, every)


def _replay_until(main: Any, until: Any, end: int, hist: History) -> Replay:
    first: list[Arrival | Look] = []
    second: list[Arrival | Look] = []
    over = False
    for event in hist:
        if isinstance(event, Arrival):
            first.append(event)
            second.append(event)
            continue
        if event.fired and ready(until, end, (*second, event.pending())):
            first.append(event.decided(False))
            second.append(event.decided(True))
            over = True  # until fired: the last pane
            break
        first.append(event)  # the main trigger fired if the node did
        second.append(event.decided(False))
        if event.fired and finished(main, end, tuple(first)):
            over = True
            break
    every = ((main, tuple(first)), (until, tuple(second)))
    return Replay(over, () if over else every, every)


def _replay_watermark(early: Any, late: Any, end: int, hist: History) -> Replay:
    before: list[Arrival | Look] = []
    after: list[Arrival | Look] = []
    on_time_fired = False
    for event in hist:
        if on_time_fired:
            after.append(event)
        elif isinstance(event, Look) and event.fired and event.watermark >= end:
            on_time_fired = True  # the on-time firing; the early child is dropped
            if late is None:
                every = ((("repeat", early), tuple(before)),) if early is not None else ()
                return Replay(True, (), every, late_phase=True)
        else:
            before.append(event)
    every: list[tuple[Any, History]] = []
    if early is not None:
        every.append((("repeat", early), tuple(before)))
    if late is not None:
        every.append((("repeat", late), tuple(after)))
    if on_time_fired:
        current = ((("repeat", late), tuple(after)),)
    else:
        current = ((("repeat", early), tuple(before)),) if early is not None else ()
    return Replay(False, current, tuple(every), late_phase=on_time_fired)


def clear_caches() -> None:
    """Forget the memoised results (they only depend on their arguments; this just frees memory)."""
    for fn in (ready, finished, deadlines, _replay):
        fn.cache_clear()


# The bolt -------------------------------------------------------------------------------------------
@dataclass
class _Window:
    key: str
    start: int
    end: int
    seq: int
    hist: list[Arrival | Look] = field(default_factory=list)
    closed: bool = False
    total: int = 0
    since_last: int = 0
    fresh: bool = False  # data not yet emitted
    early_data: bool = False  # got data while the watermark was before its end
    timings: list[str] = field(default_factory=list)
    last: tuple[Any, ...] | None = None
    timers: list[int] = field(default_factory=list)
    asked: Counter[int] = field(default_factory=Counter)


def windows_of(assigner: tuple[Any, ...], ts: int) -> list[tuple[int, int]]:
    """``("fixed", size)``, ``("sliding", size, period)`` or ``("global",)``: the windows of ``ts``, oldest first."""
    if assigner[0] == "fixed":
        size = assigner[1]
        return [(s, s + size) for s in range(ts - size + 1, ts + 1) if s % size == 0]
    if assigner[0] == "sliding":
        size, period = assigner[1], assigner[2]
        return [(s, s + size) for s in range(ts - size + 1, ts + 1) if s % period == 0]
    return [(MIN_TIMESTAMP, END_OF_TIME)]


@dataclass
class Run:
    """What the bolt must emit for a run, and its drop counters."""

    panes: list[tuple[Any, ...]]
    late_tuples: int
    closed_window_drops: int


def expected_output(
    trigger: Any,
    assigner: tuple[Any, ...],
    mode: str,
    lateness: int,
    steps: list[tuple[str, Any]],
) -> Run:
    """Replay ``steps`` as the harness would and list the panes ``(key, start, end, value, ts, pane, retraction)``.

    ``mode``: ``"discarding"``, ``"accumulating"`` or ``"retracting"``. Steps: ``("feed", rows)``
    (tuples fed one by one; the batch stays open), ``("batch", rows)`` (``feed_batch``),
    ``("advance", ms)``, ``("watermark", ts)``; ``close()`` follows the last step. Rows are
    ``(key, ts, v)``. Only upstream watermarks move the watermark (the bolt's own lag is huge).

    At garbage collection a window whose trigger does not fire emits a final pane when it holds data
    not yet emitted, or when that pane is its ON_TIME pane (it emitted only EARLY panes), as Beam's
    Java runner does: ``ReduceFnRunner.onTimers`` calls ``onTrigger(isFinished=true)`` and
    ``needToEmit`` keeps an empty ON_TIME pane under the default ``OnTimeBehavior.FIRE_ALWAYS``.
    """
    clear_caches()
    tree = tree_of(trigger)
    out: list[tuple[Any, ...]] = []
    live: dict[tuple[str, int, int], _Window] = {}
    dirty: list[tuple[str, int, int]] = []
    clock = {"now": 0, "wm": 0, "seq": 0, "late": 0, "closed_drops": 0}

    def timing_of(w: _Window) -> tuple[str, int]:
        # Beam's PaneInfoTracker: LATE after any non-early pane, EARLY before the end, then the
        # one ON_TIME pane if the window had data before the watermark passed its end, else LATE.
        settled = sum(t != "EARLY" for t in w.timings)
        if settled:
            return "LATE", settled
        if clock["wm"] < w.end:
            return "EARLY", -1
        return ("ON_TIME" if w.early_data else "LATE"), 0

    def emit(w: _Window, is_last: bool) -> None:
        timing, nonspeculative = timing_of(w)
        if not w.fresh and timing != "ON_TIME":
            return  # nothing new, and not the on-time pane: nothing to say
        value = w.since_last if mode == "discarding" else w.total
        pane = (timing, len(w.timings), nonspeculative, is_last)
        ts = w.end - 1
        if mode == "retracting" and w.last is not None:
            out.append((w.key, w.start, w.end, *w.last, True))
        out.append((w.key, w.start, w.end, value, ts, pane, False))
        w.last = (value, ts, pane)
        w.timings.append(timing)
        w.fresh = False
        w.since_last = 0

    def consult(w: _Window, collect: bool) -> None:
        if not w.closed:
            look = Look(clock["now"], clock["wm"])
            fire = ready(tree, w.end, (*w.hist, look))
            w.hist.append(look.decided(fire))
            if fire:
                done = finished(tree, w.end, tuple(w.hist))
                emit(w, is_last=done or collect)
                w.closed = done
            elif collect:
                emit(w, is_last=True)  # emits nothing when not fresh, unless the pane is ON_TIME
        if collect:
            del live[(w.key, w.start, w.end)]

    def collectable(w: _Window) -> bool:
        return w.end + lateness <= clock["wm"] or clock["wm"] >= END_OF_TIME

    def end_batch() -> None:
        touched, dirty[:] = list(dirty), []
        for wid in touched:
            if wid in live:
                consult(live[wid], collectable(live[wid]))

    def add(key: str, ts: int, v: int) -> None:
        targets = []
        for start, end in windows_of(assigner, ts):
            if end + lateness <= clock["wm"]:
                continue  # beyond the allowed lateness
            if (key, start, end) not in live:
                live[(key, start, end)] = _Window(key, start, end, clock["seq"])
                clock["seq"] += 1
            targets.append(live[(key, start, end)])
        if not targets:
            clock["late"] += 1
            return
        open_ones = [w for w in targets if not w.closed]
        if not open_ones:
            clock["closed_drops"] += 1
        for w in open_ones:
            w.total += v
            w.since_last += v
            w.fresh = True
            w.early_data = w.early_data or clock["wm"] < w.end
            w.hist.append(Arrival(clock["now"]))
            asked = Counter(deadlines(tree, w.end, tuple(w.hist)))
            w.timers.extend((asked - w.asked).elements())
            w.asked = asked
            if (w.key, w.start, w.end) not in dirty:
                dirty.append((w.key, w.start, w.end))

    def advance_to(target: int) -> None:
        end_batch()
        while True:
            pending = [t for w in live.values() for t in w.timers]
            if not pending or min(pending) > target:
                break
            due = max(min(pending), clock["now"])
            clock["now"] = due
            for w in sorted((w for w in live.values() if w.timers and min(w.timers) <= due), key=lambda w: w.seq):
                w.timers = [t for t in w.timers if t > due]
                consult(w, False)
        clock["now"] = target

    def move_watermark(new: int) -> None:
        old = clock["wm"]
        if new <= old:
            return
        clock["wm"] = new
        due = [w for w in live.values() if old < w.end <= new or collectable(w) or new >= END_OF_TIME]
        for w in sorted(due, key=lambda w: (w.end, w.seq)):
            consult(w, collectable(w))

    for kind, arg in steps:
        if kind in ("feed", "batch"):
            for key, ts, v in arg:
                add(key, ts, v)
            if kind == "batch":
                end_batch()
        elif kind == "advance":
            advance_to(clock["now"] + arg)
        elif kind == "watermark":
            end_batch()
            move_watermark(arg)
        else:
            raise ValueError(kind)
    end_batch()
    move_watermark(END_OF_TIME)
    return Run(out, clock["late"], clock["closed_drops"])
