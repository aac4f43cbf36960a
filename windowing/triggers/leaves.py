"""The basic triggers: watermark, count, processing time, never, and the default."""

from __future__ import annotations

from dataclasses import dataclass, field

from windowing.duration import Duration, as_duration
from windowing.triggers.base import Trigger, require_trigger
from windowing.triggers.composites import Repeatedly
from windowing.triggers.context import TriggerContext

# The phase is kept as a finished bit, as Beam Java keeps it as its early child's: clearing the trigger's
# state (``TriggerContext.clear_state``, Beam's ``TriggerStateMachine.clear``, which ``AfterEach`` does to
# every child in merging windows) keeps it; only a reset (``TriggerContext.clear``) forgets it.
ON_TIME_FIRED = "on_time_finished"


@dataclass(frozen=True)
class Never(Trigger):
    """Never fires; the window still emits its final pane when its state is garbage-collected."""

    def should_fire(self, ctx: TriggerContext) -> bool:
        """Never."""
        return False

    def on_fire(self, ctx: TriggerContext) -> None:
        """Not reached."""

    def silent_before_end(self) -> bool:
        """Yes: it never fires."""
        return True


@dataclass(frozen=True)
class DefaultTrigger(Trigger):
    """Fires when the watermark passes the end of the window, then again for each late batch.

    It never finishes, so late tuples keep firing panes until the window is
    garbage-collected (end plus allowed lateness). A consultation with no new data
    after the on-time pane emits nothing.
    """

    def should_fire(self, ctx: TriggerContext) -> bool:
        """Whether the watermark is at or past the window's end."""
        return ctx.end_of_window_passed

    def on_fire(self, ctx: TriggerContext) -> None:
        """Keeps firing."""

    def silent_before_end(self) -> bool:
        """Yes: it fires only once the watermark is at or past the end."""
        return True


@dataclass(frozen=True)
class AfterCount(Trigger):
    """Fires once the window has ``n`` tuples since the trigger started (Beam's ``AfterCount``), then finishes."""

    n: int

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, int):
            msg = f"AfterCount: `n` must be an int; got {self.n!r} ({type(self.n).__name__}) instead"
            raise TypeError(msg)
        if self.n < 1:
            msg = f"AfterCount: `n` must be at least 1; got {self.n} instead"
            raise ValueError(msg)

    def on_element(self, ctx: TriggerContext) -> None:
        """Count the tuple."""
        ctx.set("count", ctx.get("count", 0) + 1)

    def on_elements(self, ctx: TriggerContext, count: int) -> None:
        """Count the tuples."""
        ctx.set("count", ctx.get("count", 0) + count)

    def should_fire(self, ctx: TriggerContext) -> bool:
        """Whether ``n`` tuples have arrived."""
        return bool(ctx.get("count", 0) >= self.n)

    def on_fire(self, ctx: TriggerContext) -> None:
        """Finish."""
        ctx.set_finished()

    def on_merge(self, ctx: TriggerContext, sources: list[TriggerContext]) -> None:
        """Finished when finished in any source; otherwise the merged window has the tuples of all sources.

        As Beam's ``AfterPaneStateMachine.onMerge`` (``finishedInAnyMergingWindow``).
        """
        if any(s.finished for s in sources):
            ctx.set_finished()
            return
        ctx.set_finished(False)
        ctx.set("count", sum(s.get("count", 0) for s in sources))


@dataclass(frozen=True)
class AfterProcessingTime(Trigger):
    """Fires ``delay`` of processing time after the first tuple since the trigger started, then finishes.

    Processing time is the injected clock (moved by ``advance``/``advance_to``).
    """

    delay: Duration
    delay_ms: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "delay", as_duration("AfterProcessingTime", "delay", self.delay))
        if not isinstance(self.delay, Duration):
            msg = f"AfterProcessingTime: `delay` must be a Duration; got {self.delay!r} instead"
            raise TypeError(msg)
        if self.delay.value < 0:
            msg = f"AfterProcessingTime: `delay` must not be negative; got {self.delay!r} instead"
            raise ValueError(msg)
        object.__setattr__(self, "delay_ms", self.delay.value)

    def on_element(self, ctx: TriggerContext) -> None:
        """Start the delay at the first tuple."""
        if ctx.get("deadline") is None:
            ctx.set("deadline", ctx.now + self.delay_ms)
            ctx.set_timer(ctx.now + self.delay_ms)

    def on_elements(self, ctx: TriggerContext, count: int) -> None:
        """Only the first tuple matters."""
        if count:
            self.on_element(ctx)

    def should_fire(self, ctx: TriggerContext) -> bool:
        """Whether the delay has passed."""
        deadline = ctx.get("deadline")
        return deadline is not None and ctx.now >= deadline

    def on_fire(self, ctx: TriggerContext) -> None:
        """Finish, forgetting the deadline (Beam's ``onOnlyFiring`` clears the delay)."""
        ctx.set("deadline", None)
        ctx.set_finished()

    def on_merge(self, ctx: TriggerContext, sources: list[TriggerContext]) -> None:
        """Not finished, with the earliest deadline of the sources: it comes back even where it had fired.

        As Beam's ``AfterDelayFromFirstElementStateMachine.onMerge``, which merges
        the sources' delays and looks only at the merged window's own finished
        bit; that window is new, so the bit is clear (only ``AfterCount`` asks
        whether it finished in any merged window). A source where it fired has
        no delay left (cleared when it fired), so it adds none.
        """
        ctx.set_finished(False)
        deadlines = [s.get("deadline") for s in sources if s.get("deadline") is not None]
        if deadlines:
            ctx.set("deadline", min(deadlines))
            ctx.set_timer(min(deadlines))


