"""What a windowed aggregation needs from an aggregator: a tuple at a time, and a column at a time.

An aggregator is a small object (usually a frozen dataclass) that the bolt
calls; its *accumulator* is the state of one window, which the bolt stores:
in the state backend with every commit (Redis, HBase, ``memory://``), so it
must be plain data that msgpack can hold (None, bool, int, float, str,
bytes, datetime, date, ``Tuple``, ``PaneInfo``, and lists, tuples and dicts of
these; a tuple comes back as a list).

The four protocols below are runtime-checkable: ``isinstance(agg,
ColumnarAggregator)`` says whether ``agg`` has the methods (not their
signatures). A ``WindowedAggregateBolt`` whose aggregator is a
:class:`ColumnarAggregator` places the rows of a batch on columns (fixed,
sliding, global and session windows with a timestamp field; see
docs/event-time.md), the ready aggregators and a user's alike. The per-tuple
``add`` is the oracle: the columnar methods must return exactly what ``add`` of
each row, in order, returns.

Two optional attributes go with the methods:

- ``input_fields: tuple[str, ...] | None``: the fields the aggregator reads. A
  tuple lacking one is refused (``TupleError`` naming the aggregator and the
  field) before it reaches a window, a topology whose subscribed stream lacks
  one is refused when it is built, and ``add_column`` may receive only these
  columns (``()``: one column, so the row count is kept). ``None`` (and an
  aggregator without the attribute): it reads any field, and receives every
  column.
- ``required_streams``: input streams a task of the bolt must take (a join's two sides).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa


@runtime_checkable
class Aggregator(Protocol):
    """A tuple at a time: ``create``, ``add``, ``merge``, ``extract``.

    The bolt gives each window its own accumulator (never one to two windows),
    adds each of the window's tuples in arrival order, merges accumulators when
    windows merge (session windows; KIP-450 windows built from per-timestamp
    partial aggregates), and extracts a pane's value when the trigger fires.
    In ``DISCARDING`` mode the accumulator is replaced by ``create()`` after each
    pane.
    """

    def create(self) -> Any:
        """A new, empty accumulator (plain data: it is stored with the window)."""
        ...

    def add(self, acc: Any, tup: Any) -> Any:
        """``acc`` with one tuple added; the bolt keeps what is returned.

        Args:
            acc: the window's accumulator, as ``create``, ``add`` or ``merge`` made it.
            tup: a ``bolts.Tuple``: read fields with ``tup["field"]`` (``tup.values``,
                ``tup.fields``, ``tup.as_dict()`` for all of them).

        May change ``acc`` in place and return it, provided :meth:`extract` returns a
        value that shares nothing with it (emitted panes and the last pane, kept for
        its retraction, must not change). Raise ``TypeError`` or ``ValueError`` for a
        value it cannot take: the bolt rejects the tuple (``TupleError`` naming the
        aggregator and the tuple; onto the error stream when the bolt has one).
        """
        ...

    def merge(self, accs: list[Any]) -> Any:
        """One accumulator holding everything in ``accs`` (in their order; at least one).

        Must not change the accumulators it is given (they may still be in use, and a
        batch that fails is placed again from them); the bolt may add to the result in
        place.
        """
        ...

    def extract(self, acc: Any) -> Any:
        """The pane's value of ``acc`` (plain data: it travels between tasks); ``acc`` may be empty."""
        ...


@runtime_checkable
class RetractingAggregator(Aggregator, Protocol):
    """An aggregator that can take a tuple out again: needed to consume upstream retractions.

    A ``WindowedAggregateBolt`` without ``with_windows`` re-aggregates the panes of
    another (it keeps their windows); when that one runs in
    ``ACCUMULATING_AND_RETRACTING`` mode, its retractions (``is_retraction`` true)
    are subtracted with ``retract``. An aggregator without it (the extremes,
    ``max_by``, ``top_k``: what was taken out may have been the extreme) is refused
    when such a topology is built.
    """

    def retract(self, acc: Any, tup: Any) -> Any:
        """``acc`` without ``tup``, a tuple that ``add`` added before (same values); in place allowed, as ``add``."""
        ...


@runtime_checkable
class ColumnarAggregator(Aggregator, Protocol):
    """An aggregator that adds a window's rows of a batch at once: the bolt's columnar fast path.

    ``add_column`` must give exactly what ``add`` of each row in order gives
    (the property tests compare both paths); it is where numpy or
    ``pyarrow.compute`` replace a Python loop.
    """

    def add_column(self, acc: Any, rows: pa.Table) -> Any:
        """``acc`` with every row of ``rows`` added, as ``add`` of each row in order would give.

        Args:
            acc: the window's accumulator (may be changed in place, as in ``add``).
            rows: the rows of one window from one batch, in arrival order, as a
                ``pyarrow.Table`` whose columns are named as the input fields and
                typed as the source gives them (a Spark ``TIMESTAMP`` is an Arrow
                timestamp with a zone; ``windowing.arrow_values.python_values`` of a
                column gives the ``datetime`` values a ``Tuple`` holds, in UTC).
                It holds at least the columns of ``input_fields`` (possibly no other),
                every field when ``input_fields`` is None, and at least one row.

        Raise ``TypeError`` or ``ValueError`` for values it cannot take, before changing
        ``acc``: the bolt then adds those rows one by one, so that ``add`` names (or
        the error stream takes) the exact tuple at fault.
        """
        ...


@runtime_checkable
class GroupedAggregator(ColumnarAggregator, Protocol):
    """A columnar aggregator that adds many windows' rows in one call (``add_groups``).

    Without it the bolt calls ``add_column`` once per window a batch touches;
    with it, once per batch: worth it when a batch touches many windows
    (thousands of keys, sliding windows, sessions).
    """

    def add_groups(self, accs: list[Any], rows: pa.Table, groups: np.ndarray) -> list[Any]:
        """Each accumulator of ``accs`` with its rows of ``rows`` added: ``add_column`` per group.

        Args:
            accs: one accumulator per window (group), as for ``add_column``.
            rows: the rows of every window, as for ``add_column`` (in arrival order
                within each group; a row in several windows appears once per window).
            groups: a numpy int64 array, ``groups[i]`` the index in ``accs`` of the window
                of row ``i`` (``len(groups) == rows.num_rows``). A group may have no row:
                its accumulator comes back as it was.

        Returns:
            A list as long as ``accs``, in the same order.

        Raise ``TypeError`` or ``ValueError`` before changing any accumulator, as ``add_column``.
        """
        ...


def read_fields(aggregator: object) -> tuple[str, ...] | None:
    """The fields ``aggregator`` reads (its ``input_fields``), or None when it reads any field.

    ``TypeError`` naming the aggregator when ``input_fields`` is neither None nor a sequence of field names.
    """
    fields = getattr(aggregator, "input_fields", None)
    if fields is None:
        return None
    if isinstance(fields, str) or not all(isinstance(f, str) for f in fields):
        msg = f"{aggregator!r}: `input_fields` must be a tuple of field names or None; got {fields!r} instead"
        raise TypeError(msg)
    return tuple(fields)


def can_retract(aggregator: object) -> bool:
    """Whether ``aggregator`` can take retractions (a :class:`RetractingAggregator` with a callable ``retract``)."""
    return callable(getattr(aggregator, "retract", None))


def is_columnar(aggregator: object) -> bool:
    """Whether ``aggregator`` has a callable ``add_column`` (the bolt's columnar path may take it)."""
    return callable(getattr(aggregator, "add_column", None))
