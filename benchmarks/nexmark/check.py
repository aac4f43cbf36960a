"""The check: squall's answer against Spark's, key by key (every window, every key, every row).

Both answers map a key (a window and a key, a row, a bidder) to a value. The
check lists every key one answer has and the other lacks, and every key whose
values differ; floats compare within a relative 1e-9 (Spark adds doubles in
its own order).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

EXAMPLES = 3
RELATIVE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: how many keys were compared and what differs."""

    keys: int
    missing: list[Hashable] = field(default_factory=list)  # in Spark's answer only
    extra: list[Hashable] = field(default_factory=list)  # in squall's only
    different: list[tuple[Hashable, Any, Any]] = field(default_factory=list)  # (key, Spark's, squall's)

    @property
    def ok(self) -> bool:
        """Whether the answers are the same."""
        return not (self.missing or self.extra or self.different)

    def describe(self, what: str) -> str:
        """One line: ``what`` is the same as Spark's, or what differs, with up to three examples of each."""
        if self.ok:
            return f"{what}: equal to Spark's ({_keys(self.keys)})"
        parts = []
        if self.missing:
            parts.append(f"{len(self.missing):,} missing from squall's (e.g. {_examples(self.missing)})")
        if self.extra:
            parts.append(f"{len(self.extra):,} not in Spark's (e.g. {_examples(self.extra)})")
        if self.different:
            shown = "; ".join(f"{k!r}: Spark {s!r}, squall {q!r}" for k, s, q in self.different[:EXAMPLES])
            parts.append(f"{len(self.different):,} with other values (e.g. {_short(shown)})")
        return f"{what}: DIFFERS from Spark's ({_keys(self.keys)}): " + "; ".join(parts)


def _keys(count: int) -> str:
    return f"{count:,} key{'' if count == 1 else 's'}"


def _short(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _examples(keys: list[Hashable]) -> str:
    return _short(", ".join(repr(k) for k in keys[:EXAMPLES]))


def same_value(spark: Any, squall: Any) -> bool:
    """Whether two values are equal: floats within a relative 1e-9, sequences item by item, others by ``==``."""
    if isinstance(spark, float) or isinstance(squall, float):
        return (isinstance(spark, int | float) and isinstance(squall, int | float)
                and math.isclose(spark, squall, rel_tol=RELATIVE_TOLERANCE))
    if isinstance(spark, list | tuple) and isinstance(squall, list | tuple):
        return len(spark) == len(squall) and all(same_value(a, b) for a, b in zip(spark, squall, strict=True))
    return bool(spark == squall)


def compare(spark: Mapping[Hashable, Any], squall: Mapping[Hashable, Any]) -> Verdict:
    """Spark's answer against squall's, key by key."""
    missing = [k for k in spark if k not in squall]
    extra = [k for k in squall if k not in spark]
    different = [(k, v, squall[k]) for k, v in spark.items() if k in squall and not same_value(v, squall[k])]
    return Verdict(len(spark), sorted(missing, key=repr), sorted(extra, key=repr), sorted(different, key=repr))