@dataclass(frozen=True, init=False)
class AfterWatermark(Trigger):
    """Fires when the watermark passes the end of the window (the ON_TIME pane).

    ``early`` fires repeatedly before that, ``late`` repeatedly after it, for
    tuples within the allowed lateness. Each runs as ``Repeatedly(...)``: its
    state restarts when it *finishes*, which is after every pane it fires when
    it is a once-trigger (``AfterCount``, ``AfterProcessingTime``, the only kind
    Beam Java accepts there); a child that fires without finishing, such as
    ``AfterEach(AfterCount(1), AfterCount(2))`` after its first pane, keeps its
    state, as in Beam Python, which wraps both in ``Repeatedly`` too.
    Without ``late`` the trigger finishes with the on-time pane and the window
    closes. Children's state: ``early`` under ``0/``, ``late`` under ``1/``.
    """

    early: Trigger | None = None
    late: Trigger | None = None
    _early: Trigger | None = field(default=None, repr=False, compare=False)
    _late: Trigger | None = field(default=None, repr=False, compare=False)

    def __init__(self, early: Trigger | None = None, late: Trigger | None = None) -> None:
        for name, value in (("early", early), ("late", late)):
            if value is not None:
                require_trigger("AfterWatermark", name, value)
        object.__setattr__(self, "early", early)
        object.__setattr__(self, "late", late)
        object.__setattr__(self, "_early", Repeatedly(early) if early is not None else None)
        object.__setattr__(self, "_late", Repeatedly(late) if late is not None else None)

    def on_element(self, ctx: TriggerContext) -> None:
        """Pass the tuple to the phase's child."""
        self.on_elements(ctx, 1)

    def on_elements(self, ctx: TriggerContext, count: int) -> None:
        """Pass the tuples to the phase's child; to both children in merging windows.

        As Beam's ``AfterWatermarkEarlyAndLate.onElement``: a merge may take a
        window back to its early phase, so with sessions the early child keeps
        counting (or its delay running) in the late phase too, and the late one
        in the early phase (cleared at the on-time pane).
        """
        if ctx.merging:
            if self._early is not None:
                self._early.on_elements(ctx.child(0), count)
            if self._late is not None:
                self._late.on_elements(ctx.child(1), count)
        elif not ctx.get(ON_TIME_FIRED, False):
            if self._early is not None:
                self._early.on_elements(ctx.child(0), count)
        elif self._late is not None:
            self._late.on_elements(ctx.child(1), count)

    def should_fire(self, ctx: TriggerContext) -> bool:
        """On time when the watermark passed the end; otherwise as the phase's child says."""
        if not ctx.get(ON_TIME_FIRED, False):
            if ctx.end_of_window_passed:
                return True
            return self._early is not None and self._early.should_fire(ctx.child(0))
        return self._late is not None and self._late.should_fire(ctx.child(1))

    def on_fire(self, ctx: TriggerContext) -> None:
        """Move from early to late at the on-time pane; finish there when there is no late trigger."""
        if not ctx.get(ON_TIME_FIRED, False):
            if ctx.end_of_window_passed:
                ctx.child(0).clear()
                ctx.child(1).clear()  # it ran in parallel in merging windows
                self._finish_early(ctx, True)
                ctx.set(ON_TIME_FIRED, True)
                if self._late is None:
                    ctx.set_finished()
            elif self._early is not None:
                self._early.on_fire(ctx.child(0))
        elif self._late is not None:
            self._late.on_fire(ctx.child(1))

    def silent_before_end(self) -> bool:
        """Without ``early``: before the end it is in its early phase, where only ``early`` fires."""
        return self._early is None

    def on_merge(self, ctx: TriggerContext, sources: list[TriggerContext]) -> None:
        """Late phase only when every source was and the watermark is past the merged window's end.

        As Beam's ``AfterWatermarkEarlyAndLate.onMerge``: in the early phase the
        early child merges and the late one starts empty; in the late phase the
        late child merges. Without ``late`` it is finished only in the late phase
        (it had finished in every source, and the merged window's end is passed).
        """
        on_time = all(s.get(ON_TIME_FIRED, False) for s in sources) and ctx.end_of_window_passed
        ctx.set(ON_TIME_FIRED, on_time)
        ctx.set_finished(on_time and self._late is None)
        index, child = (1, self._late) if on_time else (0, self._early)
        if child is not None:
            child.on_merge(ctx.child(index), [s.child(index) for s in sources])
        self._finish_early(ctx, on_time)

    def _finish_early(self, ctx: TriggerContext, value: bool) -> None:
        """Set the early once-trigger's finished bit, where Beam Java keeps the phase.

        Set at the on-time pane, cleared by a merge back to the early phase. An
        ``AfterCount`` sees it when it merges (``finishedInAnyMergingWindow``: a
        part in its late phase clears the count).
        """
        if self._early is not None:
            ctx.child(0).child(0).set_finished(value)
