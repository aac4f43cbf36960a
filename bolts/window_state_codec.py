"""How a window's tuples and system state are written to a state backend (msgpack, never pickle).

Keys (inside the task's namespace):

- ``meta``: the task's system state (window manager, policies, watermark, timers,
  the tuple schemas, which held events await their expiry report, message-id
  progress) as one msgpack map.
- ``e/<seq>``: one held tuple (persistent windows): ``[ts, schema, values, source_task]``.
- ``i/<seq>``: one held tuple's identity (message-id recovery): ``[schema, msg_id, ts]``.
- ``u/<key>``: user state written through ``KeyValueState``.
- ``p/<page>``, ``t/<page>``, ``x/<seq>``: a persistent window bounded by
  ``with_max_events_in_memory`` keeps its tuples in pages instead of ``e/``: a page's
  events (a list of ``[seq, ts, schema, values, source_task]``), its table entry
  (``[count, first key, last key]``), and the held tuples outside pages (pending
  event-time count tuples, expired tuples not yet reported).

``<seq>`` is the event's arrival number as 8 big-endian bytes, so a prefix scan
returns events in arrival order.
"""

from __future__ import annotations

import struct
from typing import Any

from bolts.tuples import Fields, Tuple
from bolts.value_codec import pack_value, unpack_value
from windowing import Event

META_KEY = b"meta"
EVENT_PREFIX = b"e/"
INDEX_PREFIX = b"i/"
USER_PREFIX = b"u/"
PAGE_PREFIX = b"p/"
PAGE_TABLE_PREFIX = b"t/"
LOOSE_PREFIX = b"x/"


pack = pack_value
unpack = unpack_value


def seq_key(prefix: bytes, seq: int) -> bytes:
    """The key of event ``seq`` under ``prefix``."""
    return prefix + struct.pack(">Q", seq)


def seq_of(key: bytes) -> int:
    """The event number in a key made by :func:`seq_key`."""
    return int(struct.unpack(">Q", key[-8:])[0])


class Schemas:
    """Numbers the (source component, stream, fields) of the tuples a task holds, so events store an id."""

    def __init__(self, data: list[list[Any]] | None = None) -> None:
        self._by_id: list[tuple[str, str, Fields]] = []
        self._ids: dict[tuple[str, str, Fields], int] = {}
        for source, stream, fields in data or []:
            self._register((source, stream, Fields(list(fields))))

    def _register(self, schema: tuple[str, str, Fields]) -> int:
        self._ids[schema] = len(self._by_id)
        self._by_id.append(schema)
        return self._ids[schema]

    def id_of(self, tup: Tuple) -> int:
        """The schema id of ``tup`` (registered on first sight)."""
        schema = (tup.source_component, tup.stream, tup.fields)
        found = self._ids.get(schema)
        return found if found is not None else self._register(schema)

    def get(self, schema_id: int) -> tuple[str, str, Fields]:
        """The (source component, stream, fields) of ``schema_id``."""
        return self._by_id[schema_id]

    def to_data(self) -> list[list[Any]]:
        """Plain data for the ``meta`` record."""
        return [[source, stream, fields.to_list()] for source, stream, fields in self._by_id]


def encode_event(event: Event[Tuple], schemas: Schemas) -> bytes:
    """A held tuple as stored under ``e/<seq>``."""
    tup = event.value
    return pack([event.ts, schemas.id_of(tup), list(tup.values), tup.source_task])


def decode_event(seq: int, data: bytes, schemas: Schemas) -> Event[Tuple]:
    """Rebuild the event stored under ``e/<seq>``."""
    ts, schema_id, values, source_task = unpack(data)
    source, stream, fields = schemas.get(schema_id)
    return Event(Tuple(values, fields, stream, source, source_task), ts, seq)


def encode_page(events: list[Event[Tuple]], schemas: Schemas) -> bytes:
    """A page of held tuples as stored under ``p/<page>``."""
    return pack([[e.seq, e.ts, schemas.id_of(e.value), list(e.value.values), e.value.source_task] for e in events])


def decode_page(data: bytes, schemas: Schemas) -> list[Event[Tuple]]:
    """Rebuild the events of a page."""
    out = []
    for seq, ts, schema_id, values, source_task in unpack(data):
        source, stream, fields = schemas.get(schema_id)
        out.append(Event(Tuple(values, fields, stream, source, source_task), ts, seq))
    return out


def as_key(value: Any) -> Any:
    """A page key read back from msgpack: ``(ts, seq)`` pairs come back as lists."""
    return tuple(value) if isinstance(value, list) else value
