"""A batch's session tuples, held until the batch closes and then placed: on columns where they came as Arrow.

Session windows are placed when the batch closes, after the proto-sessions of
each key are merged with each other and with the open sessions they overlap,
as Beam's ``ReduceFnRunner.processElements`` merges a bundle's windows first
(:meth:`bolts.aggregate.windows.WindowTable.plan_sessions`). The per-tuple path
does that tuple by tuple and is the oracle
(``tests/event_time/test_columnar_sessions.py``). A batch whose session
tuples all came in Arrow segments (a timestamp field, an aggregator with
``add_column``) is placed on columns instead, with the same result:

1. at delivery, each segment's rows whose proto-session ``[ts, ts + gap)`` is
   past the allowed lateness are late (in row order, as ``execute`` finds them);
   the others are held as arrays (timestamps, key codes, row numbers);
2. when the batch closes, the held rows are sorted by key and timestamp and cut
   into proto-session runs where two timestamps are a gap apart (or more; one
   millisecond less under Spark's rules, where touching sessions merge); each
   run is merged with the key's open sessions it overlaps, and runs that the
   same sessions join become one session (:func:`session_runs`);
3. each merged session is settled in the order of its first row in the batch,
   which is the order the per-tuple path creates and merges windows in: an open
   session it equals takes its rows, one created or merged
   (``WindowTable.merged_window``) takes them, and one whose bounds are a closed
   session's loses its open parts and its rows (closed-window drops); every
   session's rows go into its accumulator with one ``add_groups`` call, its
   trigger is told with one ``on_elements`` call, its holds added once.

If the aggregator refuses the rows, nothing has changed yet (merged windows are
built aside and installed only afterwards) and the batch is placed tuple by
tuple, which rejects or names the tuple at fault. So is a batch where some
session tuples came one by one (from an upstream bolt, or refused on columns).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from bolts.aggregate.columnar import PlacingTask, row_millis
from bolts.aggregate.holds import add_holds
from bolts.aggregate.row_groups import add_rows, key_codes, read_columns
from bolts.aggregate.window_state import Key, WindowState
from bolts.errors import TupleError
from windowing.assigners import Window
from windowing.triggers.context import TriggerContext

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    from bolts.aggregate.spec import AggregateSpec
    from bolts.aggregate.windows import WindowTable
    from bolts.task_input import Segment
    from bolts.tuples import Tuple


class SessionTask(PlacingTask, Protocol):
    """What placing session tuples reads and changes of its task (an ``bolts.aggregate.task.AggregateTask``)."""

    _screens: bool

    def _place(self, tup: Tuple, key: Key, ts: int) -> None: ...

    def reject(self, tup: Tuple, error: Exception) -> None:
        """Send ``tup`` to the error stream, or raise ``error``."""


@dataclass
class HeldRows:
    """A segment's on-time rows waiting for their batch to close: row numbers, timestamps, key codes and keys."""

    segment: Segment
    rows: np.ndarray
    ts: np.ndarray
    codes: np.ndarray
    keys: list[Key]

    def tuples(self) -> list[tuple[Tuple, int]]:
        """The held rows as ``(Tuple, ts)``, in order."""
        built = self.segment.tuples()
        return [(built[row], ts) for row, ts in zip(self.rows.tolist(), self.ts.tolist(), strict=True)]


