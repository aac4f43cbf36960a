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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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
        """Remove the row from its side (nothing when absent)."""
        out = [list(acc[0]), list(acc[1])]
        side, row = self._side(tup), tup.as_dict()
        if row in out[side]:
            out[side].remove(row)
        return out

    def merge(self, accs: list[list[list[dict[str, Any]]]]) -> list[list[dict[str, Any]]]:
        """Each side's rows, in order."""
        return [[r for a in accs for r in a[0]], [r for a in accs for r in a[1]]]

    def extract(self, acc: list[list[dict[str, Any]]]) -> list[Any]:
        """The joined pairs (inner) or both sides (cogroup)."""
        if self.how == "cogroup":
            return [list(acc[0]), list(acc[1])]
        return [[left, right] for left in acc[0] for right in acc[1]]


class WindowedJoinBolt(WindowedAggregateBolt):
    """Inner join or cogroup of ``left_stream`` and ``right_stream`` per key (``key_fields``) and window."""

    def __init__(
        self, left_stream: str, right_stream: str, key_fields: Sequence[str] | None = None, how: str = "inner"
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
        super().__init__(JoinAggregator(left_stream, right_stream, how), key_fields)
