"""The trigger protocol every trigger implements, and :func:`evaluate`, which the runtime calls."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from windowing.triggers.context import TriggerContext, TriggerResult


class Trigger(ABC):
    """Base of all triggers: immutable configuration, state only through the context."""

    def on_element(self, ctx: TriggerContext) -> None:  # noqa: B027 - most triggers ignore elements
        """A tuple was added to the window."""

    def on_elements(self, ctx: TriggerContext, count: int) -> None:
        """``count`` tuples were added at once (a columnar batch): the same as ``count`` calls of :meth:`on_element`.

        Triggers are consulted only between batches, so the calls see one
        state; triggers that count override this to add ``count`` at once.
        """
        if type(self).on_element is Trigger.on_element:
            return  # the trigger ignores elements
        for _ in range(count):
            self.on_element(ctx)

    @abstractmethod
    def should_fire(self, ctx: TriggerContext) -> bool:
        """Whether the window should emit a pane now."""

    @abstractmethod
    def on_fire(self, ctx: TriggerContext) -> None:
        """The window fired because :meth:`should_fire` said so; update state, maybe set finished."""

    def on_merge(self, ctx: TriggerContext, sources: list[TriggerContext]) -> None:
        """Build this trigger's state in a merged window from the merged windows' states.

        ``sources`` are the open windows merged (a closed window does not merge and
        the new proto-session has no state), as in Beam's
        ``TriggerStateMachineRunner.onMerge``. The default (for triggers with no
        state beyond ``finished``): finished only when finished in every source.
        """
        ctx.set_finished(all(s.finished for s in sources))

    def silent_before_end(self) -> bool:
        """Whether, in windows that do not merge, it cannot fire while the watermark is before the window's end.

        Whatever the tuples, the processing time and the timers: consulting it
        then is CONTINUE and changes no state, so the runtime may skip those
        consultations (a batch's windows not yet complete). False unless a
        trigger knows better: the default trigger, ``Never``, ``AfterWatermark``
        without ``early``, and composites of such triggers.
        """
        return False

    def or_finally(self, until: Trigger) -> OrFinally:
        """``OrFinally(self, until)``: fire as this trigger does, and finish for good when ``until`` fires."""
        return OrFinally(self, until)


def require_trigger(owner: str, name: str, value: object) -> Trigger:
    """Return ``value`` when it is a trigger; ``TypeError`` naming the owner and the value otherwise."""
    if not isinstance(value, Trigger):
        hint = " (did you pass the class instead of an instance, e.g. AfterCount instead of AfterCount(1)?)"
        extra = hint if isinstance(value, type) else ""
        msg = f"{owner}: `{name}` must be a Trigger; got {value!r} ({type(value).__name__}) instead{extra}"
        raise TypeError(msg)
    return value


def evaluate(trigger: Trigger, ctx: TriggerContext) -> TriggerResult:
    """Consult ``trigger`` for one window: CONTINUE, FIRE, or FIRE_AND_FINISH (the window then closes)."""
    if ctx.finished or not trigger.should_fire(ctx):
        return TriggerResult.CONTINUE
    trigger.on_fire(ctx)
    return TriggerResult.FIRE_AND_FINISH if ctx.finished else TriggerResult.FIRE


def merge_children(children: tuple[Trigger, ...], ctx: TriggerContext, sources: list[TriggerContext]) -> None:
    """Merge each child's state in ``ctx`` from the same child's state in ``sources``."""
    for i, child in enumerate(children):
        child.on_merge(ctx.child(i), [s.child(i) for s in sources])


# OrFinally lives beside Trigger because every trigger builds one (``or_finally``); the other composites
# import this module, never the reverse.
@dataclass(frozen=True)
class OrFinally(Trigger):
    """Fires as ``trigger`` does; when ``until`` fires, fires a last pane and finishes (``t.or_finally(until)``)."""

    trigger: Trigger
    until: Trigger

    def __post_init__(self) -> None:
        require_trigger("OrFinally", "trigger", self.trigger)
        require_trigger("OrFinally", "until", self.until)

    def on_element(self, ctx: TriggerContext) -> None:
        """Both children see the tuple."""
        self.on_elements(ctx, 1)

    def on_elements(self, ctx: TriggerContext, count: int) -> None:
        """Both children see the tuples."""
        self.trigger.on_elements(ctx.child(0), count)
        self.until.on_elements(ctx.child(1), count)

    def should_fire(self, ctx: TriggerContext) -> bool:
        """When either child would fire."""
        return self.trigger.should_fire(ctx.child(0)) or self.until.should_fire(ctx.child(1))

    def on_fire(self, ctx: TriggerContext) -> None:
        """Finish when ``until`` fired or ``trigger`` finished."""
        if self.until.should_fire(ctx.child(1)):
            self.until.on_fire(ctx.child(1))
            ctx.set_finished()
            return
        self.trigger.on_fire(ctx.child(0))
        if ctx.child(0).finished:
            ctx.set_finished()

    def silent_before_end(self) -> bool:
        """When both children are."""
        return self.trigger.silent_before_end() and self.until.silent_before_end()

    def on_merge(self, ctx: TriggerContext, sources: list[TriggerContext]) -> None:
        """Merge both children; finished when either is (a once-trigger finished in a source stays finished)."""
        merge_children((self.trigger, self.until), ctx, sources)
        ctx.set_finished(ctx.child(0).finished or ctx.child(1).finished)