class PendingSessions:
    """The session tuples of the open batch, in arrival order: tuples one by one, or segments' rows."""

    def __init__(self) -> None:
        self.items: list[HeldRows | tuple[Tuple, Key, int]] = []

    def hold_tuple(self, task: SessionTask, tup: Tuple, key: Key, ts: int, watermark: int) -> None:
        """Keep a session tuple until the batch closes (a late one is dropped at once)."""
        if task.table.expired(Window(ts, ts + task.spec.assigner.gap_ms), watermark):  # type: ignore[union-attr]
            task._late(tup, ts)
        else:
            self.items.append((tup, key, ts))

    def hold_segment(self, task: SessionTask, segment: Segment, watermark: int) -> bool:
        """Hold an Arrow segment's rows as :meth:`hold_tuple` of each would; False (nothing held) to go one by one.

        With an error stream the rows are first offered to the aggregator one by
        one on columns (``add_groups`` of each row into its own accumulator): a row
        it refuses sends the segment one by one, to be rejected as ``execute`` does.
        """
        import numpy as np

        spec, table = task.spec, segment.table
        if table is None or (task._screens and not _each_row_taken(spec, table)):
            return False
        ts = row_millis(task, table)
        codes, keys = key_codes(spec, table)
        task.marks.track((segment.source_component, segment.stream), int(ts.max()))
        live = ts + spec.assigner.gap_ms > watermark - spec.allowed_lateness_ms  # type: ignore[union-attr]
        late = np.flatnonzero(~live)
        if len(late):
            for row in late.tolist():
                task._late(segment.tuple_at(row) if len(late) < 64 else segment.tuples()[row], int(ts[row]))
        rows = np.flatnonzero(live)
        if len(rows):
            self.items.append(HeldRows(segment, rows, ts[rows], codes[rows], keys))
        return True

    def place(self, task: SessionTask, watermark: int) -> None:
        """Place the held tuples: on columns when all came as Arrow and the aggregator takes them, else one by one."""
        items, self.items = self.items, []
        if not items:
            return
        held = [item for item in items if isinstance(item, HeldRows)]
        if len(held) == len(items) and place_columns(task, held, watermark):
            return
        _place_tuples(task, [entry for item in items for entry in _as_tuples(task, item)], watermark)


def _each_row_taken(spec: AggregateSpec, table: pa.Table) -> bool:
    """Whether the aggregator takes every row of ``table`` into an empty accumulator of its own."""
    import numpy as np

    create = spec.aggregator.create
    rows = read_columns(spec, table)
    return add_rows(spec, rows, [create() for _ in range(rows.num_rows)], np.arange(rows.num_rows)) is not None


def _as_tuples(task: SessionTask, item: HeldRows | tuple[Tuple, Key, int]) -> list[tuple[Tuple, Key, int]]:
    if not isinstance(item, HeldRows):
        return [item]
    return [(tup, task.spec.key_of(tup), ts) for tup, ts in item.tuples()]


def _place_tuples(task: SessionTask, pending: list[tuple[Tuple, Key, int]], watermark: int) -> None:
    """Place session tuples one by one into the batch's merged sessions (``WindowTable.plan_sessions``)."""
    task.table.plan_sessions([(key, ts) for _, key, ts in pending], watermark)
    try:
        for tup, key, ts in pending:
            try:
                task._place(tup, key, ts)
            except TupleError as error:
                task.reject(tup, error)
    finally:
        task.table.plan_sessions([], watermark)


# On columns ------------------------------------------------------------------------------------------------------
@dataclass
class Settled:
    """One merged session of the batch and where its rows go.

    ``target``: the open window taking the rows (None: they are dropped);
    ``merged``: a merged window built aside, installed over ``parts``;
    ``parts``: open sessions it replaces (or that a closed session swallows).
    """

    key: Key
    window: Window
    target: WindowState | None
    merged: WindowState | None = None
    parts: tuple[WindowState, ...] = ()
    fresh: bool = False  # a new window, created over the run when the rows are in


def place_columns(task: SessionTask, held: list[HeldRows], watermark: int) -> bool:
    """Place the held rows of a batch's Arrow segments as :func:`_place_tuples` would (see the module docstring).

    False, with nothing changed, when the rows cannot be put together or the
    aggregator refuses them.
    """
    import numpy as np

    codes, ts, keys = _combined(held)
    rows = _rows_table(task.spec, held)
    if rows is None:
        return False
    runs = session_runs(task.table, keys, codes, ts, task.spec.assigner.gap_ms)  # type: ignore[union-attr]
    run_of_row, run_keys, windows, absorbed = runs
    first = np.full(len(windows), len(ts), np.int64)
    np.minimum.at(first, run_of_row, np.arange(len(ts)))
    order = np.argsort(first, kind="stable")
    now = task.clock.now()
    settled = [_settle(task.table, keys[run_keys[r]], windows[r], absorbed[r], watermark, now) for r in order.tolist()]
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    row_target = rank[run_of_row]  # each row's settled session, in settling order
    accs = _accumulate(task.spec, rows, settled, row_target)
    if accs is None:
        return False
    _apply(task, settled, accs, row_target, ts, watermark, codes, keys)
    return True


