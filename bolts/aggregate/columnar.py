"""A windowed aggregation's batch placed on columns: windows assigned and rows added per window, not per tuple.

For fixed, sliding and global windows, with a timestamp field and an
aggregator that has ``add_column``, an Arrow segment of a batch is placed at
once: each row's windows are computed with numpy, expired windows dropped,
rows grouped by (key, window), every window's rows added in one
``add_groups`` call of the aggregator (or one ``add_column`` call per window),
and each window's trigger told with one ``on_elements`` call and its
timestamp range widened once. The result is exactly what adding the rows one by one
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

from bolts.aggregate.holds import add_holds
from bolts.aggregate.spec import RETRACTION_FIELD, AggregateSpec
from bolts.aggregate.windows import WindowId, WindowTable
from bolts.task_input import Segment
from bolts.timestamps import column_millis, is_timestamp_column
from windowing.assigners import FixedWindows, GlobalWindows, SlidingWindows, Window
from windowing.triggers.context import TriggerContext

if TYPE_CHECKING:
    import numpy as np

    from bolts.aggregate.input_watermarks import InputWatermarks
    from bolts.tuples import Tuple
    from windowing.clock import ManualClock


class AggregateTask(Protocol):
    """What placing a segment reads and changes of the task (``bolts.aggregate.task.AggregateTask``)."""

    spec: AggregateSpec
    table: WindowTable
    clock: ManualClock
    marks: InputWatermarks
    dirty: dict[WindowId, None]
    closed_window_drops: int

    def _late(self, tup: Tuple, ts: int) -> None: ...


def supports(spec: AggregateSpec) -> bool:
    """Whether batches of this aggregation can be placed on columns (decided once, when the task is built)."""
    return (
        type(spec.assigner) in (FixedWindows, SlidingWindows, GlobalWindows)
        and spec.timestamp_field is not None
        and callable(getattr(spec.aggregator, "add_column", None))
    )


def takes(spec: AggregateSpec, segment: Segment) -> bool:
    """Whether ``segment`` can be placed on columns: an Arrow table, every field read, timestamps readable as ms."""
    table = segment.table
    if table is None or RETRACTION_FIELD in segment.fields:
        return False
    needed = [spec.timestamp_field, *(spec.key_fields or ()), *getattr(spec.aggregator, "input_fields", ())]
    if any(name not in segment.fields for name in needed):
        return False  # the per-tuple path names the missing field
    return is_timestamp_column(table.column(spec.timestamp_field))


def _windows(spec: AggregateSpec, ts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every (row, window) pair, oldest window first per row: the row index, the window start and end."""
    import numpy as np

    rows = np.arange(len(ts))
    assigner = spec.assigner
    if isinstance(assigner, GlobalWindows):
        window = assigner.assign(0)[0]
        return rows, np.full(len(ts), window.start, np.int64), np.full(len(ts), window.end, np.int64)
    if isinstance(assigner, FixedWindows):
        starts = ts - np.remainder(ts, assigner.size_ms)
        return rows, starts, starts + assigner.size_ms
    period, size = assigner.period_ms, assigner.size_ms  # type: ignore[union-attr]
    last = ts - np.remainder(ts, period)
    first = -np.floor_divide(-(ts - size + 1), period) * period
    count = np.maximum((last - first) // period + 1, 0)
    pair_rows = np.repeat(rows, count)
    offsets = np.arange(len(pair_rows)) - np.repeat(np.cumsum(count) - count, count)
    starts = first[pair_rows] + offsets * period
    return pair_rows, starts, starts + size


def _key_codes(spec: AggregateSpec, table: Any) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
    """A key code per row and the key (the tuple of key values, as a row would give it) of each code."""
    import numpy as np
    import pyarrow.compute as pc

    if spec.key_fields is None:
        return np.zeros(table.num_rows, np.int64), [()]
    combined: Any = None
    dictionaries = []
    for name in spec.key_fields:
        encoded = pc.dictionary_encode(table.column(name), null_encoding="encode").combine_chunks()
        size = len(encoded.dictionary)
        codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        dictionaries.append((encoded.dictionary.to_pylist(), size))
        combined = codes if combined is None else combined * size + codes
    unique, codes = np.unique(combined, return_inverse=True)
    keys = []
    for code in unique.tolist():
        values = []
        for column_values, size in reversed(dictionaries):
            code, index = divmod(code, size)
            values.append(column_values[index])
        keys.append(tuple(reversed(values)))
    return codes.astype(np.int64), keys


def place_segment(task: AggregateTask, segment: Segment, watermark: int) -> bool:
    """Add ``segment``'s rows to their windows as ``task.execute`` would one by one (see the module docstring).

    False, with nothing changed, when the aggregator refuses the rows: the caller
    then executes them one by one.
    """
    import numpy as np

    spec, table = task.spec, segment.table
    if table is None:
        msg = "place_segment: the segment holds rows, not a table; execute its tuples instead"
        raise ValueError(msg)
    ts = column_millis(table.column(spec.timestamp_field))
    key_codes, keys = _key_codes(spec, table)
    pair_rows, starts, ends = _windows(spec, ts)
    live = ends > watermark - spec.allowed_lateness_ms  # end + lateness > watermark, without overflow
    pair_rows, starts, ends = pair_rows[live], starts[live], ends[live]
    open_pairs = np.zeros(len(pair_rows), bool)
    if len(pair_rows) and not _add_groups(
        task, segment, watermark, ts, keys, key_codes[pair_rows], pair_rows, starts, ends, open_pairs
    ):
        return False
    task.marks.track((segment.source_component, segment.stream), int(ts.max()))
    _report_unplaced(task, segment, ts, pair_rows, open_pairs)
    return True


def _add_groups(
    task: AggregateTask,
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

    spec = task.spec
    start_values, start_codes = np.unique(starts, return_inverse=True)
    groups, group_of_pair = np.unique(pair_keys * len(start_values) + start_codes.reshape(-1), return_inverse=True)
    group_of_pair = group_of_pair.reshape(-1)
    first_pair = np.full(len(groups), len(group_of_pair), np.int64)
    np.minimum.at(first_pair, group_of_pair, np.arange(len(group_of_pair)))
    # The open windows in first-touch order (a closed window takes no rows); new ones are created, in that
    # order, only once the aggregator has taken the rows.
    targets: list[tuple[tuple[Any, ...], Window, Any]] = []
    open_index = np.full(len(groups), -1, np.int64)
    for group in np.argsort(first_pair, kind="stable").tolist():
        pair = int(first_pair[group])
        key, window = keys[int(pair_keys[pair])], Window(int(starts[pair]), int(ends[pair]))
        ws = task.table.by_key.get(key, {}).get(window)
        if ws is None or not ws.closed:
            open_index[group] = len(targets)
            targets.append((key, window, ws))
    if not targets:
        return True
    pair_window = open_index[group_of_pair]
    open_pairs[:] = pair_window >= 0
    rows, row_window = pair_rows[open_pairs], pair_window[open_pairs]  # row-major: rows in order per window
    create = spec.aggregator.create
    accs = _add_rows(task, segment, [create() if ws is None else ws.acc for _, _, ws in targets], rows, row_window)
    if accs is None:
        return False
    opened = [task.table.create(key, window) if ws is None else ws for key, window, ws in targets]
    for ws, acc in zip(opened, accs, strict=True):
        ws.acc = acc
    counts = np.bincount(row_window, minlength=len(opened)).tolist()
    # Only rows not behind their key's output watermark hold (bolts.aggregate.holds.add_holds).
    outputs = np.array([task.table.output_watermark(ws.key) for ws in opened], np.int64)
    none = np.iinfo(np.int64).max
    low = np.full(len(opened), none)
    high = np.full(len(opened), np.iinfo(np.int64).min)
    held = ts[rows] >= outputs[row_window]
    np.minimum.at(low, row_window[held], ts[rows][held])
    np.maximum.at(high, row_window[held], ts[rows][held])
    behind = np.bincount(row_window[~held], minlength=len(opened)).tolist()
    now = task.clock.now()
    rows_of = zip(opened, counts, low.tolist(), high.tolist(), behind, outputs.tolist(), strict=True)
    for ws, n, lo, hi, late, output_wm in rows_of:
        window = ws.window
        ctx = TriggerContext(ws.trigger, window_end=window.end, watermark=watermark, now=now, timers=ws.timers)
        spec.trigger.on_elements(ctx, n)
        ws.has_new = True
        span = (lo, hi) if lo != none else None
        add_holds(ws, spec, span, late > 0, input_wm=watermark, output_wm=output_wm)
        task.dirty[ws.wid] = None
        task.table.touch(ws)
    return True


def _add_rows(
    task: AggregateTask, segment: Segment, accs: list[Any], rows: np.ndarray, row_window: np.ndarray
) -> list[Any] | None:
    """Each window's accumulator with its rows added (one ``add_groups`` call, or ``add_column`` per window).

    None when the aggregator refuses the rows (the ready aggregators change no
    accumulator before they fail; a str in a ``sum`` fails at once).
    """
    import numpy as np
    import pyarrow as pa

    aggregator, table = task.spec.aggregator, segment.table
    taken = table.take(pa.array(rows))  # type: ignore[union-attr]
    try:
        if callable(getattr(aggregator, "add_groups", None)):
            return aggregator.add_groups(accs, taken, row_window)  # type: ignore[no-any-return]
        order = np.argsort(row_window, kind="stable")
        bounds = np.searchsorted(row_window[order], np.arange(len(accs) + 1))
        return [
            aggregator.add_column(acc, taken.take(pa.array(order[bounds[i] : bounds[i + 1]])))
            for i, acc in enumerate(accs)
        ]
    except (TypeError, ValueError):
        return None


def _report_unplaced(
    task: AggregateTask, segment: Segment, ts: np.ndarray, pair_rows: np.ndarray, open_pairs: np.ndarray
) -> None:
    """Rows with no live window are late (in row order); rows whose live windows are all closed are counted."""
    import numpy as np

    live = np.bincount(pair_rows, minlength=len(ts))
    placed = np.bincount(pair_rows[open_pairs], minlength=len(ts))
    task.closed_window_drops += int(np.count_nonzero((live > 0) & (placed == 0)))
    late = np.flatnonzero(live == 0)
    if len(late):
        tuples = segment.tuples()
        for row in late.tolist():
            task._late(tuples[row], int(ts[row]))
