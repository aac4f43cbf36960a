"""Session windows: per key, activity separated by gaps of at least ``gap``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from windowing.assigners.base import Window, WindowAssigner, duration_field
from windowing.duration import Duration


@dataclass(frozen=True)
class Sessions(WindowAssigner):
    """A tuple at ``ts`` opens the proto-session ``[ts, ts + gap)``; overlapping sessions of a key merge.

    Merging follows Apex's three cases: a proto-session inside an existing
    session just joins it; one overlapping one session extends it; one
    overlapping several sessions merges them all. Windows that only touch
    (``a.end == b.start``) stay apart, so two tuples exactly ``gap`` apart are in
    different sessions (Beam's rule); with ``touching`` they merge (Spark's
    ``session_window``, chosen by ``with_spark_semantics``). The result does not
    depend on arrival order.
    """

    gap: Duration
    gap_ms: int = field(init=False, repr=False)

    merging = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "gap_ms", duration_field(self, "Sessions", "gap"))

    def assign(self, ts: int) -> list[Window]:
        """The proto-session of ``ts``."""
        return [Window(ts, ts + self.gap_ms)]

    @staticmethod
    def merge_with(proto: Window, existing: Iterable[Window], touching: bool = False) -> tuple[Window, list[Window]]:
        """The session ``proto`` ends up in, and the existing sessions merged into it.

        Existing sessions never overlap each other, so one pass finds every
        session the proto-session overlaps (or, with ``touching``, touches); the
        result spans all of them.
        """
        merged = proto
        reach = 1 if touching else 0
        absorbed = [w for w in existing if w.start < proto.end + reach and proto.start < w.end + reach]
        for w in absorbed:
            merged = merged.span(w)
        return merged, absorbed