def _combined(held: list[HeldRows]) -> tuple[np.ndarray, np.ndarray, list[Key]]:
    """The held rows' key codes (over one list of keys) and timestamps, in arrival order, and the keys."""
    import numpy as np

    index: dict[Key, int] = {}
    codes = []
    for part in held:
        local = np.array([index.setdefault(key, len(index)) for key in part.keys], np.int64)
        codes.append(local[part.codes])
    return np.concatenate(codes), np.concatenate([part.ts for part in held]), list(index)


def _rows_table(spec: AggregateSpec, held: list[HeldRows]) -> pa.Table | None:
    """The held rows, the columns the aggregator reads, as one table in arrival order (None: schemas differ)."""
    import pyarrow as pa

    tables = [read_columns(spec, part.segment.table).take(pa.array(part.rows)) for part in held]  # type: ignore[arg-type]
    if len(tables) == 1:
        return tables[0]
    try:
        return pa.concat_tables(tables)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def session_runs(
    table: WindowTable, keys: list[Key], codes: np.ndarray, ts: np.ndarray, gap: int
) -> tuple[np.ndarray, list[int], list[Window], list[list[Window]]]:
    """The batch's merged sessions: each row's session, and per session its key code, window and open parts.

    Proto-sessions ``[ts, ts + gap)`` of a key are cut into runs where they stop
    overlapping (with Spark's rules, touching); each run joins the key's open
    sessions it overlaps, and consecutive runs of a key that reach each other so
    become one session: the runs ``WindowTable.plan_sessions`` finds, with the
    open sessions each absorbs, sorted by start.
    """
    import numpy as np

    reach = table.touching
    order = np.lexsort((ts, codes))
    sorted_codes, sorted_ts = codes[order], ts[order]
    cut = np.r_[True, (sorted_codes[1:] != sorted_codes[:-1]) | (np.diff(sorted_ts) >= gap + reach)]
    firsts = np.flatnonzero(cut)
    ends = sorted_ts[np.r_[firsts[1:], len(ts)] - 1] + gap
    protos = zip(sorted_codes[firsts].tolist(), sorted_ts[firsts].tolist(), ends.tolist(), strict=True)
    run_keys: list[int] = []
    windows: list[Window] = []
    absorbed: list[list[Window]] = []
    run_of_proto: list[int] = []
    for code, start, end in protos:
        window = Window(start, end)
        found = table.sessions_overlapping(keys[code], window) if keys[code] in table.sessions else []
        for session in found:
            window = window.span(session)
        if run_keys and run_keys[-1] == code and window.start < windows[-1].end + reach:
            windows[-1] = windows[-1].span(window)
            absorbed[-1].extend(w for w in found if w not in absorbed[-1])
        else:
            run_keys.append(code)
            windows.append(window)
            absorbed.append(list(found))
        run_of_proto.append(len(windows) - 1)
    run_of_row = np.empty(len(ts), np.int64)
    run_of_row[order] = np.asarray(run_of_proto, np.int64)[np.cumsum(cut) - 1]
    return run_of_row, run_keys, windows, absorbed


