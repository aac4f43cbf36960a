"""The eviction policy contract and what one window evaluation yields."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from windowing.storm.block_buffer import BlockBuffer
from windowing.storm.blocks import Block
from windowing.storm.event import Event, seq_key
from windowing.storm.expired import Expired
from windowing.storm.membership import Membership
from windowing.storm.policies.eviction_context import EvictionContext


@dataclass(frozen=True, slots=True)
class WindowScan:
    """The events of one window evaluation, as a slice of a policy's backing list.

    ``source[lo:hi]`` are the window's events; when ``arrival_ordered`` is false the
    slice is in timestamp order and is re-sorted into arrival order on demand.
    The slice is only valid until the policy next changes.
    """

    source: Any  # a list of events, or a paged buffer's view
    lo: int
    hi: int
    arrival_ordered: bool
    membership: Membership

    @property
    def size(self) -> int:
        """Number of events in the window."""
        return self.hi - self.lo

    def iter_events(self) -> Iterator[Event[Any]]:
        """The window's events one at a time, in the buffer's order (arrival order if ``arrival_ordered``)."""
        source = self.source
        if isinstance(source, list):
            return (source[i] for i in range(self.lo, self.hi))
        return source.iter_range(self.lo, self.hi)  # type: ignore[no-any-return]

    def events(self) -> list[Event[Any]]:
        """The window's events in arrival order (a new list)."""
        events = self.source[self.lo : self.hi]
        if not self.arrival_ordered:
            events.sort(key=seq_key)
        return events


class EvictionPolicy(ABC):
    """Decides which held events expire and which form the window at a trigger.

    The policy owns the held events. ``add`` stores one (and may expire old ones at
    once, for count windows), ``add_all`` a batch of them, ``add_block`` a columnar
    block's rows where the policy's buffer holds them as arrays; ``scan`` evaluates
    the window for the current context, moving expired events to :attr:`expired`,
    which the window manager empties at every trigger.
    """

    def __init__(self) -> None:
        self.context: EvictionContext | None = None
        self.expired = Expired()

    @abstractmethod
    def add(self, event: Event[Any]) -> None:
        """Hold a new event."""

    def add_all(self, events: list[Event[Any]]) -> None:
        """Hold new events, given in arrival order, as :meth:`add` one by one would."""
        for event in events:
            self.add(event)

    def add_block(self, block: Block, ts: Any) -> bool:
        """Hold every row of a columnar ``block`` (timestamps ``ts``) without an event per row, if the buffer can.

        Returns False, holding nothing, when it cannot (the caller then adds
        the rows as events); the result is that of :meth:`add_all` of its rows.
        """
        return False

    def set_context(self, context: EvictionContext) -> None:
        """Set the reference point of the next :meth:`scan`."""
        self.context = context

    @abstractmethod
    def scan(self) -> WindowScan:
        """Expire what is out of the window and return the window for the current context."""

    @abstractmethod
    def __len__(self) -> int:
        """Number of events held (in or waiting for a window)."""

    @abstractmethod
    def count_up_to(self, ts: int) -> int:
        """Number of held events with a timestamp at or before ``ts``."""

    @abstractmethod
    def earliest_ts(self, after: int, up_to: int) -> int | None:
        """Smallest held timestamp in ``(after, up_to]``, or None."""

    @abstractmethod
    def sliding_count_timestamps(self, after: int, up_to: int, count: int) -> list[int]:
        """Storm's ``getSlidingCountTimestamps``.

        Walk the held events with a timestamp in ``(after, up_to]`` in arrival order;
        after every ``count``-th, record the largest timestamp seen so far.
        """

    def compact(self) -> None:  # noqa: B027 - only Storm's arrival queue compacts
        """Storm's periodic queue compaction (``WindowManager.compactWindow``).

        squall's own policies expire as tuples arrive or at evaluations, so they
        have nothing to compact; the Storm-exact queue expires its front here.
        """

    def _require_context(self) -> EvictionContext:
        if self.context is None:
            msg = f"{type(self).__name__}.scan: no eviction context; a trigger sets one before it scans"
            raise RuntimeError(msg)
        return self.context

    @abstractmethod
    def held_events(self) -> list[Event[Any]]:
        """Every held event in arrival order (for snapshots and tests)."""

    def state(self) -> dict[str, Any]:
        """The policy's own numbers, as plain data; held events are saved apart."""
        ctx = self.context
        context = None if ctx is None else [ctx.reference_time, ctx.current_count, ctx.sliding_count,
                                            ctx.sliding_interval]
        return {"context": context, **self._own_state()}

    def restore(
        self, state: dict[str, Any], held: Iterable[Event[Any]], expired: Iterable[Event[Any]],
        blocks: Iterable[tuple[Block, Any]] = (),
    ) -> None:
        """Rebuild from :meth:`state`, the held events and the expired events not yet reported.

        ``blocks`` are held columnar blocks, each with its rows' timestamps.
        """
        context = state["context"]
        self.context = None if context is None else EvictionContext(*context)
        self._restore_own_state(state)
        held = list(held)
        for block, ts in blocks:
            if not self._hold_block(block, ts):
                held += block_events(block, ts)
        self._hold_all(sorted(held, key=seq_key))
        self.expired = Expired(sorted(expired, key=seq_key))

    def _hold_all(self, events: list[Event[Any]]) -> None:
        """Hold restored events (in arrival order) as they were held before: :meth:`_hold` of each."""
        for event in events:
            self._hold(event)

    def _hold_block(self, block: Block, ts: Any) -> bool:
        """Hold a restored columnar block as arrays, if the buffer can (else it is held as events)."""
        return False

    @abstractmethod
    def _own_state(self) -> dict[str, Any]:
        """Numbers specific to the policy."""

    @abstractmethod
    def _restore_own_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`_own_state` returned."""

    @abstractmethod
    def _hold(self, event: Event[Any]) -> None:
        """Hold a restored event as it was held before (no expiry)."""

    @property
    @abstractmethod
    def buffer(self) -> Any:
        """The buffer that holds the window's events (paged for a bounded persistent window)."""

    @property
    def tracks_changes(self) -> bool:
        """Whether windows can report new and expired events (not when the buffer pages them away)."""
        return getattr(self.buffer, "keeps_expired", True)

    def loose_events(self) -> list[Event[Any]]:
        """Held events outside :attr:`buffer` (event-time count windows' pending ones)."""
        return []


