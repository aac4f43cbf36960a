"""How a window's tuples and system state are written to a state backend (msgpack, never pickle).

Keys (inside the task's namespace):

- ``meta``: the task's system state (window manager, policies, watermark, timers,
  the tuple schemas, which held events await their expiry report) as one msgpack map,
  with the store's format ``version`` (:data:`STATE_VERSION`; none in stores written before ``a/`` records).
- ``c/<seq>``: tuples a commit added to a persistent window (up to ``CHUNK_EVENTS`` per
  record, named after the first one's ``<seq>``): a list of
  ``[seq, ts, schema, values, source_task]``.
- ``a/<seq>``: a spout's columnar rows a commit added to a persistent window, as an
  Arrow IPC stream (:mod:`bolts.codecs.arrow_chunk`) of up to ``ARROW_CHUNK_ROWS`` rows
  and about ``ARROW_CHUNK_BYTES`` bytes per record (a large block takes several), named
  after the first one's ``<seq>``.
- ``d/<seq><first>``: the arrival numbers (a sorted list, ``<first>`` the smallest) of
  chunk ``c/<seq>``'s tuples that expired by one commit; one record per commit that
  saw some of them expire (``<seq>`` a ``c/`` or an ``a/`` chunk). The chunk and its
  ``d/`` records are deleted once all of its tuples have expired.
- ``e/<seq>``: one held tuple, ``[ts, schema, values, source_task]``: how persistent
  windows stored tuples before chunks; still read, and deleted when the tuple expires.
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
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from operator import attrgetter
from typing import Any

import numpy as np

from bolts.codecs.arrow_chunk import ARROW_CHUNK_PREFIX, decode_arrow_chunk, encode_arrow_parts
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
USER_PREFIX = b"u/"
PAGE_PREFIX = b"p/"
PAGE_TABLE_PREFIX = b"t/"
LOOSE_PREFIX = b"x/"


#: The layout of a task's stored window state, written in its ``meta`` record: 1 (no ``version`` in ``meta``)
#: before ``a/`` records; 2 since (a spout's rows stored as ``a/`` records, which older squall would not read).
STATE_VERSION = 2


def check_state_version(meta: Mapping[str, Any], store: Any) -> None:
    """``ValueError`` when ``meta`` (a task's ``meta`` record) is of a newer layout than this squall reads.

    A ``meta`` without ``version`` is of the first layout, still read. ``store``
    (the task's namespace) is named in the message.
    """
    version = meta.get("version", 1)
    if isinstance(version, int) and not isinstance(version, bool) and version <= STATE_VERSION:
        return
    name = getattr(store, "name", None)
    url = getattr(getattr(store, "backend", None), "url", None)
    where = (f"namespace {name!r}" + (f" in {url}" if url else "")) if name is not None else repr(store)
    msg = (f"{where}: the window state has format version {version!r}, newer than this squall reads "
           f"(version {STATE_VERSION} at most): it was written by a newer squall; resume the task with that "
           "version (or a newer one), or start afresh under a new name")
    raise ValueError(msg)


pack = pack_value
unpack = unpack_value
_seq_of_event = attrgetter("seq")


_SEQ = struct.Struct(">Q")


def seq_key(prefix: bytes, seq: int) -> bytes:
    """The key of event ``seq`` under ``prefix``."""
    return prefix + _SEQ.pack(seq)


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

    Each commit writes its new tuples as chunks: a spout's columnar block as
    Arrow records ``a/<first seq>`` (:mod:`bolts.codecs.arrow_chunk`) of a few
    megabytes at most, other tuples as msgpack records ``c/<first seq>`` of up
    to :data:`CHUNK_EVENTS` tuples. A chunk's tuples have higher arrival
    numbers than any earlier chunk's, and a commit's chunks never interleave
    (the tuples of one add have consecutive numbers), so a sorted list of first
    numbers finds the chunk of a tuple. The tuples of a chunk that a commit saw expire are written as one
    new record ``d/<chunk><first of them>``, so a commit writes what changed,
    never a chunk's whole history. :meth:`writes` says what a commit writes;
    :meth:`committed` records it once the store has applied it.
    """

    def __init__(self) -> None:
        self._starts: list[int] = []  # first seq of each stored chunk, ascending
        self._size: dict[int, int] = {}  # chunk -> number of tuples in it
        self._dead: dict[int, int] = {}  # chunk -> number of its tuples recorded dead
        self._dead_keys: dict[int, list[bytes]] = {}  # chunk -> its d/ records
        self._arrow: set[int] = set()  # chunks stored as a/ records
        self._single: set[int] = set()  # seqs stored one per e/ record
        self._staged: Any = None
        #: The live rows of the ``a/`` records :meth:`load` read: ``(source, positions or None for all, seqs, ts)``.
        self.loaded: list[tuple[Any, np.ndarray | None, np.ndarray, np.ndarray]] = []

    def load(self, store: Any, schemas: Schemas) -> list[Event[Tuple]]:
        """Read the committed tuples (chunks without their dead ones, and ``e/`` records), in arrival order.

        Returns the built events; the columnar rows of ``a/`` records are left
        in :attr:`loaded` (dead rows dropped), never built.
        """
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
            self._track(chunk, len(stored), len(gone))
            events.extend(e for e in stored if e.seq not in gone)
        self.loaded = []
        for key, value in store.scan(ARROW_CHUNK_PREFIX):
            chunk = seq_of(key)
            rows, seqs, ts = decode_arrow_chunk(value)
            gone = dead.get(chunk, set())
            self._track(chunk, len(seqs), len(gone))
            self._arrow.add(chunk)
            if gone:  # the live rows only, by their positions in the record
                keep = np.flatnonzero(~np.isin(seqs, np.fromiter(gone, np.int64, len(gone))))
                self.loaded.append((rows, keep, seqs[keep], ts[keep]))
            else:
                self.loaded.append((rows, None, seqs, ts))
        self._starts.sort()
        events.sort(key=_seq_of_event)
        return events

    def _track(self, chunk: int, size: int, dead: int) -> None:
        self._starts.append(chunk)
        self._size[chunk] = size
        self._dead[chunk] = dead
        self._dead_keys.setdefault(chunk, [])

    def writes(
        self, added: Mapping[int, Event[Tuple]], removed: AbstractSet[int] | np.ndarray, schemas: Schemas,
        blocks: Sequence[tuple[Any, np.ndarray, np.ndarray, np.ndarray]] = (), ts_field: str | None = None,
    ) -> tuple[dict[bytes, bytes], list[bytes]]:
        """The puts and deletes that store ``added`` and ``blocks`` as new chunks and forget the ``removed`` seqs.

        ``blocks`` are columnar rows to store as ``a/`` records: ``(source, rows,
        seqs, ts)`` with ``source`` a :class:`~bolts.storm.table_rows.TableRows`
        and its rows ``rows`` (increasing), their arrival numbers and timestamps
        (``ts_field`` the column they may be read from); each is cut into
        bounded parts (:func:`~bolts.codecs.arrow_chunk.encode_arrow_parts`),
        each put under ``seq_key(ARROW_CHUNK_PREFIX, <its first seq>)``.
        """
        puts: dict[bytes, bytes] = {}
        gone = np.sort(np.fromiter(removed, np.int64) if isinstance(removed, AbstractSet) else removed)
        deletes: list[bytes] = []
        singles: set[int] = set()
        if self._single and len(gone):
            singles = self._single.intersection(gone.tolist())
            deletes += [seq_key(EVENT_PREFIX, seq) for seq in sorted(singles)]
            if singles:
                gone = gone[~np.isin(gone, np.fromiter(singles, np.int64, len(singles)))]
        dead_after: dict[int, tuple[int, bytes | None]] = {}  # chunk -> (dead count, new d/ key or None)
        if len(gone):
            starts = np.array(self._starts, np.int64)
            owners = starts[np.searchsorted(starts, gone, side="right") - 1]
            chunks, firsts = np.unique(owners, return_index=True)
            for chunk, a, b in zip(chunks.tolist(), firsts.tolist(), [*firsts[1:].tolist(), len(gone)], strict=True):
                newly_dead = gone[a:b]
                dead = self._dead[chunk] + len(newly_dead)
                if dead >= self._size[chunk]:
                    dead_after[chunk] = (dead, None)
                    deletes.append(seq_key(ARROW_CHUNK_PREFIX if chunk in self._arrow else CHUNK_PREFIX, chunk))
                    deletes += self._dead_keys[chunk]
                else:
                    key = dead_key(chunk, int(newly_dead[0]))
                    dead_after[chunk] = (dead, key)
                    puts[key] = pack(newly_dead.tolist())
        new_chunks = []
        for source, rows, seqs, ts in blocks:  # bounded records (HBase refuses cells over 10 MB)
            for first, size, data in encode_arrow_parts(source, rows, seqs, ts, ts_field):
                puts[seq_key(ARROW_CHUNK_PREFIX, first)] = data
                new_chunks.append((first, size, True))
        events = sorted(added.values(), key=_seq_of_event)
        block_values: dict[int, list[Sequence[Any]]] = {}
        for run in _between_blocks(events, sorted(int(seqs[0]) for _, _, seqs, _ in blocks if len(seqs))):
            for at in range(0, len(run), CHUNK_EVENTS):  # bounded records (HBase refuses cells over 10 MB)
                part = run[at : at + CHUNK_EVENTS]
                puts[seq_key(CHUNK_PREFIX, part[0].seq)] = encode_chunk(part, schemas, block_values)
                new_chunks.append((part[0].seq, len(part), False))
        self._staged = (new_chunks, dead_after, singles)
        return puts, deletes

    def committed(self) -> None:
        """The store applied the last :meth:`writes`: record the new chunks and the dead tuples."""
        if self._staged is None:
            return
        new_chunks, dead_after, singles = self._staged
        self._staged = None
        self._single -= singles
        for chunk, (dead, key) in dead_after.items():
            if key is None:
                self._starts.remove(chunk)
                self._arrow.discard(chunk)
                del self._size[chunk], self._dead[chunk], self._dead_keys[chunk]
            else:
                self._dead[chunk] = dead
                self._dead_keys[chunk].append(key)
        for first, size, arrow in sorted(new_chunks):
            self._track(first, size, 0)
            if arrow:
                self._arrow.add(first)
        self._starts.sort()


def _between_blocks(events: list[Event[Tuple]], block_firsts: list[int]) -> list[list[Event[Tuple]]]:
    """``events`` (by arrival) cut where a block's rows come between two of them, so no chunk spans a block."""
    if not block_firsts or not events:
        return [events] if events else []
    runs, run = [], []
    cuts = iter(block_firsts)
    cut = next(cuts, None)
    for event in events:
        while cut is not None and cut < event.seq:
            if run:
                runs.append(run)
                run = []
            cut = next(cuts, None)
        run.append(event)
    if run:
        runs.append(run)
    return runs


def dead_key(chunk: int, first_dead: int) -> bytes:
    """The key of the record of chunk ``chunk``'s tuples that died at one commit, the first being ``first_dead``."""
    return DEAD_PREFIX + struct.pack(">QQ", chunk, first_dead)


def dead_chunk_of(key: bytes) -> int:
    """The chunk of a key made by :func:`dead_key`."""
    return int(struct.unpack(">Q", key[len(DEAD_PREFIX) : len(DEAD_PREFIX) + 8])[0])
