"""How a windowed aggregation's task state is kept in a state backend: incremental writes per batch.

Keys inside the task's namespace:

- ``meta``: the task's system state (processing time, timers, watermark, the
  inputs' watermarks, counters, the window numbering, the batch in progress).
- ``w/<seq>``: one live window (:meth:`WindowState.to_data`) under its creation
  number as 8 big-endian bytes, so a prefix scan returns windows in creation order.
- ``b/<key>``: one key's time-difference partial aggregates, ``[times, [[acc, n], ...]]``.

A commit writes the windows and buckets that changed since the last commit and
deletes the windows that went away, so its size follows the batch, not the state.
Values go through :mod:`bolts.codecs.value_codec`, so accumulators may hold tuples,
datetimes and panes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bolts.aggregate.window_state import WindowState
from bolts.aggregate.windows import TableChanges, WindowTable
from bolts.codecs.value_codec import pack_value, unpack_value, value_pack_function
from bolts.codecs.window_state_codec import META_KEY, seq_key
from bolts.task_store import WindowStore

WINDOW_PREFIX = b"w/"
BUCKET_PREFIX = b"b/"


@dataclass(frozen=True)
class SavedTask:
    """A task's committed state as read back: system state, windows in creation order, buckets."""

    system: dict[str, Any]
    windows: list[WindowState]
    buckets: list[list[Any]]  # [key, times, [[acc, n], ...]]


def state_writes(
    system: dict[str, Any], changes: TableChanges, table: WindowTable
) -> tuple[dict[bytes, bytes], list[bytes]]:
    """The puts and deletes that bring the committed state up to date with ``system`` and ``changes``."""
    puts = {META_KEY: pack_value(system)}
    pack = value_pack_function()  # one packer for the batch's windows
    puts.update({seq_key(WINDOW_PREFIX, seq): pack(ws.to_data()) for seq, ws in changes.windows.items()})
    deletes = [seq_key(WINDOW_PREFIX, seq) for seq in sorted(changes.deleted)]
    for key in changes.bucket_keys:
        name = BUCKET_PREFIX + pack_value(list(key))
        if key in table.times:
            puts[name] = pack_value([table.times[key], table.buckets[key]])
        else:
            deletes.append(name)
    return puts, deletes


def load(store: WindowStore, check: Callable[[dict[str, Any]], None] | None = None) -> SavedTask | None:
    """The last committed state in ``store``; None when nothing was committed.

    ``check`` sees the system state before any window is decoded (the task's
    version check, so an old layout fails with its message, not while unpacking).
    """
    meta = store.get(META_KEY)
    if meta is None:
        return None
    system = unpack_value(meta)
    if check is not None:
        check(system)
    windows = [WindowState.from_data(unpack_value(v)) for _, v in store.scan(WINDOW_PREFIX)]
    buckets = []
    for name, value in store.scan(BUCKET_PREFIX):
        times, accs = unpack_value(value)
        buckets.append([unpack_value(name[len(BUCKET_PREFIX) :]), times, accs])
    return SavedTask(system, windows, buckets)
