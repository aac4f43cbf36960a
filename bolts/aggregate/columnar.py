"""A windowed aggregation's batch placed on columns: windows assigned and rows added per window, not per tuple.

For fixed, sliding and global windows, with a timestamp field (or at ingress
time: no timestamp field and no extractor, every row of a batch at the
processing time the batch runs at) and an aggregator that has ``add_column``,
an Arrow segment of a batch is placed at once: each row's windows are
computed with numpy, expired windows dropped, rows grouped by (key, window)
(dense arrays indexed by key and window slot, no sort, when they are few),
every window's rows added in one
``add_groups`` call of the aggregator (or one ``add_column`` call per window)
on only the columns it reads, new windows created in one pass, and each
window's trigger told with one ``on_elements`` call (none when it ignores
tuples) and its holds added once (decided for all windows with one array
comparison under the ``end_of_window`` combiner). The result is exactly what adding the rows one by one
gives (the per-tuple path is the oracle of ``tests/event_time/test_columnar_aggregation.py``):

- windows are created, and marked for their trigger, in first-touch order: by
  row, then by window start within a row;
- the watermark does not move inside a batch, so expiry and lateness are
  decided against the one watermark;
- a row none of whose windows is live is late, in row order (sent to the late
  stream as a ``Tuple``); a row whose live windows are all closed is counted.

Rows that carry a retraction (``is_retraction``), rows without an integer
timestamp, and everything the fast path does not cover take the per-tuple path.
So does a segment whose values the aggregator refuses (``sum`` of a str): the
aggregator runs before any window is created or changed, so the segment is left
as it came, and the per-tuple path names (or rejects) the exact tuple.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from bolts.aggregate.holds import add_gc_hold, add_holds
from bolts.aggregate.row_columns import with_columns
from bolts.aggregate.row_groups import add_rows, first_touch_groups, key_codes, read_columns
from bolts.aggregate.spec import RETRACTION_FIELD, AggregateSpec
from bolts.aggregate.windows import WindowId, WindowTable
from bolts.task_input import Segment
from bolts.timestamps import column_millis, is_timestamp_column
from windowing.aggregators import is_columnar, read_fields
from windowing.assigners import FixedWindows, GlobalWindows, Sessions, SlidingWindows
from windowing.triggers.base import Trigger
from windowing.triggers.context import TriggerContext

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    from bolts.aggregate.input_watermarks import InputWatermarks
    from bolts.aggregate.window_state import WindowState
    from bolts.tuples import Tuple
    from windowing.clock import ManualClock


class PlacingTask(Protocol):
    """What placing a segment reads and changes of its task (an ``bolts.aggregate.task.AggregateTask``)."""

    spec: AggregateSpec
    table: WindowTable
    clock: ManualClock
    marks: InputWatermarks
    dirty: dict[WindowId, None]
    closed_window_drops: int

    def _late(self, tup: Tuple, ts: int) -> None: ...


def supports(spec: AggregateSpec) -> bool:
    """Whether batches of this aggregation can be placed on columns (decided once, when the task is built).

    Fixed, sliding, global and session windows, and panes re-aggregated in
    their own windows (no assigner: each row's ``window_start`` and ``window_end``),
    with a timestamp field or at ingress time; never with a timestamp extractor
    (a Python function of each tuple).
    """
    return (
        (spec.assigner is None or type(spec.assigner) in (FixedWindows, SlidingWindows, GlobalWindows, Sessions))
        and (spec.timestamp_field is not None or spec.timestamp_extractor is None)
        and is_columnar(spec.aggregator)
    )


def needed_fields(spec: AggregateSpec) -> list[str]:
    """The fields placing on columns reads: the timestamp, the key, the aggregator's, an upstream pane's window."""
    timestamp = [] if spec.timestamp_field is None else [spec.timestamp_field]
    needed = [*timestamp, *(spec.key_fields or ()), *(read_fields(spec.aggregator) or ())]
    if spec.assigner is None:
        needed += INHERITED_BOUNDS
    return list(dict.fromkeys(needed))


def row_millis(task: PlacingTask, table: pa.Table) -> np.ndarray:
    """Each row's timestamp in ms: its timestamp field's, or at ingress time the task's processing time.

    Processing time stands still while a batch is delivered, so at ingress time
    every row of a segment has the time its tuple would get one by one.
    """
    import numpy as np

    field = task.spec.timestamp_field
    if field is None:
        return np.full(table.num_rows, task.clock.now(), np.int64)
    return column_millis(table.column(field))


def takes(spec: AggregateSpec, segment: Segment) -> bool:
    """Whether ``segment`` can be placed on columns: an Arrow table, every field read, timestamps readable as ms.

    A segment with upstream retractions (a true ``is_retraction``) goes tuple
    by tuple; so does one whose panes' window bounds are not integers.
    """
    table = segment.table
    if table is None or not table.num_columns:
        return False
    if any(name not in segment.fields for name in needed_fields(spec)):
        return False  # the per-tuple path names the missing field
    if RETRACTION_FIELD in segment.fields and not _all_false(table.column(RETRACTION_FIELD)):
        return False
    if spec.assigner is None and not all(_integers(table.column(name)) for name in INHERITED_BOUNDS):
        return False
    return spec.timestamp_field is None or is_timestamp_column(table.column(spec.timestamp_field))


INHERITED_BOUNDS = ("window_start", "window_end")


def with_row_columns(spec: AggregateSpec, segment: Segment) -> Segment:
    """A segment of an upstream bolt's rows with the columns placing reads beside them, when they convert exactly.

    ``segment`` itself when it already has a table, or when its rows stay rows
    (:func:`bolts.aggregate.row_columns.with_columns`).
    """
    if segment.table is not None:
        return segment
    if read_fields(spec.aggregator) is None:  # the aggregator reads any field: every column
        fields = list(segment.fields)
    else:
        fields = [*needed_fields(spec), *((RETRACTION_FIELD,) if RETRACTION_FIELD in segment.fields else ())]
    return with_columns(segment, fields) or segment


def _all_false(column: Any) -> bool:
    import pyarrow as pa
    import pyarrow.compute as pc

    return pa.types.is_boolean(column.type) and column.null_count == 0 and not pc.any(column).as_py()


def _integers(column: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_integer(column.type) and column.null_count == 0


_FEW = 16  # windows per row up to which they are computed a window at a time


def _windows(
    spec: AggregateSpec, ts: np.ndarray, table: pa.Table | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every (row, window) pair, oldest window first per row: the row index, the window start and end.

    ``table``: the rows, read for their own windows when the aggregation has no assigner.
    """
    import numpy as np

    rows = np.arange(len(ts))
    assigner = spec.assigner
    if assigner is None:  # an upstream pane's own window
        assert table is not None
        start, end = (table.column(name).to_numpy().astype(np.int64, copy=False) for name in INHERITED_BOUNDS)
        return rows, start, end
    if isinstance(assigner, GlobalWindows):
        window = assigner.assign(0)[0]
        return rows, np.full(len(ts), window.start, np.int64), np.full(len(ts), window.end, np.int64)
    if isinstance(assigner, FixedWindows):
        starts = ts - np.remainder(ts - assigner.offset_ms, assigner.size_ms)
        return rows, starts, starts + assigner.size_ms
    period, size, offset = assigner.period_ms, assigner.size_ms, assigner.offset_ms  # type: ignore[union-attr]
    if offset:  # the windows of ts - offset, moved by offset
        pair_rows, starts, ends = _pairs_from_epoch(ts - offset, period, size, rows)
        return pair_rows, starts + offset, ends + offset
    return _pairs_from_epoch(ts, period, size, rows)


def _pairs_from_epoch(ts: np.ndarray, period: int, size: int, rows: np.ndarray) -> tuple[Any, Any, Any]:
    """The (row, window start, window end) pairs of sliding windows that start at multiples of ``period``."""
    import numpy as np

    last = ts - np.remainder(ts, period)
    per_row = size // period
    if size % period == 0 and per_row <= _FEW:  # every row is in size / period windows: no per-row counts
        first = last - (per_row - 1) * period
        starts = np.empty((len(ts), per_row), np.int64)
        for j in range(per_row):  # a column per window of a row (faster than broadcasting a narrow last axis)
            np.add(first, j * period, out=starts[:, j])
        starts = starts.reshape(-1)
        return np.repeat(rows, per_row), starts, starts + size
    first = -np.floor_divide(-(ts - size + 1), period) * period
    count = np.maximum((last - first) // period + 1, 0)
    pair_rows = np.repeat(rows, count)
    offsets = np.arange(len(pair_rows)) - np.repeat(np.cumsum(count) - count, count)
    starts = first[pair_rows] + offsets * period
    return pair_rows, starts, starts + size


def place_segment(task: PlacingTask, segment: Segment, watermark: int) -> bool:
    """Add ``segment``'s rows to their windows as ``task.execute`` would one by one (see the module docstring).

    False, with nothing changed, when the aggregator refuses the rows: the caller
    then executes them one by one.
    """
    import numpy as np

    spec, table = task.spec, segment.table
    if table is None:
        msg = "place_segment: the segment holds rows, not a table; execute its tuples instead"
        raise ValueError(msg)
    ts = row_millis(task, table)
    codes, keys = key_codes(spec, table)
    pair_rows, starts, ends = _windows(spec, ts, table)
    live = ends > watermark - spec.allowed_lateness_ms  # end + lateness > watermark, without overflow
    pair_rows, starts, ends = pair_rows[live], starts[live], ends[live]
    open_pairs = np.zeros(len(pair_rows), bool)
    if len(pair_rows) and not _add_groups(
        task, segment, watermark, ts, keys, codes[pair_rows], pair_rows, starts, ends, open_pairs
    ):
        return False
    task.marks.track((segment.source_component, segment.stream), int(ts.max()))
    _report_unplaced(task, segment, ts, pair_rows, open_pairs)
    return True


def _add_groups(
    task: PlacingTask,
    segment: Segment,
    watermark: int,
    ts: np.ndarray,
    keys: list[tuple[Any, ...]],
    pair_keys: np.ndarray,
    pair_rows: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    open_pairs: np.ndarray,
) -> bool:
    """Each (key, window) group's rows into its window, groups in first-touch order; marks the pairs added.

    False, with no window created or changed, when the aggregator refuses the rows.
    """
    import numpy as np
    import pyarrow as pa

    spec, table = task.spec, task.table
    slots, slot_count = _slots(spec, starts, ends)
    group_of_pair, first_pair = first_touch_groups(pair_keys * slot_count + slots)
    # The open windows in first-touch order (a closed window takes no rows); new ones are created, in that
    # order, only once the aggregator has taken the rows.
    group_keys = pair_keys[first_pair]
    wids = [(keys[k], s, e) for k, s, e in zip(group_keys.tolist(), starts[first_pair].tolist(),
                                                ends[first_pair].tolist(), strict=True)]
    found = [table.windows.get(wid) for wid in wids]
    if any(ws is not None and ws.closed for ws in found):
        is_open = np.array([ws is None or not ws.closed for ws in found], bool)
        wids = [wid for wid, ok in zip(wids, is_open.tolist(), strict=True) if ok]
        found = [ws for ws, ok in zip(found, is_open.tolist(), strict=True) if ok]
        group_keys = group_keys[is_open]
        group_of_pair = np.where(is_open, np.cumsum(is_open) - 1, -1)[group_of_pair]  # -1: a closed window's
    open_pairs[:] = group_of_pair >= 0
    if not wids:
        return True
    # Row-major: each window's rows in row order.
    rows, row_window = (pair_rows, group_of_pair) if open_pairs.all() else (pair_rows[open_pairs],
                                                                            group_of_pair[open_pairs])
    create = spec.aggregator.create
    taken = read_columns(spec, segment.table).take(pa.array(rows))  # type: ignore[arg-type]
    accs = add_rows(spec, taken, [create() if ws is None else ws.acc for ws in found], row_window)
    if accs is None:
        return False
    fresh = [i for i, ws in enumerate(found) if ws is None]
    opened = list(found)
    for ws, acc in zip(found, accs, strict=True):
        if ws is not None:
            ws.acc = acc
    for i, ws in zip(fresh, table.create_many([wids[i] for i in fresh], [accs[i] for i in fresh]), strict=True):
        opened[i] = ws
    outputs = _output_watermarks(table, keys, group_keys)
    _tell_triggers(task, watermark, opened, wids, row_window)
    if spec.timestamp_combiner == "end_of_window":
        _hold_ends(task, watermark, opened, wids, outputs)
    else:
        _hold_rows(task, watermark, opened, ts[rows], row_window, outputs)
    for ws in opened:
        ws.has_new = True
    task.dirty.update(dict.fromkeys(wids))
    table.touch_many(opened)
    return True


def _output_watermarks(table: WindowTable, keys: list[tuple[Any, ...]], group_keys: np.ndarray) -> np.ndarray:
    """Each group's key's output watermark (:meth:`WindowTable.output_watermark`), one look-up per held key."""
    import numpy as np

    if not table.output_marks:  # no key is held back: every key's is the input watermark at the last move
        return np.full(len(group_keys), table.output_base, np.int64)
    return np.array([table.output_watermark(key) for key in keys], np.int64)[group_keys]


def _tell_triggers(
    task: PlacingTask, watermark: int, opened: list[WindowState], wids: list[WindowId], row_window: np.ndarray
) -> None:
    """Tell each window's trigger, with one ``on_elements`` call, how many rows it took (unless it ignores them)."""
    import numpy as np

    trigger = task.spec.trigger
    if _ignores_elements(trigger):
        return
    now = task.clock.now()
    counts = np.bincount(row_window, minlength=len(opened)).tolist()
    for ws, wid, n in zip(opened, wids, counts, strict=True):
        trigger.on_elements(TriggerContext(ws.trigger, window_end=wid[2], watermark=watermark, now=now,
                                           timers=ws.timers), n)


def _hold_ends(
    task: PlacingTask, watermark: int, opened: list[WindowState], wids: list[WindowId], outputs: np.ndarray
) -> None:
    """:func:`bolts.aggregate.holds.add_holds` with the ``end_of_window`` combiner, decided for all windows at once.

    A window's rows hold at its ``max_timestamp`` (the same hold for each, so
    once is enough) when that is not behind ``outputs`` (its key's output
    watermark) and the watermark is before its end; else they add the GC hold.
    """
    import numpy as np

    ends = np.fromiter((wid[2] for wid in wids), np.int64, len(wids))
    holds = ((ends - 1 >= outputs) & (watermark < ends)).tolist()
    spec = task.spec
    for ws, wid, holds_end in zip(opened, wids, holds, strict=True):
        if not holds_end:
            add_gc_hold(ws, spec, input_wm=watermark, pane_is_empty=False)
        elif ws.hold is None:
            ws.hold = [wid[2] - 1, wid[2] - 1]  # else it is this already: only max_timestamp holds here


def _hold_rows(
    task: PlacingTask,
    watermark: int,
    opened: list[WindowState],
    row_ts: np.ndarray,
    row_window: np.ndarray,
    outputs: np.ndarray,
) -> None:
    """Each window's element hold widened once to its rows' timestamps, as their ``add_holds`` one by one would.

    ``outputs``: each window's key's output watermark; rows behind it do not
    hold (:func:`bolts.aggregate.holds.add_holds`).
    """
    import numpy as np

    none = np.iinfo(np.int64).max
    low = np.full(len(opened), none)
    high = np.full(len(opened), np.iinfo(np.int64).min)
    held = row_ts >= outputs[row_window]
    np.minimum.at(low, row_window[held], row_ts[held])
    np.maximum.at(high, row_window[held], row_ts[held])
    behind = np.bincount(row_window[~held], minlength=len(opened)).tolist()
    spec = task.spec
    for ws, lo, hi, late, output_wm in zip(opened, low.tolist(), high.tolist(), behind, outputs.tolist(), strict=True):
        add_holds(ws, spec, (lo, hi) if lo != none else None, late > 0, input_wm=watermark, output_wm=output_wm)


def _ignores_elements(trigger: Trigger) -> bool:
    """Whether the trigger's ``on_elements`` does nothing (it keeps ``Trigger``'s, which then returns at once)."""
    kind = type(trigger)
    return kind.on_elements is Trigger.on_elements and kind.on_element is Trigger.on_element


def _slots(spec: AggregateSpec, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, int]:
    """Each pair's window as a small number, and how many numbers there are (one more than the largest).

    The start's distance from the lowest start in window steps; when those are
    more than the pairs (timestamps far apart), the rank of the start among the
    distinct starts instead, so keys times slots stays small. Upstream panes'
    windows (no assigner) are ranked by start and end, since two of them may
    share a start.
    """
    import numpy as np

    assigner = spec.assigner
    if assigner is None:
        distinct, slots = np.unique(np.stack([starts, ends], axis=1), axis=0, return_inverse=True)
        return slots.reshape(-1), len(distinct)
    step = assigner.size_ms if isinstance(assigner, FixedWindows) else getattr(assigner, "period_ms", 1)
    low, high = int(starts.min()), int(starts.max())
    if (high - low) // step < len(starts):
        return (starts - low) // step, (high - low) // step + 1
    distinct, slots = np.unique(starts, return_inverse=True)
    return slots.reshape(-1), len(distinct)


def _report_unplaced(
    task: PlacingTask, segment: Segment, ts: np.ndarray, pair_rows: np.ndarray, open_pairs: np.ndarray
) -> None:
    """Rows with no live window are late (in row order); rows whose live windows are all closed are counted."""
    import numpy as np

    live = np.bincount(pair_rows, minlength=len(ts))
    if not open_pairs.all():  # else every row with a live window was placed
        placed = np.bincount(pair_rows[open_pairs], minlength=len(ts))
        task.closed_window_drops += int(np.count_nonzero((live > 0) & (placed == 0)))
    late = np.flatnonzero(live == 0)
    if len(late):
        tuples = segment.tuples()
        for row in late.tolist():
            task._late(tuples[row], int(ts[row]))
