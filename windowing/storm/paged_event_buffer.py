"""An ``EventBuffer`` that keeps only its newest events in memory; older pages live in a store.

Events are kept in key order in pages of at most ``page_size`` events. A page is
*resident* (its events in memory) or *spilled* (only its count and first and last
keys in memory; the events are read back through the pager when needed). New
events land in the last page, which is always resident. Pages are spilled
oldest first, only once they are clean (written by the owner's commit), until at
most ``max_resident`` events are in memory. Reading a spilled page for a window
(iteration, slices) does not make it resident; changing it (an out-of-order
insert, a partial expiry) does, until the next commit.
"""

from __future__ import annotations

from bisect import bisect_right, insort_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from windowing.storm.event import Event, ts_key


class Pager(Protocol):
    """Reads a committed page and numbers new ones (the stateful task implements it)."""

    def load_page(self, page_id: int) -> list[Event[Any]]:
        """The events of committed page ``page_id``, in key order."""
        ...

    def new_page_id(self) -> int:
        """A page id not used before."""
        ...


@dataclass(eq=False)
class Page:
    """A run of events in key order: resident (``events``) or spilled (``events`` is None)."""

    page_id: int
    count: int
    first: Any
    last: Any
    events: list[Event[Any]] | None = field(default=None, repr=False)
    dirty: bool = True


