"""What a trigger sees of one window: its state (namespaced per child), the watermark and the time.

Triggers hold no state of their own. Everything lives in a plain ``dict`` of the
window (strings to msgpack-able values) under the trigger's prefix: the root
uses ``""``, a composite's children ``"0/"``, ``"1/"``, ... so that nesting needs
no special code. The window's processing-time timers are a list the runtime owns.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

FINISHED = "finished"


class TriggerResult(Enum):
    """What consulting a trigger decided."""

    CONTINUE = "continue"
    FIRE = "fire"
    FIRE_AND_FINISH = "fire_and_finish"

    @property
    def fires(self) -> bool:
        """Whether a pane is due."""
        return self is not TriggerResult.CONTINUE


class TriggerContext:
    """One window's trigger state seen at one instant, under one prefix."""

    __slots__ = ("_prefix", "_state", "_timers", "merging", "now", "watermark", "window_end")

    def __init__(
        self,
        state: dict[str, Any],
        *,
        window_end: int,
        watermark: int,
        now: int,
        timers: list[int] | None = None,
        prefix: str = "",
        merging: bool = False,
    ) -> None:
        self._state = state
        self._timers = timers if timers is not None else []
        self._prefix = prefix
        self.window_end = window_end
        self.watermark = watermark
        self.now = now
        self.merging = merging  # the windows may merge (sessions), as Beam's TriggerContext.isMerging()

    def child(self, index: int) -> TriggerContext:
        """The context of child ``index``: its state lives under ``"<prefix><index>/"``."""
        return TriggerContext(
            self._state, window_end=self.window_end, watermark=self.watermark, now=self.now,
            timers=self._timers, prefix=f"{self._prefix}{index}/", merging=self.merging,
        )

    def get(self, name: str, default: Any = None) -> Any:
        """The value stored as ``name`` under this prefix."""
        return self._state.get(self._prefix + name, default)

    def set(self, name: str, value: Any) -> None:
        """Store ``value`` as ``name`` under this prefix."""
        self._state[self._prefix + name] = value

    def clear(self) -> None:
        """Forget everything under this prefix (this trigger's and its children's state)."""
        for name in [k for k in self._state if k.startswith(self._prefix)]:
            del self._state[name]

    def clear_state(self) -> None:
        """Forget this trigger's and its children's state but keep their finished bits (Beam's ``invokeClear``)."""
        for name in [k for k in self._state if k.startswith(self._prefix) and not k.endswith(FINISHED)]:
            del self._state[name]

    @property
    def finished(self) -> bool:
        """Whether this trigger has finished (it will not fire again)."""
        return bool(self.get(FINISHED, False))

    def set_finished(self, value: bool = True) -> None:
        """Mark this trigger finished (or not)."""
        self.set(FINISHED, value)

    @property
    def end_of_window_passed(self) -> bool:
        """Whether the watermark has reached the window's (exclusive) end."""
        return self.watermark >= self.window_end

    def set_timer(self, at: int) -> None:
        """Ask to be consulted again when processing time reaches ``at``."""
        self._timers.append(at)
