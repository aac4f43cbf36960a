"""Triggers made of triggers: each child's state lives under its index (``"0/"``, ``"1/"``...)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

from windowing.triggers.base import Trigger, merge_children, require_trigger
from windowing.triggers.context import TriggerContext


def _children(owner: str, triggers: Iterable[object]) -> tuple[Trigger, ...]:
    children = tuple(require_trigger(owner, f"triggers[{i}]", t) for i, t in enumerate(triggers))
    if not children:
        msg = f"{owner}: needs at least one trigger; got none"
        raise ValueError(msg)
    return children


@dataclass(frozen=True)
class Repeatedly(Trigger):
    """Fires whenever ``trigger`` fires, restarting it each time it finishes; never finishes itself."""

    trigger: Trigger

    def __post_init__(self) -> None:
        require_trigger("Repeatedly", "trigger", self.trigger)

    def on_element(self, ctx: TriggerContext) -> None:
        """Pass the tuple on."""
        self.trigger.on_element(ctx.child(0))

    def on_elements(self, ctx: TriggerContext, count: int) -> None:
        """Pass the tuples on."""
        self.trigger.on_elements(ctx.child(0), count)

    def should_fire(self, ctx: TriggerContext) -> bool:
        """As the child says."""
        return self.trigger.should_fire(ctx.child(0))

    def silent_before_end(self) -> bool:
        """When the child is."""
        return self.trigger.silent_before_end()

    def on_fire(self, ctx: TriggerContext) -> None:
        """Fire the child; restart it when it finished."""
        child = ctx.child(0)
        self.trigger.on_fire(child)
        if child.finished:
            child.clear()

    def on_merge(self, ctx: TriggerContext, sources: list[TriggerContext]) -> None:
        """Merge the child's state; never finished. As Beam's ``RepeatedlyStateMachine.onMerge``, which only delegates.

        A child the merge finished stays so until it fires again (it restarts then).
        """
        ctx.set_finished(False)
        self.trigger.on_merge(ctx.child(0), [s.child(0) for s in sources])


@dataclass(frozen=True, init=False)
class AfterEach(Trigger):
    """Runs its triggers one after the other: fires as the current one does, moves on when it finishes.

    Finishes when the last one finishes. The current trigger is the first one
    not finished. As Beam's ``AfterEachStateMachine``: with windows that do not
    merge only the current trigger sees tuples; with merging windows (sessions)
    every trigger sees them, since a merge may bring a finished one back, and
    each pane clears every trigger's state (not their finished bits).
    """

    triggers: tuple[Trigger, ...]

    def __init__(self, *triggers: Trigger) -> None:
        object.__setattr__(self, "triggers", _children("AfterEach", triggers))

    def _current(self, ctx: TriggerContext) -> int:
        for i in range(len(self.triggers)):
            if not ctx.child(i).finished:
                return i
        return len(self.triggers) - 1

    def on_element(self, ctx: TriggerContext) -> None:
        """Pass the tuple on (see :meth:`on_elements`)."""
        self.on_elements(ctx, 1)

    def on_elements(self, ctx: TriggerContext, count: int) -> None:
        """Pass the tuples to the current trigger; to every trigger when windows merge."""
        if ctx.merging:
            for i, t in enumerate(self.triggers):
                t.on_elements(ctx.child(i), count)
            return
        i = self._current(ctx)
        self.triggers[i].on_elements(ctx.child(i), count)

    def should_fire(self, ctx: TriggerContext) -> bool:
        """As the current trigger says."""
        i = self._current(ctx)
        return self.triggers[i].should_fire(ctx.child(i))

    def silent_before_end(self) -> bool:
        """When every trigger is (none fires, so none finishes and the first stays current)."""
        return all(t.silent_before_end() for t in self.triggers)

    def on_fire(self, ctx: TriggerContext) -> None:
        """Fire the current trigger (the next one becomes current when it finished); finish after the last.

        With merging windows every trigger's state is then cleared, finished bits kept.
        """
        i = self._current(ctx)
        self.triggers[i].on_fire(ctx.child(i))
        if ctx.merging:
            for j in range(len(self.triggers)):
                ctx.child(j).clear_state()
        if all(ctx.child(j).finished for j in range(len(self.triggers))):
            ctx.set_finished()

    def on_merge(self, ctx: TriggerContext, sources: list[TriggerContext]) -> None:
        """Merge the children up to the first unfinished one, which is current; later ones start empty.

        As Beam's ``AfterEachStateMachine.onMerge``, which clears the children
        after the first one left unfinished by the merge.
        """
        for i, child in enumerate(self.triggers):
            child.on_merge(ctx.child(i), [s.child(i) for s in sources])
            if not ctx.child(i).finished:
                break
        ctx.set_finished(all(ctx.child(j).finished for j in range(len(self.triggers))))


@dataclass(frozen=True, init=False)
class _Parallel(Trigger):
    """Triggers that run side by side; ``combine_op`` decides firing and finishing."""

    triggers: tuple[Trigger, ...]
    combine_op: ClassVar[Callable[[Iterable[bool]], bool]]
    finished_child_fires: ClassVar[bool]

    def __init__(self, *triggers: Trigger) -> None:
        object.__setattr__(self, "triggers", _children(type(self).__name__, triggers))

    def on_element(self, ctx: TriggerContext) -> None:
        """Pass the tuple to every unfinished child."""
        self.on_elements(ctx, 1)

    def on_elements(self, ctx: TriggerContext, count: int) -> None:
        """Pass the tuples to every unfinished child."""
        for i, t in enumerate(self.triggers):
            if not ctx.child(i).finished:
                t.on_elements(ctx.child(i), count)

    def should_fire(self, ctx: TriggerContext) -> bool:
        """Combine the children's answers (a finished child answers ``finished_child_fires``)."""
        answers = []
        for i, t in enumerate(self.triggers):
            child = ctx.child(i)
            answers.append(self.finished_child_fires if child.finished else t.should_fire(child))
        return type(self).combine_op(answers)

    def silent_before_end(self) -> bool:
        """When every child is (none fires before the end, so none has finished)."""
        return all(t.silent_before_end() for t in self.triggers)

    def on_fire(self, ctx: TriggerContext) -> None:
        """Fire the children that are ready; finish as ``combine_op`` says of the children's finishing."""
        for i, t in enumerate(self.triggers):
            child = ctx.child(i)
            if not child.finished and t.should_fire(child):
                t.on_fire(child)
        if type(self).combine_op(ctx.child(i).finished for i in range(len(self.triggers))):
            ctx.set_finished()

    def on_merge(self, ctx: TriggerContext, sources: list[TriggerContext]) -> None:
        """Merge every child, then finish as ``combine_op`` says."""
        merge_children(self.triggers, ctx, sources)
        ctx.set_finished(type(self).combine_op(ctx.child(i).finished for i in range(len(self.triggers))))


@dataclass(frozen=True, init=False)
class AfterAny(_Parallel):
    """Fires when any of its triggers fires; finishes when any of them finishes."""

    combine_op = any
    finished_child_fires = False


@dataclass(frozen=True, init=False)
class AfterAll(_Parallel):
    """Fires once all of its triggers are ready (finished ones count as ready); finishes when all have finished."""

    combine_op = all
    finished_child_fires = True