class PagedEventBuffer:
    """Drop-in for :class:`windowing.storm.event_buffer.EventBuffer` with a bound on resident events."""

    def __init__(self, key: Callable[[Event[Any]], Any], pager: Pager, page_size: int, max_resident: int) -> None:
        self._key = key
        self._pager = pager
        self.page_size = page_size
        self.max_resident = max_resident
        self.pages: list[Page] = []
        self.deleted_pages: list[int] = []
        # Expired events are not handed back (nor their pages read): a bounded window does not report them.
        self.keeps_expired = False
        self._view = _PagedView(self)

    # The EventBuffer interface ------------------------------------------------------------------
    def __len__(self) -> int:
        return sum(p.count for p in self.pages)

    def __iter__(self) -> Iterator[Event[Any]]:
        for page in self.pages:
            yield from self._read(page)

    @property
    def events(self) -> _PagedView:
        """The live events by position (loading spilled pages as they are read)."""
        return self._view

    @property
    def head(self) -> int:
        """Always 0: expired events leave the buffer at once."""
        return 0

    def insert(self, event: Event[Any]) -> None:
        """Add ``event`` at its place in key order."""
        k = self._key(event)
        if not self.pages or k >= self.pages[-1].last:
            self._append(event, k)
            return
        i = bisect_right([p.last for p in self.pages], k)
        page = self._resident(self.pages[min(i, len(self.pages) - 1)])
        insort_right(page.events, event, key=self._key)  # type: ignore[arg-type]
        self._refresh(page)

    def insert_all(self, events: list[Event[Any]], by: Callable[[Event[Any]], Any] | None = None) -> None:
        """Add ``events`` one by one, in the order given (``by`` is not needed).

        Not merged at once: which pages are split, filled and made resident is
        committed state, and must be what inserting the events one by one gives.
        """
        for event in events:
            self.insert(event)

    def first_key(self) -> Any:
        """The smallest key held, or None (read from the page table, no loading)."""
        return self.pages[0].first if self.pages else None

    def iter_range(self, lo: int, hi: int) -> Iterator[Event[Any]]:
        """Events at positions ``lo`` to ``hi``, reading each spilled page once."""
        offset = 0
        for page in self.pages:
            end = offset + page.count
            if end > lo and offset < hi:
                yield from self._read(page)[max(lo - offset, 0) : hi - offset]
            if end >= hi:
                return
            offset = end

    def first(self) -> Event[Any] | None:
        """The event with the smallest key, or None."""
        return self._read(self.pages[0])[0] if self.pages else None

    def pop_front(self, n: int, into: list[Event[Any]]) -> None:
        """Drop the first ``n`` events (not handed to ``into``: see ``keeps_expired``)."""
        while n > 0 and self.pages:
            page = self.pages[0]
            if n >= page.count:
                n -= page.count
                self.pages.pop(0)
                self.deleted_pages.append(page.page_id)
            else:
                events = self._resident(page).events
                del events[:n]  # type: ignore[union-attr]
                self._refresh(page)
                n = 0

    def pop_front_while_ts_at_most(self, bound: int, into: list[Event[Any]]) -> None:
        """Drop leading events whose ``ts`` is at most ``bound``."""
        self.pop_front(self.index_after_ts(bound), into)

    def index_after_ts(self, ts: int) -> int:
        """Position just past the last event with ``event.ts <= ts``."""
        offset = 0
        for page in self.pages:
            if page.last[0] <= ts:
                offset += page.count
                continue
            if page.first[0] > ts:
                return offset
            return offset + bisect_right(self._read(page), ts, key=ts_key)
        return offset

    # Paging ---------------------------------------------------------------------------------------
    def adopt(self, pages: list[Page]) -> None:
        """Start from committed, spilled pages (after a restart)."""
        self.pages = sorted(pages, key=lambda p: p.first)

    def dirty_pages(self) -> list[Page]:
        """Resident pages changed since the last commit."""
        return [p for p in self.pages if p.dirty]

    def committed(self) -> None:
        """The owner wrote the dirty pages and deleted pages: spill what exceeds the bound."""
        for page in self.pages:
            page.dirty = False
        self.deleted_pages = []
        resident = sum(p.count for p in self.pages if p.events is not None)
        for page in self.pages[:-1]:  # the last page takes new events: it stays
            if resident <= self.max_resident:
                break
            if page.events is not None:
                resident -= page.count
                page.events = None

    @property
    def resident(self) -> int:
        """Events held in memory."""
        return sum(p.count for p in self.pages if p.events is not None)

    # Internals ------------------------------------------------------------------------------------
    def _append(self, event: Event[Any], k: Any) -> None:
        last = self.pages[-1] if self.pages else None
        if last is None or last.count >= self.page_size:
            last = Page(self._pager.new_page_id(), 0, k, k, [])
            self.pages.append(last)
        events = self._resident(last).events
        events.append(event)  # type: ignore[union-attr]
        last.count += 1
        last.last = k
        last.dirty = True

    def _resident(self, page: Page) -> Page:
        if page.events is None:
            page.events = self._pager.load_page(page.page_id)
        page.dirty = True
        return page

    def _read(self, page: Page) -> list[Event[Any]]:
        return page.events if page.events is not None else self._pager.load_page(page.page_id)

    def _refresh(self, page: Page) -> None:
        events = page.events or []
        if not events:
            self.pages.remove(page)
            self.deleted_pages.append(page.page_id)
            return
        page.count = len(events)
        page.first, page.last = self._key(events[0]), self._key(events[-1])
        if page.count > 2 * self.page_size:  # an out-of-order run grew a page: split it
            i = self.pages.index(page)
            half = page.count // 2
            rest = Page(self._pager.new_page_id(), 0, None, None, events[half:])
            del events[half:]
            self._refresh(page)
            self.pages.insert(i + 1, rest)
            self._refresh(rest)


class _PagedView:
    """Positional access to a paged buffer's events: ``view[i]``, ``view[lo:hi]``, ``len(view)``."""

    def __init__(self, buffer: PagedEventBuffer) -> None:
        self._buffer = buffer

    def __len__(self) -> int:
        return len(self._buffer)

    def iter_range(self, lo: int, hi: int) -> Iterator[Event[Any]]:
        """Events at positions ``lo`` to ``hi``, reading each spilled page once."""
        return self._buffer.iter_range(lo, hi)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            lo, hi, _ = index.indices(len(self))
            return self._slice(lo, hi)
        if index < 0:
            index += len(self)
        found = self._slice(index, index + 1)
        if not found:
            raise IndexError(index)
        return found[0]

    def _slice(self, lo: int, hi: int) -> list[Event[Any]]:
        out: list[Event[Any]] = []
        offset = 0
        for page in self._buffer.pages:
            end = offset + page.count
            if end > lo and offset < hi:
                events = self._buffer._read(page)
                out.extend(events[max(lo - offset, 0) : hi - offset])
            if end >= hi:
                break
            offset = end
        return out