def _settle(table: WindowTable, key: Key, window: Window, absorbed: list[Window], watermark: int,
            now: int) -> Settled:
    """Where the rows of the merged session ``window`` go, as ``WindowTable.place`` decides for its first tuple.

    Nothing in the table changes: a merged window is built aside.
    """
    mine = table.by_key.get(key, {})
    if absorbed == [window]:
        return Settled(key, window, mine[window])  # an open session holds the whole run
    closed = mine.get(window)
    if closed is not None:  # the merge lands on a closed session: its open parts and the rows are lost
        return Settled(key, window, None, parts=tuple(mine[w] for w in absorbed))
    if not absorbed:
        return Settled(key, window, None, fresh=True)
    sources = [mine[w] for w in absorbed]
    merged = table.merged_window(key, window, sources, watermark, now)
    return Settled(key, window, None if merged.closed else merged, merged=merged, parts=tuple(sources))


def _accumulate(spec: AggregateSpec, rows: pa.Table, settled: list[Settled],
                row_target: np.ndarray) -> list[Any] | None:
    """Each settled session's accumulator with its rows added (None where its rows are dropped).

    None when the aggregator refuses the rows; no accumulator of the table changed then.
    """
    import numpy as np
    import pyarrow as pa

    taking = np.array([s.target is not None or s.fresh for s in settled], bool)
    number = np.cumsum(taking) - 1
    mask = taking[row_target]
    create = spec.aggregator.create
    accs = [create() if s.target is None else s.target.acc for s in settled if s.target is not None or s.fresh]
    taken = rows if mask.all() else rows.filter(pa.array(mask))
    added = add_rows(spec, taken, accs, number[row_target[mask]])
    if added is None:
        return None
    out: list[Any] = [None] * len(settled)
    for i, acc in zip(np.flatnonzero(taking).tolist(), added, strict=True):
        out[i] = acc
    return out


def _apply(task: SessionTask, settled: list[Settled], accs: list[Any], row_target: np.ndarray, ts: np.ndarray,
           watermark: int, codes: np.ndarray, keys: list[Key]) -> None:
    """Install the settled sessions in order, add their rows' accumulators, tell their triggers and holds."""
    import numpy as np

    table, spec, now = task.table, task.spec, task.clock.now()
    outputs = np.array([table.output_watermark(key) for key in keys], np.int64)
    counts = np.bincount(row_target, minlength=len(settled)).tolist()
    low, high, behind = _hold_spans(ts, row_target, outputs[codes], len(settled))
    for i, s in enumerate(settled):
        if s.merged is not None:
            table.install(s.merged, s.parts)
        elif s.parts:  # landed on a closed session
            task.closed_window_drops += sum(ws.batch_tuples for ws in s.parts)
            for ws in s.parts:
                table.delete(ws)
        ws = table.create(s.key, s.window, accs[i]) if s.fresh else s.target
        if ws is None:
            task.closed_window_drops += counts[i]
            continue
        ws.acc = accs[i]
        ctx = TriggerContext(ws.trigger, window_end=ws.window.end, watermark=watermark, now=now, timers=ws.timers,
                             merging=spec.merging)
        spec.trigger.on_elements(ctx, counts[i])
        ws.has_new = True
        ws.batch_tuples += counts[i]
        held = None if low[i] is None else (low[i], high[i])
        add_holds(ws, spec, held, behind[i] > 0, input_wm=watermark, output_wm=table.output_watermark(ws.key))
        task.dirty[ws.wid] = None
        table.touch(ws)


def _hold_spans(ts: np.ndarray, row_target: np.ndarray, row_outputs: np.ndarray,
                count: int) -> tuple[list[int | None], list[int], list[int]]:
    """Per session, the lowest and highest timestamps of its rows that hold, and how many cannot.

    A row holds when it is not behind its key's output watermark
    (``row_outputs``); the lowest is None for a session without such a row.
    """
    import numpy as np

    held = ts >= row_outputs
    low = np.full(count, np.iinfo(np.int64).max)
    high = np.full(count, np.iinfo(np.int64).min)
    np.minimum.at(low, row_target[held], ts[held])
    np.maximum.at(high, row_target[held], ts[held])
    present = np.bincount(row_target[held], minlength=count) > 0
    lows = [int(v) if ok else None for v, ok in zip(low.tolist(), present.tolist(), strict=True)]
    return lows, high.tolist(), np.bincount(row_target[~held], minlength=count).tolist()
