"""Paging a persistent window to its task's store (``with_max_events_in_memory``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bolts.codecs.window_state_codec import (
    LOOSE_PREFIX,
    PAGE_PREFIX,
    PAGE_TABLE_PREFIX,
    Schemas,
    as_key,
    decode_event,
    decode_page,
    encode_event,
    encode_page,
    pack,
    seq_key,
    seq_of,
    unpack,
)
from bolts.tuples import Tuple
from windowing import Event
from windowing.storm.paged_event_buffer import Page, PagedEventBuffer


class WindowPages:
    """The pager of one task: reads committed pages, numbers new ones, and says what a commit writes."""

    def __init__(self, store: Any, schemas: Schemas, max_in_memory: int) -> None:
        self.store = store
        self.schemas = schemas
        self.max_in_memory = max_in_memory
        self.page_size = max(1, min(1000, max_in_memory // 8))
        self.next_page_id = 0
        self._loose_stored: set[int] = set()

    def buffer(self, key: Any) -> PagedEventBuffer:
        """A paged buffer for an eviction policy."""
        return PagedEventBuffer(key, self, self.page_size, self.max_in_memory)

    def load_page(self, page_id: int) -> list[Event[Tuple]]:
        """The events of committed page ``page_id``."""
        data = self.store.get(seq_key(PAGE_PREFIX, page_id))
        if data is None:
            msg = f"with_max_events_in_memory: page {page_id} is missing from the state backend"
            raise RuntimeError(msg)
        return decode_page(data, self.schemas)

    def new_page_id(self) -> int:
        """A page id not used before."""
        self.next_page_id += 1
        return self.next_page_id

    def writes(self, buffer: PagedEventBuffer, loose: list[Event[Tuple]]) -> Iterator[tuple[bytes, bytes | None]]:
        """``(key, value)`` to put, or ``(key, None)`` to delete, for this commit."""
        for page in buffer.dirty_pages():
            yield seq_key(PAGE_PREFIX, page.page_id), encode_page(page.events or [], self.schemas)
            yield seq_key(PAGE_TABLE_PREFIX, page.page_id), pack([page.count, page.first, page.last])
        for page_id in buffer.deleted_pages:
            yield seq_key(PAGE_PREFIX, page_id), None
            yield seq_key(PAGE_TABLE_PREFIX, page_id), None
        wanted = {e.seq: e for e in loose}
        for seq, event in wanted.items():
            if seq not in self._loose_stored:
                yield seq_key(LOOSE_PREFIX, seq), encode_event(event, self.schemas)
        for seq in self._loose_stored - wanted.keys():
            yield seq_key(LOOSE_PREFIX, seq), None
        self._loose_stored = set(wanted)

    def resume(self, buffer: PagedEventBuffer, next_page_id: int) -> list[Event[Tuple]]:
        """Adopt the committed pages (spilled) and return the loose events."""
        self.next_page_id = next_page_id
        pages = []
        for key, value in self.store.scan(PAGE_TABLE_PREFIX):
            count, first, last = unpack(value)
            pages.append(Page(seq_of(key), count, as_key(first), as_key(last), None, dirty=False))
        buffer.adopt(pages)
        loose = [decode_event(seq_of(k), v, self.schemas) for k, v in self.store.scan(LOOSE_PREFIX)]
        self._loose_stored = {e.seq for e in loose}
        return loose
