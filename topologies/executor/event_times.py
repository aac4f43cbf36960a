"""The largest event time each bolt has seen per input stream, over all its tasks: Spark's watermark, shared.

Spark's watermark (``with_spark_semantics``) is one per query: the largest
event time seen on an input, over every partition, minus the delay. A squall
bolt's tasks each see part of a stream, so after each batch the placement
gathers every task's largest event times (:meth:`BoltTask.event_time_maxima`)
into one value per bolt and stream, and gives them to each task of the bolt in
the next batch (:meth:`BoltTask.observe_event_times`) before it moves its
watermark. The batch loop commits what each batch started and ended with
(:class:`topologies.executor.stored.RouterCounters`), so a replayed batch, or
the first batch after a restart, starts from what its first run started from.

Only bolts whose tasks report maxima appear; a topology without
``with_spark_semantics`` has none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

Stream = tuple[str, str]  # (component, stream)
EventTimes = dict[str, dict[Stream, int]]  # bolt -> input stream -> largest event time seen


def gather(into: EventTimes, bolt: str, maxima: Iterable[Mapping[Stream, int] | None]) -> None:
    """Fold the tasks' ``maxima`` (None for a task that keeps none) into ``into[bolt]``, keeping the largest."""
    for task_maxima in maxima:
        if task_maxima is None:
            continue
        seen = into.setdefault(bolt, {})
        for stream, ts in task_maxima.items():
            key = (stream[0], stream[1])
            seen[key] = max(seen.get(key, ts), ts)


def to_rows(event_times: Mapping[str, Mapping[Stream, int]]) -> list[list[object]]:
    """Plain, sorted rows ``[bolt, component, stream, ts]``."""
    return sorted([bolt, c, s, ts] for bolt, seen in event_times.items() for (c, s), ts in seen.items())


def from_rows(rows: Iterable[Iterable[object]]) -> EventTimes:
    """What :func:`to_rows` made the rows from."""
    out: EventTimes = {}
    for bolt, component, stream, ts in rows:
        out.setdefault(str(bolt), {})[(str(component), str(stream))] = int(ts)  # type: ignore[call-overload]
    return out
