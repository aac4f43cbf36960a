"""Joins an eviction policy and a trigger policy, and activates windows."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from windowing.storm.block_buffer import BlockBuffer
from windowing.storm.blocks import Block
from windowing.storm.event import Event, RowEvent, RowSource
from windowing.storm.expired import Expired
from windowing.storm.membership import Membership, membership_from_data, membership_to_data
from windowing.storm.policies.eviction_policy import EvictionPolicy
from windowing.storm.policies.trigger_policy import TriggerPolicy
from windowing.storm.tuple_window import TupleWindow

T = TypeVar("T")


class WindowLifecycleListener(Protocol[T]):
    """Receives window activations and expired tuples."""

    def on_activation(self, window: TupleWindow[T]) -> None:
        """A window with at least one tuple is ready; called once per activation."""
        ...

    def on_expiry(self, events: Expired) -> None:
        """These events left the window for good (called at each evaluation)."""
        ...


class WindowManager(Generic[T]):
    """Holds events, lets the trigger decide when to evaluate, and activates windows.

    Each evaluation asks the eviction policy for the window; an empty window is
    not activated (as in Storm, and the tuples that expired at that evaluation are
    then reported to ``on_expiry`` but not in any window's ``get_expired()``).
    ``get_new()`` of an activation compares with the previous evaluation's window.
    """

    def __init__(self, listener: WindowLifecycleListener[T], window_length_ms: int | None = None) -> None:
        self.listener = listener
        self.window_length_ms = window_length_ms
        self.eviction: EvictionPolicy
        self.trigger: TriggerPolicy
        self._next_seq = 0
        self._previous: Membership | None = None
        self.activations = 0
        # The Arrow schema of the spout blocks seen last, by field names: to_arrow() of a window holding
        # built tuples types its columns as the blocks were (pyarrow would infer int64 for an int32 column).
        self.arrow_schemas: dict[tuple[str, ...], Any] = {}

    def set_policies(self, eviction: EvictionPolicy, trigger: TriggerPolicy) -> None:
        """Attach the policies (they are built with this manager as their handler)."""
        self.eviction = eviction
        self.trigger = trigger

    def add(self, value: T, ts: int) -> Event[T]:
        """Add a tuple with timestamp ``ts`` and return its event; a count trigger may fire at once."""
        event = Event(value, ts, self._next_seq)
        self._next_seq += 1
        self.eviction.add(event)
        self.trigger.track(event)
        return event

    def add_all(self, values: Sequence[T], stamps: Sequence[int]) -> list[Event[T]]:
        """Add tuples given in arrival order with their timestamps, at once; return their events.

        The events and the held state are those of :meth:`add` one by one, but the
        trigger does not see the tuples: use it only when the trigger never fires
        on a tuple (every trigger but the processing-time count trigger, see
        :attr:`windowing.WindowSpec.fires_on_arrival`).
        """
        if len(values) != len(stamps):
            msg = f"WindowManager.add_all: {len(values)} values but {len(stamps)} timestamps"
            raise ValueError(msg)
        return self._add_events(list(map(Event, values, stamps, self._next_seqs(len(values)))))

    def add_rows(self, source: RowSource[T], rows: Any, stamps: Any) -> list[Event[T]] | Block:
        """:meth:`add_all` of rows ``rows`` of a columnar block, their values built only when a window reads them.

        ``rows`` are increasing row numbers (None: every row of the block) and
        ``stamps`` their timestamps (sequences or ``int64`` arrays). Where the
        eviction policy holds rows as arrays, they go in as one :class:`Block`
        (returned) with no object per row; otherwise as row events (returned).
        """
        n = len(source.table) if rows is None else len(rows)  # type: ignore[arg-type]
        if n != len(stamps):
            msg = f"WindowManager.add_rows: {n} rows but {len(stamps)} timestamps"
            raise ValueError(msg)
        index = None if rows is None else np.asarray(rows, np.int64)
        block = Block(self._next_seq, n, source=source, rows=index)
        if n and self.eviction.add_block(block, np.asarray(stamps, np.int64)):
            self._next_seq += n
            return block
        rows = range(n) if rows is None else rows
        stamps = stamps.tolist() if isinstance(stamps, np.ndarray) else stamps
        rows = rows.tolist() if isinstance(rows, np.ndarray) else rows
        return self._add_events(list(map(RowEvent, repeat(source), rows, stamps, self._next_seqs(n))))

    def _next_seqs(self, n: int) -> range:
        first = self._next_seq
        self._next_seq = first + n
        return range(first, first + n)

    def _add_events(self, events: list[Event[T]]) -> list[Event[T]]:
        """Hold new events, in arrival order, at once."""
        self.eviction.add_all(events)
        return events

    def add_watermark(self, ts: int) -> None:
        """Pass a watermark to the trigger; every window it completes fires."""
        self.trigger.track_watermark(ts)

    def on_trigger(self) -> bool:
        """Evaluate the window; activate it if it holds tuples. Returns whether it did."""
        scan = self.eviction.scan()
        expired = self.eviction.expired
        self.eviction.expired = Expired()
        if expired:
            self.listener.on_expiry(expired)
        previous = self._previous
        if scan.size == 0:
            self._previous = None
            self.trigger.reset()
            self._compact()
            return False
        self._previous = scan.membership
        context = self.eviction.context
        end = context.reference_time if context is not None else None
        start = end - self.window_length_ms if end is not None and self.window_length_ms is not None else None
        window: TupleWindow[T] = TupleWindow(
            scan, previous, expired, start, end, self.eviction.tracks_changes, self.arrow_schemas
        )
        self.activations += 1
        try:
            self.listener.on_activation(window)
        finally:
            window.close()
        self.trigger.reset()
        self._compact()
        return True

    def _compact(self) -> None:
        """After an evaluation (its expired rows reported): columnar blocks mostly expired keep only their live rows."""
        buffer = getattr(self.eviction, "buffer", None)
        if isinstance(buffer, BlockBuffer):
            buffer.compact_blocks()

    # Queries the watermark triggers make (Storm's WindowManager has the same three).
    def event_count(self, ts: int) -> int:
        """Number of held events at or before ``ts``."""
        return self.eviction.count_up_to(ts)

    def earliest_event_ts(self, after: int, up_to: int) -> int | None:
        """Smallest held timestamp in ``(after, up_to]``."""
        return self.eviction.earliest_ts(after, up_to)

    def sliding_count_timestamps(self, after: int, up_to: int, count: int) -> list[int]:
        """Window ends for event-time count triggers."""
        return self.eviction.sliding_count_timestamps(after, up_to, count)

    @property
    def next_seq(self) -> int:
        """The sequence number the next event gets."""
        return self._next_seq

    def held(self) -> list[Event[Any]]:
        """Every held event, in arrival order."""
        return self.eviction.held_events()

    def pending_expired(self) -> list[Event[Any]]:
        """Events that left the window since the last evaluation (reported at the next one)."""
        return list(self.eviction.expired)

    def state(self) -> dict[str, Any]:
        """The manager's and its policies' numbers, as plain data (held events are saved apart)."""
        return {
            "next_seq": self._next_seq,
            "previous": membership_to_data(self._previous),
            "activations": self.activations,
            "eviction": self.eviction.state(),
            "trigger": self.trigger.state(),
        }

    def restore(
        self, state: dict[str, Any], held: list[Event[Any]], expired: list[Event[Any]],
        blocks: Sequence[tuple[Block, Any]] = (),
    ) -> None:
        """Rebuild from :meth:`state`, the held events and the expired events not yet reported.

        ``blocks`` are held columnar blocks, each with its rows' timestamps.
        """
        self._next_seq = state["next_seq"]
        self._previous = membership_from_data(state["previous"])
        self.activations = state["activations"]
        self.eviction.restore(state["eviction"], held, expired, blocks)
        self.trigger.restore(state["trigger"])