def block_events(block: Block, ts: Any) -> list[Event[Any]]:
    """Every row of a columnar ``block`` as an event (for buffers that hold events)."""
    import numpy as np

    index = np.arange(block.size)
    seqs = np.arange(block.first_seq, block.first_seq + block.size) if block.seqs is None else block.seqs
    return block.events_at(index, np.asarray(ts, np.int64), seqs)


def sliding_count_timestamps(
    arrival_ordered: Iterable[Event[Any]], after: int, up_to: int, count: int
) -> list[int]:
    """Storm's ``getSlidingCountTimestamps`` over events given in arrival order."""
    out: list[int] = []
    if up_to <= after:
        return out
    seen = 0
    largest: int | None = None
    for event in arrival_ordered:
        if after < event.ts <= up_to:
            largest = event.ts if largest is None or event.ts > largest else largest
            seen += 1
            if seen % count == 0:
                out.append(largest)
    return out


class BufferedEvictionPolicy(EvictionPolicy):
    """An eviction policy over ``self._buffer`` that restores into a :class:`BlockBuffer` as blocks.

    Restored events go in as one block, and restored columnar blocks as arrays,
    when the buffer is a ``BlockBuffer``; otherwise as the base policy holds them.
    """

    _buffer: Any

    def _hold_all(self, events: list[Event[Any]]) -> None:
        if isinstance(self._buffer, BlockBuffer):  # one block of events, not one per event
            self._buffer.insert_all(events)
        else:
            super()._hold_all(events)

    def _hold_block(self, block: Block, ts: Any) -> bool:
        if not isinstance(self._buffer, BlockBuffer):
            return False
        self._buffer.insert_rows(block, ts)
        return True
