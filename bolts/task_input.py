"""What one task receives in one micro-batch: its tuples as columnar segments, ``Tuple`` objects only on demand.

The executor cuts a batch into the share of each task without building a
``Tuple`` per row: a :class:`Segment` is a run of tuples from one source task
on one stream, held as an Arrow table (the spouts' rows, cut with ``take``) or
as plain rows (what an upstream bolt emitted). A :class:`TaskInput` is the
task's segments in delivery order, which is the order a task executes them.
A task that wants columns reads :attr:`Segment.table`; one that wants tuples
calls :meth:`TaskInput.tuples`, which builds them once. A columnar bolt's
``execute_table`` gets each segment as a :class:`TupleTable`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bolts.tuples import Fields, Tuple
from windowing.arrow_values import python_values

if TYPE_CHECKING:
    import pyarrow as pa


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a batch's values and tuples are built.

    They hold no reference cycles, and building hundreds of thousands of them
    would otherwise trigger a collection every few hundred allocations (most of
    the time spent). Left alone when the caller had switched collection off.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass
class Segment:
    """Tuples of one source task on one stream, in order: ``table`` (columns named as ``fields``) or ``rows``.

    A segment may hold both: rows an upstream bolt emitted, and a table of
    some of their fields for a task that works on columns. Its tuples are then
    built from the rows.
    """

    source_component: str
    source_task: int
    stream: str
    fields: Fields
    table: pa.Table | None = None
    rows: list[Sequence[Any]] | None = None
    _built: list[Tuple] | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return self.table.num_rows if self.table is not None else len(self.rows or ())

    def values(self) -> list[Sequence[Any]]:
        """The rows as Python values, in order."""
        if self.rows is not None or self.table is None:
            return list(self.rows or ())
        with collector_paused():
            columns = [python_values(self.table.column(i)) for i in range(self.table.num_columns)]
            return list(zip(*columns, strict=True)) if columns else [() for _ in range(self.table.num_rows)]

    def tuples(self) -> list[Tuple]:
        """The rows as ``Tuple`` objects, in order (built once)."""
        if self._built is not None:
            return self._built
        fields, stream, source, task = self.fields, self.stream, self.source_component, self.source_task
        if self.rows is None and self.table is not None:  # rows of a table: tuples of the right length
            rows = self.values()
            with collector_paused():
                self._built = Tuple.many(rows, fields, stream, source, task)  # type: ignore[arg-type]
        else:
            self._built = [Tuple(values, fields, stream, source, task) for values in self.values()]
        return self._built

    def row(self, index: int) -> Tuple:
        """Row ``index`` as a ``Tuple`` (a window holding this segment's rows builds them all at its first read)."""
        return self.tuples()[index]

    def tuple_at(self, index: int) -> Tuple:
        """Row ``index`` as a ``Tuple``, without building the others."""
        if self._built is not None or self.table is None or self.rows is not None:
            return self.tuples()[index]
        values = tuple(column[0] for column in self.table.slice(index, 1).to_pydict().values())
        return Tuple(values, self.fields, self.stream, self.source_component, self.source_task)


@dataclass
class TaskInput:
    """A task's tuples of one batch: its segments in delivery order."""

    segments: list[Segment] = field(default_factory=list)
    _tuples: list[Tuple] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, tuples: Sequence[Tuple]) -> TaskInput:
        """An input of tuples already built (one row segment per run of one source task and stream)."""
        batch = cls()
        for tup in tuples:
            batch.append_row(tup.source_component, tup.source_task, tup.stream, tup.fields, tup.values)
        batch._tuples = list(tuples)
        return batch

    def append_row(self, source: str, task: int, stream: str, fields: Fields, values: Sequence[Any]) -> None:
        """Add one row at the end (joining the last segment when it has the same source task and stream)."""
        last = self.segments[-1] if self.segments else None
        if (last is None or last.rows is None or last.source_component != source or last.source_task != task
                or last.stream != stream):
            last = Segment(source, task, stream, fields, rows=[])
            self.segments.append(last)
        last.rows.append(values)  # type: ignore[union-attr]
        self._tuples = None

    def extend_rows(self, source: str, task: int, stream: str, fields: Fields, rows: Sequence[Sequence[Any]]) -> None:
        """Add rows at the end, as :meth:`append_row` of each would (``rows`` itself is not kept)."""
        if not rows:
            return
        last = self.segments[-1] if self.segments else None
        if (last is None or last.rows is None or last.source_component != source or last.source_task != task
                or last.stream != stream):
            self.segments.append(Segment(source, task, stream, fields, rows=list(rows)))
        else:
            last.rows.extend(rows)
        self._tuples = None

    def append_table(self, source: str, task: int, stream: str, fields: Fields, table: pa.Table) -> None:
        """Add a columnar segment at the end (nothing when the table is empty)."""
        if table.num_rows:
            self.segments.append(Segment(source, task, stream, fields, table=table))
            self._tuples = None

    def __len__(self) -> int:
        return sum(len(s) for s in self.segments)

    def __iter__(self) -> Iterator[Tuple]:
        return iter(self.tuples())

    def tuples(self) -> list[Tuple]:
        """Every tuple, in delivery order (built once)."""
        if self._tuples is None:
            self._tuples = [t for s in self.segments for t in s.tuples()]
        return self._tuples


