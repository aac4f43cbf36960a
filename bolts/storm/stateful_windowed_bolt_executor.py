"""Runs one task of a ``BaseStatefulWindowedBolt``: windows and user state committed with each batch."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

import numpy as np

from bolts.codecs.value_codec import pack_value, unpack_value
from bolts.codecs.window_state_codec import (
    INDEX_PREFIX,
    META_KEY,
    STATE_VERSION,
    USER_PREFIX,
    Chunks,
    Schemas,
    check_state_version,
    pack,
    seq_key,
    seq_of,
    unpack,
)
from bolts.collector import EmitSink
from bolts.errors import TupleError
from bolts.storm.base_stateful_windowed_bolt import BaseStatefulWindowedBolt
from bolts.storm.base_windowed_bolt import BaseWindowedBolt
from bolts.storm.stored_blocks import hold_stored, new_rows, resumed_blocks
from bolts.storm.window_pages import WindowPages
from bolts.storm.windowed_bolt_executor import TupleCheck, WindowedBoltExecutor
from bolts.task_input import TaskInput
from bolts.task_store import WindowStore
from bolts.tuples import Tuple
from state_backends import KeyValueState
from windowing import Event, TupleWindow
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


@dataclass
class _Recovery:
    """A restart in message-id mode, until the replayed tuples have refilled the window."""

    system: dict[str, Any]
    index: dict[tuple[StreamKey, int], tuple[int, int]]  # (stream, msg id) -> (seq, ts)
    expired_seqs: set[int]
    refilled: list[Event[Tuple]] = field(default_factory=list)
    waiting: list[Tuple] = field(default_factory=list)


def _seqs(expired: Any) -> list[int]:
    """The arrival numbers of a policy's pending expired events (an ``Expired``, or a list of events)."""
    return expired.seqs().tolist() if isinstance(expired, Expired) else [e.seq for e in expired]


