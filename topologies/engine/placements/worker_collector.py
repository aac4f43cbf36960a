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
goes at once, as before, and so does a task the worker lets go of, with its
windows, when nothing in it refers back to it. What freezing holds back is
garbage in reference cycles, and some tasks are in cycles (a Storm task's
window manager calls back into the task; a task with a watermark timer holds
its own method). So the cache watches each task it lets go of (weak
references to its task and bolt objects, ``TaskCache.left_to_collector``),
and after a partition in which one outlived its last reference, or a task
closed or failed, the frozen objects go back to the collector
(``gc.unfreeze()``) instead of being frozen again, and PySpark's collection
right after frees them. They go back at least every :data:`FROZEN_PARTITIONS`
partitions too, so any other garbage in cycles waits no longer than that.
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
    """The cache's count of tasks left to the collector after the last partition; partitions frozen since a thaw."""

    left_to_collector: int = 0
    frozen_for: int = 0


STATE = FreezeState()


def after_partition(tasks: TaskCache, state: FreezeState = STATE) -> bool:
    """Freeze what the worker holds after a partition, or thaw it (see the module docstring); True when frozen.

    Call it before the collector runs again, so its first collection does not
    walk the partition's new objects.
    """
    in_cycles = tasks.left_to_collector != state.left_to_collector
    state.left_to_collector = tasks.left_to_collector
    if in_cycles or state.frozen_for >= FROZEN_PARTITIONS:
        gc.unfreeze()
        state.frozen_for = 0
        return False
    gc.freeze()
    state.frozen_for += 1
    return True
