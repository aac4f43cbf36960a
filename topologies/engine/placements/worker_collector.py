"""Python's cyclic garbage collector in a Spark worker: the warm tasks' objects kept out of its full collections.

PySpark's daemon calls ``gc.collect()`` after every Spark task a reused
worker runs. A full collection walks every object the process holds, and a
worker holds its warm tasks (:data:`~topologies.engine.placements.chunks.TASKS`):
with Nexmark's q5, some 30,000 windows a task, those walks took most of the
worker's time (about 150 ms after each Spark task, several tasks a batch).

So after each partition squall's functions run, everything alive is moved to
the collector's permanent generation (``gc.freeze()``), which collections
skip. A frozen object is still freed the moment nothing refers to it
(reference counting does not look at generations): a window a task deletes
goes at once, as before. What freezing holds back is garbage in reference
cycles, and a task is in some (its timers call its own methods, a Storm
window manager and its trigger policy refer to each other): a warm task let
go would keep its windows until a collection looked at it. So after a
partition in which the worker let go of a warm task (dropped, or replaced by
one rebuilt from the store), the frozen objects go back to the collector
(``gc.unfreeze()``) instead, and PySpark's collection right after frees the
task. They go back at least every :data:`FROZEN_PARTITIONS` partitions too,
so any other garbage in cycles waits no longer than that.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from topologies.engine.stage import TaskCache

FROZEN_PARTITIONS = 64
"""Partitions after which the frozen objects go back to the collector, whether or not a task was let go."""


@dataclass
class FreezeState:
    """The cache's counts of built and dropped tasks after the last partition, and partitions frozen since a thaw."""

    builds: int = 0
    dropped: int = 0
    frozen_for: int = 0


STATE = FreezeState()


def after_partition(tasks: TaskCache, state: FreezeState = STATE) -> bool:
    """Freeze what the worker holds after a partition, or thaw it (see the module docstring); True when frozen.

    A task built counts as one let go: a build replaces a stale copy, when
    there was one. Call it before the collector runs again, so its first
    collection does not walk the partition's new objects.
    """
    let_go = (tasks.builds, tasks.dropped) != (state.builds, state.dropped)
    state.builds, state.dropped = tasks.builds, tasks.dropped
    if let_go or state.frozen_for >= FROZEN_PARTITIONS:
        gc.unfreeze()
        state.frozen_for = 0
        return False
    gc.freeze()
    state.frozen_for += 1
    return True
