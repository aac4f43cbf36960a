"""Which task runs a bolt: its own ``create_task``, a windowed executor (Storm's model), or a plain task."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bolts.base_bolt import BaseBolt
from bolts.storm.base_stateful_windowed_bolt import BaseStatefulWindowedBolt
from bolts.storm.base_windowed_bolt import BaseWindowedBolt
from bolts.storm.stateful_windowed_bolt_executor import StatefulWindowedBoltExecutor
from bolts.storm.windowed_bolt_executor import WindowedBoltExecutor
from bolts.task import BoltTask, PlainBoltTask, TaskObserver


def make_task(
    bolt: BaseBolt,
    *,
    component: str,
    input_streams: Iterable[tuple[str, str]],
    start_time_ms: int = 0,
    task_index: int = 0,
    parallelism: int = 1,
    observer: TaskObserver | None = None,
    store: Any = None,
    persist_windows: bool = False,
    watermark_at_batch_end: bool = False,
) -> BoltTask:
    """Build the task that runs ``bolt``: its own ``create_task``, a windowed executor, or a plain task.

    ``observer`` sees each window a windowed task activates, before the bolt does.
    ``store`` is the task's namespace in the state backend; stateful windowed
    bolts need one, and a bolt with its own ``create_task`` receives it (a
    windowed aggregation keeps its windows in memory without one). With
    ``persist_windows`` (and a store), every windowed bolt stores its window's
    tuples, message-id windows and plain windowed bolts too, and resumes from the
    store when prepared (distributed mode, where a task moves to another process
    with no failure and no source replays its window). With
    ``watermark_at_batch_end``, event-time windowed tasks (and a bolt's own
    ``create_task``, which receives it) also emit their watermark at every
    ``end_batch``, not only on their watermark interval (the Spark executor).
    """
    kwargs: dict[str, Any] = {
        "component": component,
        "input_streams": input_streams,
        "start_time_ms": start_time_ms,
        "task_index": task_index,
        "parallelism": parallelism,
    }
    create = getattr(bolt, "create_task", None)
    if callable(create):
        task: BoltTask = create(
            observer=observer, store=store, watermark_at_batch_end=watermark_at_batch_end, **kwargs
        )
        return task
    if isinstance(bolt, BaseStatefulWindowedBolt):
        if store is None:
            msg = (
                f"{type(bolt).__name__} (bolt {component!r}) is a stateful windowed bolt and needs a state "
                "backend: pass state=... (for example 'memory://') to the harness or the runner"
            )
            raise ValueError(msg)
        return StatefulWindowedBoltExecutor(
            bolt, store=store, observer=observer, watermark_at_batch_end=watermark_at_batch_end,
            persist_windows=persist_windows, **kwargs
        )
    if isinstance(bolt, BaseWindowedBolt):
        if persist_windows:
            if store is None:
                msg = f"make_task: persist_windows needs a store for bolt {component!r}"
                raise ValueError(msg)
            return StatefulWindowedBoltExecutor(
                bolt, store=store, observer=observer, watermark_at_batch_end=watermark_at_batch_end, **kwargs
            )
        return WindowedBoltExecutor(bolt, observer=observer, watermark_at_batch_end=watermark_at_batch_end, **kwargs)
    return PlainBoltTask(bolt, **kwargs)
