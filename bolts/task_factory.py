"""Which task runs a bolt: one registry from bolt base class to task, looked up along the bolt's class hierarchy.

Every bolt base class names the task that runs its bolts in :data:`TASK_TYPES`,
and :func:`make_task` takes the entry of the nearest base class of the bolt (its
method resolution order), so a user's subclass runs as its base does. Adding a
bolt base class is one entry here (its task class, or a function choosing one
from the options). Whether a windowed task keeps its windows in a store
follows from the store it is given, never from a flag: the batch loop and
``BoltHarness`` give every task a store, so both run the same task class.
"""

from __future__ import annotations

from collections.abc import Callable

from bolts.aggregate.task import AggregateTask
from bolts.aggregate.windowed_aggregate_bolt import WindowedAggregateBolt
from bolts.base_bolt import BaseBolt
from bolts.storm.base_basic_bolt import BaseBasicBolt, BasicBoltTask
from bolts.storm.base_stateful_bolt import BaseStatefulBolt, StatefulBoltTask
from bolts.storm.base_stateful_windowed_bolt import BaseStatefulWindowedBolt
from bolts.storm.base_windowed_bolt import BaseWindowedBolt
from bolts.storm.stored_windowed_bolt_task import StoredWindowedBoltTask
from bolts.storm.windowed_bolt_task import WindowedBoltTask
from bolts.task import BoltTask, PlainBoltTask, TaskOptions

TaskType = Callable[[BaseBolt, TaskOptions], BoltTask]


def _windowed_task(bolt: BaseBolt, options: TaskOptions) -> BoltTask:
    """A windowed bolt's task: its windows in the store when it has one, else in memory only."""
    if options.store is not None:
        return StoredWindowedBoltTask(bolt, options)  # type: ignore[arg-type]
    return WindowedBoltTask(bolt, options)  # type: ignore[arg-type]


def _needs_store(kind: str, task_type: TaskType) -> TaskType:
    """``task_type``, refusing options without a store with a ``ValueError`` naming the bolt."""

    def build(bolt: BaseBolt, options: TaskOptions) -> BoltTask:
        if options.store is None:
            msg = (
                f"{type(bolt).__name__} (bolt {options.component!r}) is a {kind} and needs a state backend: pass "
                "state=... (for example 'memory://') to the harness or the runner"
            )
            raise ValueError(msg)
        return task_type(bolt, options)

    return build


#: The task of each bolt base class; a bolt runs as the nearest of its base classes listed here.
TASK_TYPES: dict[type, TaskType] = {
    BaseBolt: PlainBoltTask,  # type: ignore[dict-item]
    BaseBasicBolt: BasicBoltTask,  # type: ignore[dict-item]
    BaseStatefulBolt: _needs_store("stateful bolt", StatefulBoltTask),  # type: ignore[arg-type]
    BaseWindowedBolt: _windowed_task,
    BaseStatefulWindowedBolt: _needs_store("stateful windowed bolt", StoredWindowedBoltTask),  # type: ignore[arg-type]
    WindowedAggregateBolt: AggregateTask,  # type: ignore[dict-item]
}


def make_task(bolt: BaseBolt, options: TaskOptions) -> BoltTask:
    """The task that runs ``bolt`` with ``options``: :data:`TASK_TYPES`' entry for its nearest base class.

    ``TypeError`` naming the bolt when it derives from none of them (a bolt must
    subclass one of squall's bolt bases).
    """
    for cls in type(bolt).__mro__:
        task_type = TASK_TYPES.get(cls)
        if task_type is not None:
            return task_type(bolt, options)
    msg = (
        f"bolt {options.component!r}: {type(bolt).__name__} derives from no bolt base class "
        f"({', '.join(c.__name__ for c in TASK_TYPES)}), so squall has no task to run it"
    )
    raise TypeError(msg)
