"""Deep copies of a runtime, so a batch that Spark runs again starts from the state before it."""

from __future__ import annotations

import copy
from typing import TypeVar

T = TypeVar("T")


def snapshot(value: T) -> T:
    """An independent deep copy of ``value`` (a runtime with its tasks, bolts and held tuples)."""
    return copy.deepcopy(value)
