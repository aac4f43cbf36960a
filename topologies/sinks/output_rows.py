"""A batch's outputs held as runs: a table a bolt emitted becomes :class:`Output` records only when read.

A columnar bolt's outputs (``emit_table`` on a stream nobody subscribes to)
stay one Arrow table per run in the process that holds them, so a batch of
hundreds of thousands of outputs costs no Python object per output until a
sink or a reader iterates them (then they are built once, in order).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from topologies.sinks.records import Output
from windowing.arrow_values import table_rows

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(frozen=True)
class TableRun:
    """Outputs of ``component``'s task ``task`` on ``stream``: the rows of ``table``, in order."""

    component: str
    task: int
    stream: str
    table: pa.Table

    def __len__(self) -> int:
        return int(self.table.num_rows)

    def outputs(self) -> list[Output]:
        """The rows as :class:`Output` records."""
        return [Output(self.component, self.task, self.stream, values) for values in table_rows(self.table)]


Run = list[Output] | TableRun


class OutputRows(Sequence[Output]):
    """A batch's outputs in order, as runs of :class:`Output` records and of tables (:class:`TableRun`).

    Reads as a sequence of ``Output``; the tables' records are built at the
    first read of an element (or an iteration) and kept. ``len``, a slice of
    consecutive elements and :meth:`of_streams` build nothing.
    """

    __slots__ = ("_built", "_len", "_runs")

    def __init__(self, runs: Iterable[Run] = ()) -> None:
        self._runs = [run for run in runs if len(run)]
        self._len = sum(len(run) for run in self._runs)
        self._built: list[Output] | None = None

    def __len__(self) -> int:
        return self._len

    def _list(self) -> list[Output]:
        if self._built is None:
            self._built = [o for run in self._runs for o in (run.outputs() if isinstance(run, TableRun) else run)]
        return self._built

    @overload
    def __getitem__(self, index: int) -> Output: ...

    @overload
    def __getitem__(self, index: slice) -> OutputRows: ...

    def __getitem__(self, index: int | slice) -> Output | OutputRows:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._len)
            if step != 1 or self._built is not None:
                return OutputRows([self._list()[index]])
            return OutputRows(_cut(self._runs, start, stop))
        return self._list()[index]

    def __iter__(self) -> Iterator[Output]:
        return iter(self._list())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return self._list() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a list's equality, a list's hashing

    def __repr__(self) -> str:
        return f"OutputRows({self._list()!r})"

    def plus(self, runs: Iterable[Run]) -> OutputRows:
        """These outputs, then those of ``runs``."""
        return OutputRows([*self._runs, *runs])

    def of_streams(self, streams: Collection[str]) -> OutputRows:
        """The outputs of ``streams`` (``"component:stream"``), in order."""
        runs: list[Run] = []
        for run in self._runs:
            if isinstance(run, TableRun):
                if f"{run.component}:{run.stream}" in streams:
                    runs.append(run)
            else:
                runs.append([o for o in run if f"{o.component}:{o.stream}" in streams])
        return OutputRows(runs)


def _cut(runs: Sequence[Run], start: int, stop: int) -> list[Run]:
    """The elements ``start`` to ``stop`` of ``runs`` laid end to end, as runs (tables sliced, not built)."""
    out: list[Run] = []
    at = 0
    for run in runs:
        size = len(run)
        lo, hi = max(start - at, 0), min(stop - at, size)
        if lo < hi:
            if isinstance(run, TableRun):
                # A copy of the rows kept, so a trimmed run does not hold its whole table's memory.
                kept = run.table if (lo, hi) == (0, size) else run.table.take(np.arange(lo, hi, dtype=np.int64))
                out.append(TableRun(run.component, run.task, run.stream, kept))
            else:
                out.append(run[lo:hi])
        at += size
    return out


def as_output_rows(outputs: Sequence[Output] | Any) -> OutputRows:
    """``outputs`` as :class:`OutputRows` (itself when it is one)."""
    return outputs if isinstance(outputs, OutputRows) else OutputRows([list(outputs)])
