"""A windowed task over a store: its windows, system state and (stateful bolts) user state committed each batch."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np

from bolts.codecs.value_codec import pack_value, unpack_value
from bolts.codecs.window_state_codec import (
    META_KEY,
    STATE_VERSION,
    USER_PREFIX,
    Chunks,
    Schemas,
    check_state_version,
    pack,
    unpack,
)
from bolts.collector import EmitSink
from bolts.errors import TupleError
from bolts.storm.base_stateful_windowed_bolt import BaseStatefulWindowedBolt
from bolts.storm.base_windowed_bolt import BaseWindowedBolt
from bolts.storm.stored_blocks import hold_stored, new_rows, resumed_blocks
from bolts.storm.window_pages import WindowPages
from bolts.storm.windowed_bolt_task import TupleCheck, WindowedBoltTask
from bolts.task import TaskOptions
from bolts.tuples import Tuple
from state_backends import KeyValueState
from windowing import Event
from windowing.storm.blocks import Block
from windowing.storm.event_buffer import BufferFactory, EventBuffer
from windowing.storm.expired import Expired

log = logging.getLogger("squall.bolts")
_NONE = np.empty(0, np.int64)

StreamKey = tuple[str, str]
_seq_of_event = attrgetter("seq")


@dataclass
class StateWrites:
    """Collects the user state's staged writes into this commit's puts and deletes."""

    puts: dict[bytes, bytes]
    deletes: list[bytes]

    # User keys have their own prefix and KeyValueState stages one write per key, so a key is
    # never both put and deleted here.
    def put(self, key: bytes, value: bytes) -> None:
        """Add a put."""
        self.puts[key] = value

    def delete(self, key: bytes) -> None:
        """Add a delete."""
        self.deletes.append(key)


def _seqs(expired: Any) -> list[int]:
    """The arrival numbers of a policy's pending expired events (an ``Expired``, or a list of events)."""
    return expired.seqs().tolist() if isinstance(expired, Expired) else [e.seq for e in expired]


