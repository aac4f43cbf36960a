"""Joins two input streams per key and window: inner join or cogroup, with the aggregate bolt's event-time model.

Example::

    bolt = (WindowedJoinBolt("clicks", "views", key_fields=("user",), how="inner")
            .with_windows(FixedWindows(Duration.minutes(1))).with_timestamp_field("ts"))

Both streams get the same windows; the bolt's watermark is the minimum of the
two streams' watermarks, so a window fires only when both sides are complete.
The pane ``value`` is, for ``how="inner"``, the list of ``[left_row, right_row]``
pairs (rows as ``{field: value}`` dicts, in arrival order) and, for
``how="cogroup"``, ``[left_rows, right_rows]``. Triggers, accumulation modes
and lateness behave as in :class:`WindowedAggregateBolt`.

By default a window with rows on one side only still gets its panes (an empty
list of pairs for ``how="inner"``, one empty side for ``"cogroup"``). With
``matched_only=True`` a pane is emitted only when both sides have rows in the
window, as an inner join in Spark SQL, Flink's window join or Kafka Streams
emits only matches::

    bolt = (WindowedJoinBolt("persons", "auctions", key_fields=("person",), matched_only=True)
            .with_windows(FixedWindows(Duration.seconds(10))).with_timestamp_field("ts"))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bolts.aggregate.spec import RETRACTION_FIELD
from bolts.aggregate.windowed_aggregate_bolt import WindowedAggregateBolt

JOIN_KINDS = ("inner", "cogroup")


@dataclass(frozen=True)
class JoinAggregator:
    """Keeps each side's rows of a window; the accumulator is ``[left_rows, right_rows]``."""

    left_stream: str
    right_stream: str
    how: str = "inner"

    input_fields = ()

    @property
    def required_streams(self) -> tuple[str, str]:
        """The two streams a task of the join must take: its left and right sides."""
        return self.left_stream, self.right_stream

    def _side(self, tup: Any) -> int:
        if tup.stream == self.left_stream:
            return 0
        if tup.stream == self.right_stream:
            return 1
        msg = f"tuple on stream {tup.stream!r}; the join takes {self.left_stream!r} and {self.right_stream!r}"
        raise ValueError(msg)

    def create(self) -> list[list[dict[str, Any]]]:
        """No rows on either side."""
        return [[], []]

    def add(self, acc: list[list[dict[str, Any]]], tup: Any) -> list[list[dict[str, Any]]]:
        """Add the row to its side."""
        out = [list(acc[0]), list(acc[1])]
        out[self._side(tup)].append(tup.as_dict())
        return out

    def retract(self, acc: list[list[dict[str, Any]]], tup: Any) -> list[list[dict[str, Any]]]:
        """Remove the first row of its side equal to the retracted one (nothing when absent).

        Rows compare without their ``is_retraction`` field: the row an upstream
        retraction takes back was added with it false, and comes back with it true.
        """
        out = [list(acc[0]), list(acc[1])]
        side, row = self._side(tup), _without_retraction(tup.as_dict())
        for i, kept in enumerate(out[side]):
            if _without_retraction(kept) == row:
                del out[side][i]
                break
        return out

    def merge(self, accs: list[list[list[dict[str, Any]]]]) -> list[list[dict[str, Any]]]:
        """Each side's rows, in order."""
        return [[r for a in accs for r in a[0]], [r for a in accs for r in a[1]]]

    def both_sides_met(self, acc: list[list[dict[str, Any]]]) -> bool:
        """Whether both sides have rows: the pane filter of ``WindowedJoinBolt(..., matched_only=True)``."""
        return bool(acc[0]) and bool(acc[1])

    def extract(self, acc: list[list[dict[str, Any]]]) -> list[Any]:
        """The joined pairs (inner) or both sides (cogroup)."""
        if self.how == "cogroup":
            return [list(acc[0]), list(acc[1])]
        return [[left, right] for left in acc[0] for right in acc[1]]


def _without_retraction(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` without the ``is_retraction`` field of an upstream pane, when it has one."""
    if RETRACTION_FIELD not in row:
        return row
    return {name: value for name, value in row.items() if name != RETRACTION_FIELD}


class WindowedJoinBolt(WindowedAggregateBolt):
    """Inner join or cogroup of ``left_stream`` and ``right_stream`` per key (``key_fields``) and window.

    ``matched_only``: emit a window's pane only when both sides have rows in
    it; False (the default) emits every window with rows on either side. A
    pane held back keeps the window's rows for its next pane (an early pane
    with one side only, then a later one once the other side came); in
    ``ACCUMULATING_AND_RETRACTING`` mode a window that no longer has both sides
    (an upstream retraction removed one) retracts its last pane.
    """

    def __init__(
        self, left_stream: str, right_stream: str, key_fields: Sequence[str] | None = None, how: str = "inner",
        *, matched_only: bool = False,
    ) -> None:
        for name, value in (("left_stream", left_stream), ("right_stream", right_stream)):
            if not isinstance(value, str) or not value:
                msg = f"WindowedJoinBolt: `{name}` must be a non-empty str; got {value!r} instead"
                raise TypeError(msg)
        if left_stream == right_stream:
            msg = f"WindowedJoinBolt: the two streams must differ; got {left_stream!r} twice"
            raise ValueError(msg)
        if how not in JOIN_KINDS:
            msg = f"WindowedJoinBolt: `how` must be one of {', '.join(map(repr, JOIN_KINDS))}; got {how!r} instead"
            raise ValueError(msg)
        if not isinstance(matched_only, bool):
            msg = (
                f"WindowedJoinBolt: `matched_only` must be a bool (True: only windows where both sides met); "
                f"got {matched_only!r} ({type(matched_only).__name__}) instead"
            )
            raise TypeError(msg)
        join = JoinAggregator(left_stream, right_stream, how)
        super().__init__(join, key_fields)
        if matched_only:
            self._set(pane_filter=join.both_sides_met)

    @property
    def matched_only(self) -> bool:
        """Whether only windows where both sides met get panes (``matched_only=True``)."""
        return self._spec.pane_filter is not None