class TupleTable:
    """Tuples of one source task on one stream, in arrival order, read as a ``pyarrow.Table`` or as tuples.

    ``source_component``, ``source_task``, ``stream`` and ``fields`` are those
    of each of its tuples (as ``Tuple`` has them). :meth:`to_arrow` gives the
    rows as a table with one column per field: a spout's rows are the Arrow
    table Spark gave (its own types: a Spark timestamp stays
    ``timestamp[us, tz=UTC]``), with no copy; rows an upstream bolt emitted one
    by one are built into columns with the types pyarrow infers
    (``ValueError`` naming the stream when a value has no Arrow type: read
    those with :meth:`get`). :meth:`get` builds ``Tuple`` objects, once.
    A ``TupleTable`` is never empty.
    """

    __slots__ = ("_segment",)

    def __init__(self, segment: Segment) -> None:
        self._segment = segment

    @classmethod
    def of(cls, tuples: list[Tuple]) -> TupleTable:
        """The table of ``tuples`` (non-empty; all of the first one's source task and stream)."""
        first = tuples[0]
        segment = Segment(first.source_component, first.source_task, first.stream, first.fields,
                          rows=[t.values for t in tuples])
        segment._built = list(tuples)
        return cls(segment)

    @property
    def source_component(self) -> str:
        """The component that emitted the tuples."""
        return self._segment.source_component

    @property
    def source_task(self) -> int:
        """The task index of the emitting component (0 for a spout's rows)."""
        return self._segment.source_task

    @property
    def stream(self) -> str:
        """The stream the tuples were emitted on."""
        return self._segment.stream

    @property
    def fields(self) -> Fields:
        """The tuples' field names: the table's column names, in order."""
        return self._segment.fields

    def __len__(self) -> int:
        return len(self._segment)

    def to_arrow(self) -> pa.Table:
        """The rows as a ``pyarrow.Table``, one column per field, in arrival order (see the class docstring)."""
        import pyarrow as pa  # imported here: only columnar bolts pay for it

        segment = self._segment
        if segment.table is not None and segment.rows is None:
            return segment.table
        rows = segment.rows or []
        if not segment.fields:  # no column, but as many rows as tuples
            return pa.table({"_": pa.nulls(len(rows))}).drop_columns(["_"])
        try:
            columns = [pa.array(list(column)) for column in zip(*rows, strict=True)]
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError, ValueError) as exc:
            msg = (f"to_arrow: the tuples of {segment.source_component}:{segment.stream} (task "
                   f"{segment.source_task}) hold values with no Arrow type ({exc}); read them with get()")
            raise ValueError(msg) from None
        return pa.table(columns, names=list(segment.fields))

    def get(self) -> list[Tuple]:
        """The rows as ``Tuple`` objects, in arrival order (built at the first call)."""
        return self._segment.tuples()

    def __repr__(self) -> str:
        s = self._segment
        return f"TupleTable({s.source_component}:{s.stream}, task {s.source_task}, {len(s)} rows)"
