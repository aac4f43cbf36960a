"""How a window's tuples and system state are written to a state backend (msgpack, never pickle).

Keys (inside the task's namespace):

- ``meta``: the task's system state (window manager, policies, watermark, timers,
  the tuple schemas, which held events await their expiry report, message-id
  progress) as one msgpack map.
- ``c/<seq>``: tuples a commit added to a persistent window (up to ``CHUNK_EVENTS`` per
  record, named after the first one's ``<seq>``): a list of
  ``[seq, ts, schema, values, source_task]``.
- ``d/<seq><first>``: the arrival numbers (a sorted list, ``<first>`` the smallest) of
  chunk ``c/<seq>``'s tuples that expired by one commit; one record per commit that
  saw some of them expire. The chunk and its ``d/`` records are deleted once all of
  its tuples have expired.
- ``e/<seq>``: one held tuple, ``[ts, schema, values, source_task]``: how persistent
  windows stored tuples before chunks; still read, and deleted when the tuple expires.
- ``i/<seq>``: one held tuple's identity (message-id recovery): ``[schema, msg_id, ts]``.
- ``u/<key>``: user state written through ``KeyValueState``.
- ``p/<page>``, ``t/<page>``, ``x/<seq>``: a persistent window bounded by
  ``with_max_events_in_memory`` keeps its tuples in pages instead of ``c/``: a page's
  events (a list of ``[seq, ts, schema, values, source_task]``), its table entry
  (``[count, first key, last key]``), and the held tuples outside pages (pending
  event-time count tuples, expired tuples not yet reported).

``<seq>`` is the event's arrival number as 8 big-endian bytes, so a prefix scan
returns events in arrival order.
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from operator import attrgetter
from typing import Any

from bolts.codecs.value_codec import pack_value, unpack_value, value_packer
from bolts.task_input import Segment
from bolts.tuples import Fields, Tuple
from windowing import Event
from windowing.storm.event import RowEvent

META_KEY = b"meta"
EVENT_PREFIX = b"e/"
CHUNK_PREFIX = b"c/"
DEAD_PREFIX = b"d/"

#: Most tuples in one ``c/`` record: a commit's new tuples take as many chunks as they need.
CHUNK_EVENTS = 2048
INDEX_PREFIX = b"i/"
USER_PREFIX = b"u/"
PAGE_PREFIX = b"p/"
PAGE_TABLE_PREFIX = b"t/"
LOOSE_PREFIX = b"x/"


pack = pack_value
unpack = unpack_value
_seq_of_event = attrgetter("seq")


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
        return self.id_of_schema(tup.source_component, tup.stream, tup.fields)

    def id_of_schema(self, source: str, stream: str, fields: Fields) -> int:
        """The id of the schema (``source``, ``stream``, ``fields``), registered on first sight."""
        schema = (source, stream, fields)
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


def encode_chunk(
    events: list[Event[Tuple]], schemas: Schemas, block_values: dict[int, list[Sequence[Any]]] | None = None
) -> bytes:
    """A commit's new tuples as stored under ``c/<seq>``: the bytes :func:`encode_page` makes, built faster.

    One packer writes the rows one by one (no list of all rows stays alive for the
    garbage collector to walk), and the schema is looked up once per run of tuples
    of one schema. A spout's rows still held as a columnar block are written from
    the block's values, without building their ``Tuple``s; ``block_values`` keeps
    each block's values (by ``id``) for the next chunks of the same commit.
    """
    block_values = {} if block_values is None else block_values
    packer = value_packer()
    packer.pack_array_header(len(events))
    last: Tuple | None = None
    block: Segment | None = None
    block_rows: list[Sequence[Any]] = []
    schema_id = 0
    row: list[Any] = []
    try:
        for event in events:
            if type(event) is RowEvent and isinstance(event.source, Segment):  # a spout's row, values not built
                if event.source is not block:
                    block, last = event.source, None
                    block_rows = block_values.get(id(block)) or block_values.setdefault(id(block), block.values())
                    schema_id = schemas.id_of_schema(block.source_component, block.stream, block.fields)
                row = [event.seq, event.ts, schema_id, list(block_rows[event.row]), block.source_task]
                packer.pack(row)
                continue
            block = None
            tup = event.value
            if (
                last is None
                or tup.fields is not last.fields
                or tup.stream is not last.stream
                or tup.source_component is not last.source_component
            ):
                schema_id = schemas.id_of(tup)
                last = tup
            row = [event.seq, event.ts, schema_id, list(tup.values), tup.source_task]
            packer.pack(row)
    except (OverflowError, ValueError) as exc:  # as pack_value says it
        msg = f"cannot send {row!r:.200} between tasks or store it: {exc}"
        raise TypeError(msg) from None
    return packer.bytes()


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


class Chunks:
    """Where a persistent window's committed tuples are stored: chunks, dead-tuple records, old ``e/`` records.

    Each commit writes its new tuples as chunks ``c/<first seq>`` (one per
    :data:`CHUNK_EVENTS` tuples); a chunk's
    tuples have higher arrival numbers than any earlier chunk's, so a sorted list
    of first numbers finds the chunk of a tuple. The tuples of a chunk that a
    commit saw expire are written as one new record ``d/<chunk><first of them>``,
    so a commit writes what changed, never a chunk's whole history. :meth:`writes`
    says what a commit writes; :meth:`committed` records it once the store has
    applied it.
    """

    def __init__(self) -> None:
        self._starts: list[int] = []  # first seq of each stored chunk, ascending
        self._size: dict[int, int] = {}  # chunk -> number of tuples in it
        self._dead: dict[int, int] = {}  # chunk -> number of its tuples recorded dead
        self._dead_keys: dict[int, list[bytes]] = {}  # chunk -> its d/ records
        self._single: set[int] = set()  # seqs stored one per e/ record
        self._staged: tuple[list[tuple[int, int]], dict[int, tuple[int, bytes | None]], set[int]] | None = None

    def load(self, store: Any, schemas: Schemas) -> list[Event[Tuple]]:
        """Read the committed tuples (chunks without their dead ones, and ``e/`` records), in arrival order."""
        events = [decode_event(seq_of(k), v, schemas) for k, v in store.scan(EVENT_PREFIX)]
        self._single = {e.seq for e in events}
        dead: dict[int, set[int]] = {}
        for key, value in store.scan(DEAD_PREFIX):
            chunk = dead_chunk_of(key)
            dead.setdefault(chunk, set()).update(unpack(value))
            self._dead_keys.setdefault(chunk, []).append(key)
        for key, value in store.scan(CHUNK_PREFIX):
            chunk = seq_of(key)
            stored = decode_page(value, schemas)
            gone = dead.get(chunk, set())
            self._starts.append(chunk)
            self._size[chunk] = len(stored)
            self._dead[chunk] = len(gone)
            self._dead_keys.setdefault(chunk, [])
            events.extend(e for e in stored if e.seq not in gone)
        self._starts.sort()
        events.sort(key=_seq_of_event)
        return events

    def writes(
        self, added: Mapping[int, Event[Tuple]], removed: AbstractSet[int], schemas: Schemas
    ) -> tuple[dict[bytes, bytes], list[bytes]]:
        """The puts and deletes that store ``added`` as a new chunk and forget the ``removed`` seqs."""
        puts: dict[bytes, bytes] = {}
        singles = self._single.intersection(removed)
        deletes = [seq_key(EVENT_PREFIX, seq) for seq in sorted(singles)]
        gone = sorted(removed - singles if singles else removed)
        dead_after: dict[int, tuple[int, bytes | None]] = {}  # chunk -> (dead count, new d/ key or None)
        starts, i = self._starts, 0
        while i < len(gone):  # the removed seqs, chunk by chunk
            at = bisect_right(starts, gone[i]) - 1
            end = bisect_right(gone, starts[at + 1] - 1, i) if at + 1 < len(starts) else len(gone)
            chunk, newly_dead = starts[at], gone[i:end]
            i = end
            dead = self._dead[chunk] + len(newly_dead)
            if dead >= self._size[chunk]:
                dead_after[chunk] = (dead, None)
                deletes.append(seq_key(CHUNK_PREFIX, chunk))
                deletes += self._dead_keys[chunk]
            else:
                key = dead_key(chunk, newly_dead[0])
                dead_after[chunk] = (dead, key)
                puts[key] = pack(newly_dead)
        events = sorted(added.values(), key=_seq_of_event)
        new_chunks = []
        block_values: dict[int, list[Sequence[Any]]] = {}
        for at in range(0, len(events), CHUNK_EVENTS):  # bounded records (HBase refuses cells over 10 MB)
            part = events[at : at + CHUNK_EVENTS]
            puts[seq_key(CHUNK_PREFIX, part[0].seq)] = encode_chunk(part, schemas, block_values)
            new_chunks.append((part[0].seq, len(part)))
        self._staged = (new_chunks, dead_after, singles)
        return puts, deletes

    def committed(self) -> None:
        """The store applied the last :meth:`writes`: record the new chunk and the dead tuples."""
        if self._staged is None:
            return
        new_chunks, dead_after, singles = self._staged
        self._staged = None
        self._single -= singles
        for chunk, (dead, key) in dead_after.items():
            if key is None:
                self._starts.remove(chunk)
                del self._size[chunk], self._dead[chunk], self._dead_keys[chunk]
            else:
                self._dead[chunk] = dead
                self._dead_keys[chunk].append(key)
        for first, size in new_chunks:
            self._starts.append(first)
            self._size[first] = size
            self._dead[first] = 0
            self._dead_keys[first] = []


def dead_key(chunk: int, first_dead: int) -> bytes:
    """The key of the record of chunk ``chunk``'s tuples that died at one commit, the first being ``first_dead``."""
    return DEAD_PREFIX + struct.pack(">QQ", chunk, first_dead)


def dead_chunk_of(key: bytes) -> int:
    """The chunk of a key made by :func:`dead_key`."""
    return int(struct.unpack(">Q", key[len(DEAD_PREFIX) : len(DEAD_PREFIX) + 8])[0])
