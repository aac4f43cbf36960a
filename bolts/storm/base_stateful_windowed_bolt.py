"""Storm's ``BaseStatefulWindowedBolt``: a windowed bolt whose windows and user state survive restarts."""

from __future__ import annotations

from typing import Any, Self

from bolts.event_time_options import require_type
from bolts.storm.base_windowed_bolt import BaseWindowedBolt


class StateHooks:
    """What Storm's stateful bolts share: ``init_state`` and the commit hooks (mixed into both bases)."""

    def init_state(self, state: Any) -> None:
        """Receive the user state (``KeyValueState``); the default keeps it as ``self.state``."""
        self.state = state

    def pre_prepare(self, txid: int) -> None:
        """Called before the state of batch ``txid`` is gathered for its commit."""

    def pre_commit(self, txid: int) -> None:
        """Called after :meth:`pre_prepare`, before the state of batch ``txid`` is committed."""

    def pre_rollback(self) -> None:
        """Storm's rollback hook; never called: a failed batch's task is rebuilt from the store instead."""


class BaseStatefulWindowedBolt(StateHooks, BaseWindowedBolt):
    """A windowed bolt with user state and recoverable windows.

    ``init_state(state)`` is called once, before any tuple, with the user state as
    of the last committed batch (a ``KeyValueState``; empty on the first run).
    Writes to it are committed with the batch, atomically with the window state.

    Choose how windows recover (one of the two is required, as in Storm):

    - ``with_persistence()``: the window's tuples, the window's system state and
      the user state are saved to the state backend at every commit, writing only
      what changed; the source need not replay anything but the uncommitted batch.
    - ``with_message_id_field(name)``: tuples carry an integer id per input
      stream, checked before a tuple is held. squall stores such a window's
      tuples as a persistent one's (in the harness as on Spark): Spark's sources
      replay only the uncommitted batch, so no source would refill a window that
      kept only ids.
    """

    def with_message_id_field(self, field_name: str) -> Self:
        """Tuples carry an int message id in ``field_name``; the window is stored and recovered as a persistent one."""
        require_type("with_message_id_field", "field_name", field_name, str)
        if not field_name:
            msg = "with_message_id_field: `field_name` must not be empty"
            raise ValueError(msg)
        return self._set(message_id_field=field_name)

    def with_persistence(self) -> Self:
        """Save the window's tuples with the state, so recovery needs no replay."""
        return self._set(persistence=True)

    def with_max_events_in_memory(self, count: int) -> Self:
        """Keep at most ``count`` of a persistent window's tuples in memory; the rest stay in the backend.

        The window's older tuples are kept in pages in the state backend and read
        back a page at a time as the window is iterated, so ``window.iter()`` (in
        timestamp order for time windows) walks a window larger than memory;
        ``get()``, ``get_new()`` and ``get_expired()`` still build lists.
        """
        require_type("with_max_events_in_memory", "count", count, int)
        if count <= 0:
            msg = f"with_max_events_in_memory: `count` must be positive; got {count} instead"
            raise ValueError(msg)
        return self._set(max_events_in_memory=count)

    def validate_recovery(self, component: str = "") -> None:
        """Check that exactly one recovery mode is chosen; ``ValueError`` naming the method, bolt and value.

        ``TopologyBuilder.create_topology()`` calls it for every stateful bolt (so a
        topology with a bad choice never starts), and so does the task when built.
        """
        cfg = self.window_config
        who = f"bolt {component!r} ({type(self).__name__})" if component else type(self).__name__
        if cfg.message_id_field is None and not cfg.persistence:
            msg = (
                f"BaseStatefulWindowedBolt: {who} chooses no way to recover its windows; "
                "call with_message_id_field(name) or with_persistence() (prefer with_persistence() on Spark)"
            )
            raise ValueError(msg)
        if cfg.max_events_in_memory is not None and not cfg.persistence:
            msg = (
                f"with_max_events_in_memory: {cfg.max_events_in_memory} only applies to persistent windows, "
                f"but {who} recovers with with_message_id_field({cfg.message_id_field!r}); "
                "call with_persistence() instead"
            )
            raise ValueError(msg)
        if cfg.message_id_field is not None and cfg.persistence:
            msg = (
                f"with_message_id_field: {cfg.message_id_field!r} and with_persistence() are both set on {who}; "
                "persistent windows need no message ids: keep one"
            )
            raise ValueError(msg)