class StoredWindowedBoltTask(WindowedBoltTask):
    """A windowed task whose windows are loaded from its store when prepared and written by :meth:`commit`.

    At each commit it writes the tuples added since the last commit as
    chunks and records which stored tuples expired (deleting a chunk once all
    of its tuples have); a window bounded in memory
    (``with_max_events_in_memory``) writes pages instead. With them go the
    system state (policies, watermark, timers) and, for a
    ``BaseStatefulWindowedBolt``, the user state's changes, in one atomic
    commit per batch. A plain ``BaseWindowedBolt`` runs this way too whenever
    its task has a store (the batch loop and the harness always give one), so
    any process can resume it; a message-id window (``with_message_id_field``)
    stores its tuples as a persistent one does: Spark's sources replay only the
    batch that was not committed, and a task that moves to another process was
    not failed, so nothing would refill its window. Its message ids are still
    checked (an int in the field) before a tuple is held.
    """

    def __init__(self, bolt: BaseWindowedBolt, options: TaskOptions) -> None:
        if isinstance(bolt, BaseStatefulWindowedBolt):
            bolt.validate_recovery(options.component)
        if options.store is None:
            msg = f"StoredWindowedBoltTask: bolt {options.component!r} needs a store"
            raise ValueError(msg)
        store = options.store
        self._schemas = Schemas()
        bound = bolt.window_config.max_events_in_memory
        self._pages = WindowPages(store, self._schemas, bound) if bound is not None else None
        self._msg_field = bolt.window_config.message_id_field  # before the base class builds its input check
        super().__init__(bolt, options)
        self._added: dict[int, Event[Tuple]] = {}
        self._added_blocks: list[tuple[Block, np.ndarray]] = []  # columnar blocks added since the commit, with ts
        self._removed: list[np.ndarray] = []  # arrival numbers that expired since the commit
        self._commit_seq = 0  # every tuple added since the last commit has an arrival number at least this
        self._chunks = Chunks()
        self.user_state = KeyValueState(store, USER_PREFIX, (pack_value, unpack_value))  # type: ignore[arg-type]

    def _buffer_factory(self) -> BufferFactory:
        return self._pages.buffer if self._pages is not None else EventBuffer

    def _input_check(self) -> TupleCheck | None:
        """With message ids, every input tuple must carry an int id: checked (or rejected) before it is held."""
        return self._message_id if self._msg_field is not None else None

    # Life cycle -------------------------------------------------------------------------------
    def prepare(self, conf: dict[str, Any], sink: EmitSink) -> None:
        """Prepare the bolt, resume from the last commit, then call ``init_state`` with the user state."""
        super().prepare(conf, sink)
        meta = self.store.get(META_KEY)
        if meta is not None:
            state = unpack(meta)
            check_state_version(state, self.store)  # a newer layout is refused, never half read
            self._resume(state)
        if isinstance(self.bolt, BaseStatefulWindowedBolt):
            self.bolt.init_state(self.user_state)

    def _resume(self, meta: dict[str, Any]) -> None:
        self._schemas = Schemas(meta["schemas"])
        expired_seqs = set(meta["expired"])
        if self._pages is not None:
            self._pages.schemas = self._schemas
            loose = self._pages.resume(self.manager.eviction.buffer, meta["next_page"])
            held = [e for e in loose if e.seq not in expired_seqs]
            self.restore(meta["system"], held, [e for e in loose if e.seq in expired_seqs])
            return
        events = self._chunks.load(self.store, self._schemas)  # type: ignore[arg-type]
        held = [e for e in events if e.seq not in expired_seqs]
        expired = [e for e in events if e.seq in expired_seqs]
        blocks = resumed_blocks(self._chunks.loaded, expired_seqs, expired)
        self._chunks.loaded = []
        self.restore(meta["system"], held, expired, blocks)

    def restore(
        self, state: dict[str, Any], held: list[Event[Tuple]], expired: list[Event[Tuple]],
        blocks: Sequence[tuple[Block, Any]] = (),
    ) -> None:
        """Resume as :meth:`WindowedBoltTask.restore`; every tuple it holds is stored."""
        super().restore(state, held, expired, blocks)
        self._commit_seq = self.manager.next_seq

    # Input ------------------------------------------------------------------------------------
    def _held(self, events: Sequence[Event[Tuple]] | Block, stamps: Any = None) -> None:
        if self._pages is not None:  # paged windows write whole pages instead
            return
        if isinstance(events, Block):
            self._added_blocks.append((events, stamps))
        else:
            self._added.update(zip(map(_seq_of_event, events), events, strict=True))

    def on_expiry(self, events: Expired) -> None:
        """Expired tuples are recorded dead (their chunk deleted once all its tuples are) at the next commit.

        Tuples added since the last commit are not stored yet: they are left out
        of the next commit's chunks instead.
        """
        super().on_expiry(events)
        if self._pages is None:
            self._removed.append(events.seqs())

    def _expired_since_commit(self) -> tuple[np.ndarray, np.ndarray]:
        """The arrival numbers that expired since the commit: ``(stored ones, ones added since)``, sorted."""
        if not self._removed:
            return _NONE, _NONE
        seqs = np.sort(np.concatenate(self._removed))  # a row expires once: no repeats
        cut = int(np.searchsorted(seqs, self._commit_seq))
        return seqs[:cut], seqs[cut:]

    def _message_id(self, tup: Tuple) -> int:
        field_name = self._msg_field
        if field_name is None or field_name not in tup.fields:
            msg = (
                f"with_message_id_field: tuple from {tup.source_component}:{tup.stream} has no field "
                f"{field_name!r}; its fields are: {', '.join(tup.fields)} (tuple: {tup!r})"
            )
            raise TupleError(msg)
        value = tup[field_name]
        if isinstance(value, bool) or not isinstance(value, int):
            msg = f"with_message_id_field: {field_name!r} must be an int; got {value!r} in {tup!r}"
            raise TupleError(msg)
        return value

    # Commit -----------------------------------------------------------------------------------
    def before_commit(self, batch_id: int) -> None:
        """A stateful windowed bolt's ``pre_prepare`` then ``pre_commit`` (a plain windowed bolt has none)."""
        for hook in ("pre_prepare", "pre_commit"):
            method = getattr(self.bolt, hook, None)
            if callable(method):
                method(batch_id)

    def commit(self, batch_id: int) -> bool:
        """Write what changed since the last commit, atomically with ``batch_id``.

        Returns False when the store had already committed this batch id (a
        replay), in which case nothing is written. On a store error the exception
        propagates and the committed state is unchanged; the task must then be
        rebuilt from the store before the batch is retried.
        """
        stored, unstored = self._expired_since_commit()
        for seq in unstored.tolist() if self._added else ():
            self._added.pop(seq, None)
        if self._pages is not None:
            puts, deletes = self._page_writes(self._pages)
        else:
            puts, deletes = self._chunks.writes(self._added, stored, self._schemas,
                                                new_rows(self._added_blocks, unstored), self.config.timestamp_field)
        puts[META_KEY] = pack(self._meta())
        self.user_state.write_to(StateWrites(puts, deletes))  # type: ignore[arg-type]
        applied = self.store.commit(batch_id, puts, deletes)  # type: ignore[union-attr]
        if applied and self._added_blocks:
            hold_stored(self._added_blocks, puts)
        if self._pages is not None:
            self.manager.eviction.buffer.committed()
        self._chunks.committed()
        self._added.clear()
        self._added_blocks.clear()
        self._removed.clear()
        self._commit_seq = self.manager.next_seq
        self.user_state.committed()
        return applied

    def _page_writes(self, pages: WindowPages) -> tuple[dict[bytes, bytes], list[bytes]]:
        eviction = self.manager.eviction
        loose = eviction.loose_events() + self.manager.pending_expired()
        puts: dict[bytes, bytes] = {}
        deletes: list[bytes] = []
        for key, value in pages.writes(eviction.buffer, loose):
            if value is None:
                deletes.append(key)
            else:
                puts[key] = value
        return puts, deletes

    def _meta(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "system": self.state(),
            "schemas": self._schemas.to_data(),
            "expired": _seqs(self.manager.eviction.expired),
            "next_page": self._pages.next_page_id if self._pages is not None else 0,
        }
