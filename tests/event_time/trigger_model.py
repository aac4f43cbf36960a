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
  starts with an empty history after the current one finishes; finishes after the last. With
  merging windows (sessions), as Beam's ``AfterEachStateMachine``: every child sees every arrival,
  the current one (the first unfinished) the consultations, and each firing clears every child
  (:class:`Cleared`), their finished bits kept.
- ``AfterAny``/``AfterAll``: all unfinished children see everything; ready when any/all are
  (a finished child counts as not ready/ready); a firing fires every ready child; finishes when
  any/all children have finished.
- ``OrFinally(t, until)``: both children see everything; ready when either is; when ``until`` is
  ready the firing is ``until``'s and the node finishes; otherwise ``t`` fires and the node
  finishes when ``t`` has.

:func:`expected_output` then replays a whole harness run (batches, processing time, watermarks,
``close``) for fixed, sliding, global, session or KIP-450 windows and lists the panes the bolt must emit.

Merging sessions add a third kind of event, :class:`Merged`, which starts the history of a session
made by a merge and holds the histories of its parts; each node says what it keeps of them. Since
issue 14 this is Beam's Java rule: only the ACTIVE (open) windows merge (a closed window is not
active, and the new proto-window has no state), a finished ``AfterCount`` stays finished
(``AfterPaneStateMachine.onMerge``: ``finishedInAnyMergingWindow``), an ``AfterProcessingTime``
never is (``AfterDelayFromFirstElementStateMachine.onMerge`` checks the new window's own bit),
``Repeatedly`` only merges its child, ``AfterEach`` merges its children up to the first unfinished one and
clears the rest (``AfterEachStateMachine.onMerge``), and ``AfterWatermark`` stays in its late phase
when every part was in it and the merged window's end is passed (``AfterWatermarkEarlyAndLate.onMerge``).
With sessions ``AfterWatermark``'s children both see every arrival (``AfterWatermarkEarlyAndLate.onElement``);
the on-time firing sets an early leaf's finished bit (:class:`Finish`, Java's phase), which a merge back
to the early phase clears again (:class:`Unfinish`) after the leaf merged (an ``AfterCount`` then drops
the parts' counts).

KIP-450 windows (``("td", d)``) are derived from the key's records: the left window ``[t - d, t]``
of each record and the right window ``[t + 1, t + d + 1]`` of each record with a later one within
``d``; a window is created when a record first calls for it, holding the records already in it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
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
def tree_of(trigger: Any, merging: bool = False) -> tuple[Any, ...]:
    """The trigger as a plain tuple tree, read from its public fields only.

    ``merging``: the windows merge (sessions); ``AfterEach`` then runs as Beam's does there.
    """

    def sub(t: Any) -> tuple[Any, ...]:
        return tree_of(t, merging)

    match trigger:
        case AfterCount():
            return ("count", trigger.n)
        case AfterProcessingTime():
            return ("delay", trigger.delay.value)
        case AfterWatermark():
            early = None if trigger.early is None else sub(trigger.early)
            late = None if trigger.late is None else sub(trigger.late)
            return ("watermark", early, late, merging)
        case Never():
            return ("never",)
        case DefaultTrigger():
            return ("default",)
        case Repeatedly():
            return ("repeat", sub(trigger.trigger))
        case AfterEach():
            return ("each", tuple(sub(t) for t in trigger.triggers), merging)
        case AfterAny():
            return ("any", tuple(sub(t) for t in trigger.triggers))
        case AfterAll():
            return ("all", tuple(sub(t) for t in trigger.triggers))
        case OrFinally():
            return ("until", sub(trigger.trigger), sub(trigger.until))
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


@dataclass(frozen=True)
class Merged:
    """The window was made by merging open windows; ``parts``: ``(end, history)`` of this node in each of them.

    Only ever the first event of a history; ``watermark``: the watermark at the merge. Node by node
    (Beam's Java ``*StateMachine.onMerge``): ``AfterCount`` is finished when it finished in any part,
    else it counts the tuples of all parts; ``AfterProcessingTime`` is not finished and keeps the
    parts' earliest deadline; ``AfterWatermark`` is in its late phase when every part was and the
    watermark is past the merged end (then its late child merges and the early one is dropped;
    otherwise the early child merges and the late one starts empty); ``AfterEach`` merges its
    children up to the first one left unfinished, later ones start empty; ``Repeatedly`` only
    merges its child; ``AfterAny``/``AfterAll``/``OrFinally`` merge every child and finish as
    their children say. A child's state in a part is its latest history there.
    """

    parts: tuple[Any, ...]
    watermark: int = 0


@dataclass(frozen=True)
class Finish:
    """An early once-trigger's finished bit was set: ``AfterWatermark``'s on-time pane (Beam Java keeps its phase
    there); its state was cleared. In merging windows only, where the early child keeps seeing tuples."""


@dataclass(frozen=True)
class Unfinish:
    """After a merge, an early once-trigger's finished bit was cleared (a merge back to the early phase)."""


@dataclass(frozen=True)
class Cleared:
    """The node's state was cleared, its finished bits kept (``AfterEach`` in merging windows, at each pane).

    Only ever the first event of a history; ``prior``: the history it had. A leaf counts and waits
    afresh but stays finished when it was; a composite starts each child from that child's
    ``Cleared`` state, and stays finished when it was; ``AfterWatermark`` stays in its late phase
    (Beam Java keeps the phase as its early child's finished bit, which ``TriggerStateMachine.clear``
    keeps).
    """

    prior: tuple[Any, ...]


History = tuple[Arrival | Look | Merged | Cleared | Finish | Unfinish, ...]


@dataclass(frozen=True)
class Replay:
    """What a composite's decided history says: finished or not, and its children's histories.

    ``current``: ``(child tree, child history)`` of the children that would be asked at the next
    consultation (a finished child of AfterAny/AfterAll appears with ``None`` as its history).
    ``every``: every child history there ever was (restarted children included), for timers.
    ``state``: per slot (:func:`_slots`), the child history that holds its state now.
    """

    finished: bool
    current: tuple[tuple[Any, History | None], ...]
    every: tuple[tuple[Any, History], ...]
    late_phase: bool = False
    state: tuple[History, ...] = ()  # each slot's latest history, what a merge starts that slot from


def _arrivals(hist: History) -> list[Arrival]:
    return [e for e in hist if isinstance(e, Arrival)]


def _looks(hist: History) -> list[Look]:
    return [e for e in hist if isinstance(e, Look)]


def _count(tree: tuple[Any, ...], hist: History) -> int:
    """How many tuples an ``AfterCount`` holds after ``hist``: its arrivals, plus the parts' counts after a merge
    (none when it finished in a part: ``AfterPaneStateMachine.onMerge`` clears the count then)."""
    n = 0
    for event in hist:
        if isinstance(event, Arrival):
            n += 1
        elif isinstance(event, Finish):
            n = 0  # cleared at the on-time pane
        elif isinstance(event, Merged) and not _finished_in_a_part(tree, hist):
            n += sum(_count(tree, part) for _, part in event.parts)
    return n  # a Cleared start counts nothing


def _finished_before_clear(tree: tuple[Any, ...], end: int, hist: History) -> bool:
    """Whether ``hist`` starts with a clear of a node that had finished (the bit is kept)."""
    return bool(hist) and isinstance(hist[0], Cleared) and finished(tree, end, hist[0].prior)


def _finished_in_a_part(tree: tuple[Any, ...], hist: History) -> bool:
    """Whether ``hist`` starts with a merge of a part where this ``AfterCount`` had finished
    (``finishedInAnyMergingWindow``; ``AfterProcessingTime`` does not ask: a merged window is new)."""
    return bool(hist) and isinstance(hist[0], Merged) and any(finished(tree, e, part) for e, part in hist[0].parts)


def _deadline(delay: int, hist: History) -> int | None:
    """When an ``AfterProcessingTime(delay)`` is due after ``hist``: the first arrival plus the delay, or
    after a merge the earliest deadline of the parts (the first arrival after it when they had none);
    none after it fired, until an arrival sets one again."""
    due: int | None = None
    for event in hist:
        if isinstance(event, Merged):
            found = [d for d in (_deadline(delay, part) for _, part in event.parts) if d is not None]
            due = min(found) if found else None
        elif isinstance(event, Arrival) and due is None:
            due = event.now + delay
        elif (isinstance(event, Look) and event.fired) or isinstance(event, Finish):
            due = None  # firing clears the delay (onOnlyFiring), so does the on-time pane
    return due


def _slots(tree: tuple[Any, ...]) -> tuple[Any, ...]:
    """A composite's children in squall's order; AfterWatermark's are ``Repeatedly(early)`` and
    ``Repeatedly(late)`` (None when not given)."""
    kind = tree[0]
    if kind == "repeat":
        return (tree[1],)
    if kind in ("each", "any", "all"):
        return tree[1]
    if kind == "until":
        return (tree[1], tree[2])
    if kind == "watermark":
        return tuple(None if t is None else ("repeat", t) for t in (tree[1], tree[2]))
    raise ValueError(tree)


@lru_cache(maxsize=400_000)
def ready(tree: tuple[Any, ...], end: int, hist: History) -> bool:
    """Whether the node fires at the consultation that ends ``hist`` (it must not have finished)."""
    look = hist[-1]
    assert isinstance(look, Look) and look.fired is None, hist
    past = hist[:-1]
    kind = tree[0]
    if kind == "count":
        return _count(tree, past) >= tree[1]
    if kind == "delay":
        due = _deadline(tree[1], past)
        return due is not None and look.now >= due
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
        fired = any(look.fired for look in _looks(hist)) or any(isinstance(e, Finish) for e in hist)
        unfinished = len(hist) > 1 and isinstance(hist[1], Unfinish)  # reset right after the merge
        carried = _finished_in_a_part(tree, hist) if kind == "count" else False
        return (not unfinished and (carried or _finished_before_clear(tree, end, hist))) or fired
    if kind in ("default", "never"):
        return False
    return _replay(tree, end, hist).finished


@lru_cache(maxsize=400_000)
def deadlines(tree: tuple[Any, ...], end: int, hist: History) -> tuple[int, ...]:
    """Every processing-time instant the node asked to be consulted at, sorted (a multiset).

    After a merge that includes the merged deadline of every leaf with one, current or not.
    """
    kind = tree[0]
    if kind == "delay":
        due = _deadline(tree[1], hist)
        return () if due is None else (due,)
    if kind in ("count", "default", "never"):
        return ()
    out: list[int] = []
    for child, child_hist in _replay(tree, end, hist).every:
        out.extend(deadlines(child, end, child_hist))
    return tuple(sorted(out))


@lru_cache(maxsize=400_000)
def _replay(tree: tuple[Any, ...], end: int, hist: History) -> Replay:
    """Walk a composite's decided history and split it into its children's histories.

    A history that starts with a merge starts each slot's child from the merge of that slot's
    state in every part; without one every child starts with an empty history.
    """
    slots = _slots(tree)
    start: list[list[Arrival | Look | Merged | Cleared]] = [[] for _ in slots]
    late = False
    if hist and isinstance(hist[0], Cleared):
        prior = _replay(tree, end, hist[0].prior)
        start = [[Cleared(prior.state[i])] for i in range(len(slots))]
        # AfterWatermark's phase is a finished bit in Beam Java (its early child's): clearing keeps it.
        replay = _replay_from(tree, end, start, hist[1:], prior.late_phase)
        if prior.finished and not replay.finished:
            return Replay(True, (), replay.every, state=replay.state)
        return replay
    if hist and isinstance(hist[0], Merged):
        merge, hist = hist[0], hist[1:]
        replays = [_replay(tree, e, part) for e, part in merge.parts]
        start = [
            [Merged(tuple((e, r.state[i]) for (e, _), r in zip(merge.parts, replays, strict=True)), merge.watermark)]
            for i in range(len(slots))
        ]
        late = all(r.late_phase for r in replays) and merge.watermark >= end
    return _replay_from(tree, end, start, hist, late)


def _replay_from(tree: tuple[Any, ...], end: int, start: list[list[Any]], hist: History, late: bool) -> Replay:
    kind = tree[0]
    if kind == "repeat":
        return _replay_repeat(tree[1], end, start, hist)
    if kind == "each":
        if tree[2]:
            return _replay_each_merging(tree[1], end, start, hist)
        return _replay_each(tree[1], end, start, hist)
    if kind in ("any", "all"):
        return _replay_parallel(tree[1], end, start, hist, any if kind == "any" else all)
    if kind == "until":
        return _replay_until(tree[1], tree[2], end, start, hist)
    if kind == "watermark":
        return _replay_watermark(tree[1], tree[2], tree[3], end, start, hist, late)
    raise ValueError(tree)


def _frozen(lives: list[list[Any]]) -> tuple[History, ...]:
    return tuple(tuple(life) for life in lives)


def _replay_repeat(child: Any, end: int, start: list[list[Any]], hist: History) -> Replay:
    lives: list[list[Arrival | Look | Merged]] = [start[0]]  # a child the merge finished stays so until it fires
    for event in hist:
        lives[-1].append(event)  # the child fires exactly when Repeatedly does
        if isinstance(event, Look) and event.fired and finished(child, end, tuple(lives[-1])):
            lives.append([])  # it starts again with nothing seen
    every = tuple((child, tuple(life)) for life in lives)
    return Replay(False, (every[-1],), every, state=(every[-1][1],))


def _replay_each(children: tuple[Any, ...], end: int, start: list[list[Any]], hist: History) -> Replay:
    # One life per child: the current one sees everything; the next starts from what it holds
    # (nothing, or its merged state after a merge) when the current one finishes.
    lives = start
    i = 0
    while i < len(children) and lives[i] and finished(children[i], end, tuple(lives[i])):
        i += 1  # finished by the merge
    for j in range(i + 1, len(children)):
        lives[j] = []  # after the first unfinished child, children start empty
    over = i == len(children)
    i = min(i, len(children) - 1)
    for event in hist:
        if over:
            break
        lives[i].append(event)
        if isinstance(event, Look) and event.fired and finished(children[i], end, tuple(lives[i])):
            if i + 1 == len(children):
                over = True
                break
            i += 1
    every = tuple(zip(children, _frozen(lives), strict=True))
    return Replay(over, () if over else (every[i],), every, state=_frozen(lives))


def _replay_each_merging(children: tuple[Any, ...], end: int, start: list[list[Any]], hist: History) -> Replay:
    # Merging windows (AfterEachStateMachine): every child sees every arrival, the current one (the first
    # unfinished) the consultations; each firing clears every child, finished bits kept.
    lives = start
    i = 0
    while i < len(children) and lives[i] and finished(children[i], end, tuple(lives[i])):
        i += 1
    for j in range(i + 1, len(children)):
        lives[j] = []  # after the first child the merge left unfinished, children start empty
    every: list[tuple[Any, History]] = []

    def current() -> int | None:
        return next((j for j in range(len(children)) if not finished(children[j], end, tuple(lives[j]))), None)

    over = current() is None
    for event in hist:
        if over:
            break
        if isinstance(event, Arrival):
            for life in lives:
                life.append(event)
            continue
        k = current()
        assert k is not None
        lives[k].append(event)
        if event.fired:
            every.extend(zip(children, _frozen(lives), strict=True))
            lives = [[Cleared(tuple(life))] for life in lives]
            over = current() is None
    every.extend(zip(children, _frozen(lives), strict=True))
    k = current()
    now = () if over or k is None else ((children[k], tuple(lives[k])),)
    return Replay(over, now, tuple(every), state=_frozen(lives))


def _replay_parallel(
    children: tuple[Any, ...], end: int, start: list[list[Any]], hist: History, combine: Any
) -> Replay:
    lives = start
    done = [finished(children[j], end, tuple(lives[j])) for j in range(len(children))]
    over = combine(done)  # a merge can finish the node
    for event in hist:
        if over:
            break
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
    every = tuple(zip(children, _frozen(lives), strict=True))
    current = () if over else tuple((children[j], None if done[j] else tuple(lives[j])) for j in range(len(children)))
    return Replay(over, current, every, state=_frozen(lives))


def _replay_until(main: Any, until: Any, end: int, start: list[list[Any]], hist: History) -> Replay:
    first, second = start
    over = finished(main, end, tuple(first)) or finished(until, end, tuple(second))  # by a merge
    for event in hist:
        if over:
            break
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
    return Replay(over, () if over else every, every, state=(tuple(first), tuple(second)))


def _replay_watermark(
    early: Any, late: Any, merging: bool, end: int, start: list[list[Any]], hist: History, late_phase: bool
) -> Replay:
    # After a merge: the late phase (late child merged) when every part was in it and the end is
    # passed, else the early phase (early child merged, late child empty). In merging windows both
    # children see every tuple (AfterWatermarkEarlyAndLate.onElement): the late one's early-phase
    # life only asks for timers (cleared at the on-time pane); the early one's late-phase life starts
    # with its finished bit (a leaf's, Java's phase) and is what a merge back to the early phase merges.
    leaf = early is not None and early[0] in ("count", "delay")
    before, after = ([], start[1]) if late_phase else (start[0], [])
    if merging and leaf and not late_phase and start[0] and isinstance(start[0][0], Merged):
        before.append(Unfinish())
    early_after: list[Any] = [Finish()] if leaf and late_phase else []
    late_before: list[Any] = []
    on_time_fired = late_phase
    over = late_phase and late is None
    for event in hist:
        if on_time_fired:
            after.append(event)
            if merging and isinstance(event, Arrival):
                early_after.append(event)
        elif isinstance(event, Look) and event.fired and event.watermark >= end:
            on_time_fired = True  # the on-time firing; the early child is dropped
            early_after = [Finish()] if leaf else []
            if late is None:
                over = True
                break
        else:
            before.append(event)
            if merging and isinstance(event, Arrival):
                late_before.append(event)
    every: list[tuple[Any, History]] = []
    if early is not None:
        every.append((("repeat", early), tuple(before)))
        if merging and on_time_fired:
            every.append((("repeat", early), tuple(early_after)))
    if late is not None:
        every.append((("repeat", late), tuple(after)))
        if merging and late_before:
            every.append((("repeat", late), tuple(late_before)))
    if over:
        current: tuple[tuple[Any, History | None], ...] = ()
    elif on_time_fired:
        current = ((("repeat", late), tuple(after)),)
    else:
        current = ((("repeat", early), tuple(before)),) if early is not None else ()
    state = ((tuple(early_after) if merging else ()) if on_time_fired else tuple(before), tuple(after))
    return Replay(over, current, tuple(every), late_phase=on_time_fired, state=state)


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
    hist: list[Arrival | Look | Merged] = field(default_factory=list)
    closed: bool = False
    total: int = 0
    since_last: int = 0
    fresh: bool = False  # data not yet emitted
    batch_tuples: int = 0  # tuples added since the window was last consulted
    panes: int = 0  # panes emitted (the next pane's index)
    nonspeculative: int = -1  # the last ON_TIME/LATE pane's nonspeculative index
    furthest: str | None = None  # the furthest timing emitted: None, EARLY, ON_TIME, LATE
    last: tuple[Any, ...] | None = None
    pending: list[tuple[Any, ...]] = field(default_factory=list)  # retractions of merged-away sessions
    timers: list[int] = field(default_factory=list)
    asked: Counter[int] = field(default_factory=Counter)
    hold: tuple[int, int] | None = None  # earliest and latest timestamp holding the next pane's timestamp
    extra: int | None = None  # the garbage-collection hold


def windows_of(assigner: tuple[Any, ...], ts: int) -> list[tuple[int, int]]:
    """``("fixed", size)``, ``("sliding", size, period)``, ``("global",)`` or ``("sessions", gap)``:
    the windows of ``ts``, oldest first (for sessions, the proto-session)."""
    if assigner[0] == "fixed":
        size = assigner[1]
        return [(s, s + size) for s in range(ts - size + 1, ts + 1) if s % size == 0]
    if assigner[0] == "sliding":
        size, period = assigner[1], assigner[2]
        return [(s, s + size) for s in range(ts - size + 1, ts + 1) if s % period == 0]
    if assigner[0] == "sessions":
        return [(ts, ts + assigner[1])]
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
    combiner: str = "end_of_window",
    closing: str = "fire_if_non_empty",
    on_time: str = "fire_always",
) -> Run:
    """Replay ``steps`` as the harness would and list the panes ``(key, start, end, value, ts, pane, retraction)``.

    ``mode``: ``"discarding"``, ``"accumulating"`` or ``"retracting"``. Steps: ``("feed", rows)``
    (tuples fed one by one; the batch stays open), ``("batch", rows)`` (``feed_batch``),
    ``("advance", ms)``, ``("watermark", ts)``; ``close()`` follows the last step. Rows are
    ``(key, ts, v)``. Only upstream watermarks move the watermark (the bolt's own lag is huge).

    At garbage collection a window whose trigger does not fire gets a final pane, as in Beam's Java
    runner (``ReduceFnRunner.onTimers`` calls ``onTrigger(isFinished=true)``). A pane is emitted
    when it holds data not yet emitted, or (``ReduceFnRunner.needToEmit``) when it is empty and
    ON_TIME under ``on_time="fire_always"`` (the default), or empty and last under
    ``closing="fire_always"``.

    Output timestamps (``WatermarkHold``): ``end - 1`` with the ``end_of_window`` combiner; with
    ``earliest``/``latest``, the earliest/latest timestamp of the tuples added since the last pane
    that were not behind the key's output watermark when they arrived, ``end - 1`` when there is
    none. Holds and timing (``WatermarkHold``, ``PaneInfoTracker.describePane``): a tuple holds at its
    timestamp (``end - 1`` with ``end_of_window``) when that is not behind the key's output watermark
    and the watermark is before the window's end, else adds the garbage-collection hold
    ``end - 1 + lateness`` (unless the watermark passed it); a pane decided, emitted or not, releases
    both, and re-adds the garbage-collection hold under ``closing="fire_always"`` when not last. A
    key's output watermark is the watermark held back by its windows' holds, recomputed after each
    watermark step. A pane is LATE after a non-EARLY pane or once the key's output watermark reached
    the window's end, EARLY while the watermark is before the end, else ON_TIME.

    Sessions (``("sessions", gap)``), as Beam's Java runner merges them: a tuple too late for its
    proto-session ``[ts, ts + gap)`` is a late tuple; closed sessions (trigger finished) take no
    part in merging. A batch's tuples are placed when it ends, after its proto-sessions of a key
    are merged with each other and the open sessions they overlap (touching is not overlapping),
    as ``ReduceFnRunner.processElements`` merges a bundle first: which tuples are dropped does not
    depend on their order. Each tuple goes to its merged session: one that is an open session joins
    it; one with the bounds of a closed session is dropped as Beam drops it, with the open sessions
    it merged (its tuples counted as closed-window drops); otherwise its proto-session and those
    open sessions become one new session: its trigger history starts with :class:`Merged`, its
    value is the sum of theirs, it has new data when any part had, its pane index starts again at 0,
    its element holds are the parts' (with ``end_of_window``, its own end when that may hold), it
    gets its garbage-collection hold, and in
    retracting mode its next pane retracts, first, the parts' pending retractions and last panes
    (parts ordered by start). The new session is a new window: consulted at the end of the batch,
    when the watermark passes its end (not when the watermark had passed it already), and for the
    timers its merged trigger asks for (past ones fire at the next advance).

    KIP-450 windows (``("td", d)``, grace = ``lateness``): see :func:`differences` below. A record is
    kept (it will be in the windows created later that hold it) while ``ts + d + 1 + lateness`` is
    after the watermark, and counted late only when it is not kept (Kafka drops a record only when
    ``ts + 1 + d <= stream time - grace``). A window created with records already in it is touched
    when it is created, so it is consulted at the end of the batch even when the new record is not
    in it (Kafka forwards such a window at once).
    """
    clear_caches()
    tree = tree_of(trigger, merging=assigner[0] == "sessions")
    out: list[tuple[Any, ...]] = []
    live: dict[tuple[str, int, int], _Window] = {}
    dirty: list[tuple[str, int, int]] = []
    pending: list[tuple[str, int, int]] = []  # sessions: the batch's tuples, placed when it ends
    clock = {"now": 0, "wm": 0, "seq": 0, "late": 0, "closed_drops": 0, "out": 0}
    held: dict[str, int] = {}  # each key's output watermark where holds keep it behind clock["out"]
    kept: dict[str, list[tuple[int, int]]] = {}  # KIP-450: each key's accepted records (ts, v)
    made: set[tuple[str, int, int]] = set()  # KIP-450: every window created so far

    def output_wm(key: str) -> int:
        return held.get(key, clock["out"])

    def gc_hold(w: _Window, empty: bool) -> None:
        at = min(w.end - 1 + lateness, END_OF_TIME - 1)
        if at >= clock["wm"] and not (empty and closing == "fire_if_non_empty"):
            w.extra = at if w.extra is None else min(w.extra, at)

    def hold_for(w: _Window, ts: int) -> None:
        at = w.end - 1 if combiner == "end_of_window" else ts
        if at >= output_wm(w.key) and clock["wm"] < w.end:
            w.hold = (at, at) if w.hold is None else (min(w.hold[0], at), max(w.hold[1], at))
        else:
            gc_hold(w, empty=False)

    def holding(w: _Window) -> int | None:
        found = [] if w.hold is None else [w.hold[1] if combiner == "latest" else w.hold[0]]
        found += [] if w.extra is None else [w.extra]
        return min(found, default=None)

    def timing_of(w: _Window) -> tuple[str, int]:
        # Beam's PaneInfoTracker: LATE after any non-early pane or once the key's output watermark passed
        # the window, EARLY while the input watermark is before the end, else the one ON_TIME pane.
        if w.furthest in ("ON_TIME", "LATE") or output_wm(w.key) >= w.end:
            return "LATE", w.nonspeculative + 1
        if clock["wm"] < w.end:
            return "EARLY", -1
        return "ON_TIME", w.nonspeculative + 1

    def emit(w: _Window, is_last: bool) -> None:
        timing, nonspeculative = timing_of(w)
        ts = w.end - 1
        if combiner != "end_of_window" and w.hold is not None:
            ts = w.hold[0] if combiner == "earliest" else w.hold[1]
        w.hold = w.extra = None  # every pane decided releases the holds, emitted or not
        if not is_last:
            gc_hold(w, empty=True)
        if not w.fresh:
            wanted = (timing == "ON_TIME" and on_time == "fire_always") or (is_last and closing == "fire_always")
            if not wanted:
                return  # nothing new, and no behaviour asks for the empty pane
        value = w.since_last if mode == "discarding" else w.total
        pane = (timing, w.panes, nonspeculative, is_last)
        if mode == "retracting":
            out.extend((w.key, *old, True) for old in w.pending)
            w.pending = []
            if w.last is not None:
                out.append((w.key, w.start, w.end, *w.last, True))
        out.append((w.key, w.start, w.end, value, ts, pane, False))
        w.last = (value, ts, pane)
        w.panes += 1
        w.nonspeculative = w.nonspeculative if timing == "EARLY" else nonspeculative
        w.furthest = timing
        w.fresh = False
        w.since_last = 0

    def consult(w: _Window, collect: bool) -> None:
        w.batch_tuples = 0
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
        place_sessions()
        touched, dirty[:] = list(dirty), []
        for wid in touched:
            if wid in live:
                consult(live[wid], collectable(live[wid]))

    def new_window(key: str, start: int, end: int) -> _Window:
        w = live[(key, start, end)] = _Window(key, start, end, clock["seq"])
        clock["seq"] += 1
        return w

    def merge(key: str, proto: tuple[int, int], parts: list[_Window]) -> _Window:
        for p in parts:
            del live[(p.key, p.start, p.end)]
        w = new_window(key, min(proto[0], parts[0].start), max(proto[1], parts[-1].end))
        w.hist = [Merged(tuple((p.end, tuple(p.hist)) for p in parts), clock["wm"])]
        w.closed = finished(tree, w.end, tuple(w.hist))
        w.total = sum(p.total for p in parts)
        w.since_last = sum(p.since_last for p in parts)
        w.fresh = any(p.fresh for p in parts)
        w.batch_tuples = sum(p.batch_tuples for p in parts)
        if combiner == "end_of_window":  # the merged window holds at its own end (WatermarkHold.onMerge)
            if w.end - 1 >= output_wm(key) and clock["wm"] < w.end:
                w.hold = (w.end - 1, w.end - 1)
        else:
            holds = [p.hold for p in parts if p.hold is not None]
            if holds:
                w.hold = (min(h[0] for h in holds), max(h[1] for h in holds))
        gc_hold(w, empty=False)
        for p in parts:
            w.pending.extend(p.pending)
            if p.last is not None:
                w.pending.append((p.start, p.end, *p.last))
        w.asked = Counter(deadlines(tree, w.end, tuple(w.hist)))
        w.timers = list(w.asked.elements())
        return w

    def planned(key: str, protos: list[tuple[int, int]]) -> list[tuple[int, int]]:
        # A batch's proto-sessions of a key merged with each other and the open sessions first (as
        # ReduceFnRunner.processElements merges a bundle's windows before it places any element).
        spans = sorted({*protos, *((w.start, w.end) for w in live.values() if w.key == key and not w.closed)})
        runs: list[tuple[int, int]] = []
        for start, end in spans:
            if runs and start < runs[-1][1]:
                runs[-1] = (runs[-1][0], max(runs[-1][1], end))
            else:
                runs.append((start, end))
        return runs

    def place_sessions() -> None:
        batch, pending[:] = list(pending), []
        runs = {key: planned(key, [windows_of(assigner, ts)[0] for k, ts, _ in batch if k == key])
                for key in {k for k, _, _ in batch}}
        for key, ts, v in batch:
            proto = next(r for r in runs[key] if r[0] <= ts < r[1])
            put([session_of(key, proto)], False, key, ts, v)

    def session_of(key: str, proto: tuple[int, int]) -> _Window | None:
        mine = sorted((w for w in live.values() if w.key == key and not w.closed), key=lambda w: w.start)
        assert all(a.end <= b.start for a, b in pairwise(mine)), "open sessions of a key overlap"
        parts = [w for w in mine if w.start < proto[1] and proto[0] < w.end]
        if len(parts) == 1 and parts[0].start <= proto[0] and proto[1] <= parts[0].end:
            return parts[0]
        bounds = (min(proto[0], parts[0].start), max(proto[1], parts[-1].end)) if parts else proto
        if (key, *bounds) in live:
            # A closed session with these bounds: the open parts merge into it and are lost, their tuples
            # of this batch dropped with this one (testMergingWithClosedRepresentative).
            for p in parts:
                del live[(p.key, p.start, p.end)]
                clock["closed_drops"] += p.batch_tuples
            return live[(key, *bounds)]
        if not parts:
            return new_window(key, *proto)
        return merge(key, proto, parts)

    def differences(key: str, ts: int) -> tuple[list[_Window], bool]:
        # KIP-450: the windows a key's records call for are the left window [t - d, t] of each record
        # and the right window [t + 1, t + d + 1] of each record with a later one within d. The
        # record creates those it newly calls for (its left window, its right window, its
        # predecessor's right window, in that order) unless they are past the lateness, each with
        # the records already in it, which its trigger sees as arrivals now.
        d = assigner[1]
        mine = kept.setdefault(key, [])

        def called_for(times: list[int]) -> set[tuple[int, int]]:
            lefts = {(t - d, t + 1) for t in times}
            rights = {(t + 1, t + d + 2) for t in times if any(t < r <= t + d for r in times)}
            return lefts | rights

        fresh = called_for([t for t, _ in mine] + [ts]) - called_for([t for t, _ in mine])
        order = {(ts - d, ts + 1): 0, (ts + 1, ts + d + 2): 1}
        for start, end in sorted(fresh, key=lambda w: order.get(w, 2)):
            if (key, start, end) in made or end + lateness <= clock["wm"]:
                continue
            made.add((key, start, end))
            w = new_window(key, start, end)
            inside = [v for t, v in mine if start <= t < end]
            for t, _ in mine:
                if start <= t < end:
                    hold_for(w, t)
            w.total = w.since_last = sum(inside)
            w.hist = [Arrival(clock["now"]) for _ in inside]
            if inside:
                w.fresh = True
                w.asked = Counter(deadlines(tree, end, tuple(w.hist)))
                w.timers = list(w.asked.elements())
                dirty.append((key, start, end))  # touched now: consulted at the end of the batch
        targets = sorted((w for w in live.values() if w.key == key and w.start <= ts < w.end), key=lambda w: w.start)
        keep = ts + d + 1 + lateness > clock["wm"]  # some window that can hold it is still within the lateness
        if keep:
            mine.append((ts, v))
        return targets, keep

    def add(key: str, ts: int, v: int) -> None:
        targets: list[_Window] = []
        kept = False  # KIP-450: kept for windows created later, so neither late nor dropped
        if assigner[0] == "td":
            targets, kept = differences(key, ts)
        elif assigner[0] == "sessions":
            start, end = windows_of(assigner, ts)[0]
            if end + lateness > clock["wm"]:  # else the proto-session is beyond the allowed lateness
                pending.append((key, ts, v))  # placed when the batch ends, its sessions merged first
                return
        else:
            for start, end in windows_of(assigner, ts):
                if end + lateness <= clock["wm"]:
                    continue  # beyond the allowed lateness
                if (key, start, end) not in live:
                    new_window(key, start, end)
                targets.append(live[(key, start, end)])
        put(targets, kept, key, ts, v)

    def put(targets: list[_Window], kept: bool, key: str, ts: int, v: int) -> None:
        if not targets:
            clock["late"] += not kept
            return
        open_ones = [w for w in targets if not w.closed]
        if not open_ones:
            clock["closed_drops"] += not kept
        for w in open_ones:
            w.total += v
            w.since_last += v
            w.fresh = True
            w.batch_tuples += 1
            hold_for(w, ts)
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

    def move_output() -> None:
        # Each key's output watermark: the input watermark held back by its windows' holds.
        held.clear()
        clock["out"] = clock["wm"]
        for w in live.values():
            at = holding(w)
            if at is not None and at < output_wm(w.key):
                held[w.key] = at

    def move_watermark(new: int) -> None:
        old = clock["wm"]
        if new > old:
            clock["wm"] = new
            due = [w for w in live.values() if old < w.end <= new or collectable(w) or new >= END_OF_TIME]
            for w in sorted(due, key=lambda w: (w.end, w.seq)):
                consult(w, collectable(w))
        move_output()

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