class StatefulWindowedBoltExecutor(WindowedBoltExecutor):
    """A windowed task whose state is loaded from ``store`` when prepared and written by :meth:`commit`.

    Persistent windows write the tuples added since the last commit as one chunk
    and record which stored tuples expired (deleting a chunk once all of its
    tuples have); message-id windows write a small index entry per held tuple
    (its stream, id, arrival number and timestamp) instead of the tuple. Both write
    the system state (policies, watermark, timers) and the user state's changes,
    in one atomic commit per batch.

    A plain ``BaseWindowedBolt`` run by this executor (as distributed mode runs
    every windowed bolt, so that any worker process can resume its task) persists
    its windows and has no user state. With ``persist_windows`` (distributed
    mode) a message-id window stores its tuples too: a task that moves to
    another process was not failed, and no source replays its window.
    """

    def __init__(
        self, bolt: BaseWindowedBolt, *, store: WindowStore, persist_windows: bool = False, **kwargs: Any
    ) -> None:
        self.stateful = isinstance(bolt, BaseStatefulWindowedBolt)
        if isinstance(bolt, BaseStatefulWindowedBolt):
            bolt.validate_recovery(kwargs.get("component", ""))
        self.store = store
        self._schemas = Schemas()
        bound = bolt.window_config.max_events_in_memory
        self._pages = WindowPages(store, self._schemas, bound) if bound is not None else None
        self._msg_field = bolt.window_config.message_id_field  # before the base class builds its input check
        super().__init__(bolt, **kwargs)
        self.persistent = self.config.persistence or not self.stateful or persist_windows
        self._added: dict[int, Event[Tuple]] = {}
        self._added_blocks: list[tuple[Block, np.ndarray]] = []  # columnar blocks added since the commit, with ts
        self._removed: list[np.ndarray] = []  # arrival numbers that expired since the commit
        self._commit_seq = 0  # every tuple added since the last commit has an arrival number at least this
        self._progress: dict[StreamKey, list[int]] = {}  # stream -> [last expired id, last evaluated id]
        self._recovery: _Recovery | None = None
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
        self._progress = {(s, st): [expired, evaluated] for s, st, expired, evaluated in meta["progress"]}
        expired_seqs = set(meta["expired"])
        if self._pages is not None:
            self._pages.schemas = self._schemas
            loose = self._pages.resume(self.manager.eviction.buffer, meta["next_page"])
            held = [e for e in loose if e.seq not in expired_seqs]
            self.restore(meta["system"], held, [e for e in loose if e.seq in expired_seqs])
            return
        if self.persistent:
            events = self._chunks.load(self.store, self._schemas)
            held = [e for e in events if e.seq not in expired_seqs]
            expired = [e for e in events if e.seq in expired_seqs]
            blocks = resumed_blocks(self._chunks.loaded, expired_seqs, expired)
            self._chunks.loaded = []
            self.restore(meta["system"], held, expired, blocks)
            return
        index: dict[tuple[StreamKey, int], tuple[int, int]] = {}
        for key, value in self.store.scan(INDEX_PREFIX):
            schema_id, msg_id, ts = unpack(value)
            source, stream, _ = self._schemas.get(schema_id)
            index[((source, stream), msg_id)] = (seq_of(key), ts)
        self._recovery = _Recovery(meta["system"], index, expired_seqs)
        if not index:
            self.finish_recovery()

    def restore(
        self, state: dict[str, Any], held: list[Event[Tuple]], expired: list[Event[Tuple]],
        blocks: Sequence[tuple[Block, Any]] = (),
    ) -> None:
        """Resume as :meth:`WindowedBoltExecutor.restore`; every tuple it holds is stored."""
        super().restore(state, held, expired, blocks)
        self._commit_seq = self.manager.next_seq

    # Input ------------------------------------------------------------------------------------
    def execute(self, tup: Tuple) -> None:
        """Process a tuple; while recovering, replayed tuples refill the window instead."""
        if self._recovery is not None:
            self._replay(tup, self._recovery)
        else:
            super().execute(tup)

    def execute_batch(self, batch: TaskInput) -> None:
        """Process a batch as one by one: while recovering, each replayed tuple refills the window; the rest at once."""
        if self._recovery is None:
            super().execute_batch(batch)
            return
        tuples = batch.tuples()
        done = 0
        while self._recovery is not None and done < len(tuples):
            self._replay(tuples[done], self._recovery)
            done += 1
        if done < len(tuples):
            self._add_batch(tuples[done:] if done else tuples)

    def _replay(self, tup: Tuple, recovery: _Recovery) -> None:
        stream = (tup.source_component, tup.stream)
        try:
            msg_id = self._message_id(tup)
        except TupleError as error:
            self.reject(tup, error)
            return
        found = recovery.index.pop((stream, msg_id), None)
        if found is None:
            last_expired = self._progress.get(stream, [None, None])[0]
            if last_expired is not None and msg_id <= last_expired:
                return  # expired and acknowledged before the restart
            recovery.waiting.append(tup)  # new since the last commit: processed once the window is refilled
            return
        seq, ts = found
        recovery.refilled.append(Event(tup, ts, seq))
        if not recovery.index:
            self.finish_recovery()

    def finish_recovery(self) -> None:
        """End a message-id restart: resume the window with the refilled tuples, then process the rest.

        Called when every held tuple has been replayed, or at the end of the first
        batch after a restart; tuples the source did not replay are reported (they
        cannot be recovered without persistence) rather than silently forgotten.
        """
        recovery, self._recovery = self._recovery, None
        if recovery is None:
            return
        if recovery.index:
            log.warning(
                "%s: %d tuples of the window were not replayed by the source and are lost to it; message-id "
                "recovery needs a source that replays unacknowledged tuples (or use with_persistence()): %s",
                self.component, len(recovery.index), sorted(recovery.index)[:10],
            )
        held = [e for e in recovery.refilled if e.seq not in recovery.expired_seqs]
        expired = [e for e in recovery.refilled if e.seq in recovery.expired_seqs]
        self.restore(recovery.system, held, expired)
        for tup in recovery.waiting:
            super().execute(tup)

    def end_batch(self) -> None:
        """A batch is complete: a restart's refill is over by now; then the batch-end watermark, if on."""
        self.finish_recovery()
        super().end_batch()

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

    def on_activation(self, window: TupleWindow[Tuple]) -> None:
        """Run the window, then record message-id progress (last expired and last evaluated ids)."""
        super().on_activation(window)
        if self._msg_field is not None:
            self._advance_progress(window.get_expired(), 0)
            self._advance_progress(window.get_new(), 1)

    def _advance_progress(self, tuples: list[Tuple], slot: int) -> None:
        for tup in tuples:
            entry = self._progress.setdefault((tup.source_component, tup.stream), [None, None])  # type: ignore[list-item]
            msg_id = self._message_id(tup)
            if entry[slot] is None or msg_id > entry[slot]:
                entry[slot] = msg_id

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
        self.finish_recovery()  # a commit records a resumed window, never a half-refilled one
        stored, unstored = self._expired_since_commit()
        for seq in unstored.tolist() if self._added else ():
            self._added.pop(seq, None)
        if self._pages is not None:
            puts, deletes = self._page_writes(self._pages)
        elif self.persistent:
            puts, deletes = self._chunks.writes(self._added, stored, self._schemas,
                                                new_rows(self._added_blocks, unstored), self.config.timestamp_field)
        else:
            puts, deletes = dict(self._index_writes()), [seq_key(INDEX_PREFIX, seq) for seq in stored.tolist()]
        puts[META_KEY] = pack(self._meta())
        self.user_state.write_to(StateWrites(puts, deletes))  # type: ignore[arg-type]
        applied = self.store.commit(batch_id, puts, deletes)
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

    def _index_writes(self) -> Iterator[tuple[bytes, bytes]]:
        for seq, event in self._added.items():
            tup = event.value
            record = [self._schemas.id_of(tup), self._message_id(tup), event.ts]
            yield seq_key(INDEX_PREFIX, seq), pack(record)

    def _meta(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "system": self.state(),
            "schemas": self._schemas.to_data(),
            "expired": _seqs(self.manager.eviction.expired),
            "progress": [[s, st, exp, ev] for (s, st), (exp, ev) in self._progress.items()],
            "next_page": self._pages.next_page_id if self._pages is not None else 0,
        }

    @property
    def recovering(self) -> bool:
        """Whether a message-id restart is still waiting for replayed tuples."""
        return self._recovery is not None
