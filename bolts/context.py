"""What a bolt learns about its place in the topology when it is prepared."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bolts.tuples import DEFAULT_STREAM, Fields

Subscriptions = Mapping[tuple[str, str], tuple[tuple[str, str], ...]]  # (component, stream) -> ((bolt, grouping),)


@dataclass(frozen=True)
class TopologyLayout:
    """The whole topology as its tasks see it: components, task ids, streams and who subscribes to what.

    Task ids are Storm's: components sorted by id, each component's tasks
    numbered on from the last one's, the first task 1. ``subscribers`` names
    each subscription's grouping (``"shuffle"``, ``"fields"``, ``"direct"``, ...).
    """

    parallelism: Mapping[str, int]
    streams: Mapping[str, Mapping[str, Fields]]
    subscribers: Subscriptions = field(default_factory=dict)
    first_task: Mapping[str, int] = field(init=False)

    def __post_init__(self) -> None:
        first, next_id = {}, 1
        for component in sorted(self.parallelism):
            first[component] = next_id
            next_id += self.parallelism[component]
        object.__setattr__(self, "first_task", first)

    def task_ids(self, component: str) -> list[int]:
        """The task ids of ``component``, in task-index order (empty for an unknown component)."""
        if component not in self.first_task:
            return []
        start = self.first_task[component]
        return list(range(start, start + self.parallelism[component]))

    def task_id(self, component: str, index: int) -> int:
        """The task id of task ``index`` of ``component``."""
        return self.first_task[component] + index

    def component_of(self, task_id: int) -> str | None:
        """The component task ``task_id`` belongs to (None when no component has it)."""
        for component, start in self.first_task.items():
            if start <= task_id < start + self.parallelism[component]:
                return component
        return None


@dataclass(frozen=True)
class TopologyContext:
    """Storm's ``TopologyContext``: what a bolt task reads about itself and the topology.

    ``input_streams`` are the ``(component, stream)`` pairs the bolt subscribes to;
    ``output_streams`` are the streams it declared, with their fields. ``layout``
    is the whole topology (a one-bolt layout under :class:`~topologies.testing.BoltHarness`).
    """

    component_id: str
    task_index: int = 0
    parallelism: int = 1
    input_streams: frozenset[tuple[str, str]] = frozenset()
    output_streams: Mapping[str, Fields] = field(default_factory=dict)
    layout: TopologyLayout | None = None

    def _layout(self) -> TopologyLayout:
        if self.layout is not None:
            return self.layout
        return TopologyLayout({self.component_id: self.parallelism}, {self.component_id: dict(self.output_streams)})

    def get_this_component_id(self) -> str:
        """Storm's ``getThisComponentId``."""
        return self.component_id

    def get_this_task_index(self) -> int:
        """Storm's ``getThisTaskIndex``: this task's position among its bolt's tasks, from 0."""
        return self.task_index

    def get_this_task_id(self) -> int:
        """Storm's ``getThisTaskId``: this task's id in the topology (see :class:`TopologyLayout`)."""
        return self._layout().task_id(self.component_id, self.task_index)

    def get_component_tasks(self, component_id: str) -> list[int]:
        """Storm's ``getComponentTasks``: the task ids of a component, in index order (empty if unknown)."""
        return self._layout().task_ids(component_id)

    def get_component_id(self, task_id: int) -> str | None:
        """Storm's ``getComponentId``: the component of a task id (None if no component has it)."""
        return self._layout().component_of(task_id)

    def get_this_streams(self) -> set[str]:
        """Storm's ``getThisStreams``: the declared output stream ids."""
        return set(self.output_streams)

    def get_this_output_fields(self, stream_id: str = DEFAULT_STREAM) -> Fields:
        """Storm's ``getThisOutputFields``; ``KeyError`` naming the bolt for an undeclared stream."""
        return self.get_component_output_fields(self.component_id, stream_id)

    def get_component_output_fields(self, component_id: str, stream_id: str = DEFAULT_STREAM) -> Fields:
        """Storm's ``getComponentOutputFields``; ``KeyError`` naming what is declared when the stream is not."""
        streams = self._layout().streams.get(component_id)
        if streams is None or stream_id not in streams:
            known = ", ".join(sorted(streams)) if streams is not None else "(no such component)"
            msg = f"get_component_output_fields: {component_id!r} declares no stream {stream_id!r}; it has: {known}"
            raise KeyError(msg)
        return streams[stream_id]

    def get_component_streams(self, component_id: str) -> set[str]:
        """Storm's ``getComponentStreams``: the streams a component declares (empty if unknown)."""
        return set(self._layout().streams.get(component_id, {}))

    def get_this_sources(self) -> dict[tuple[str, str], str]:
        """Storm's ``getThisSources``: each ``(component, stream)`` this bolt subscribes to, and its grouping's name."""
        found = {}
        for key, subscribers in self._layout().subscribers.items():
            for bolt, grouping in subscribers:
                if bolt == self.component_id:
                    found[key] = grouping
        return found

    def get_this_targets(self) -> dict[str, dict[str, str]]:
        """Storm's ``getThisTargets``: per output stream, each subscribing bolt and its grouping's name."""
        targets: dict[str, dict[str, str]] = {}
        for (component, stream), subscribers in self._layout().subscribers.items():
            if component == self.component_id:
                targets[stream] = dict(subscribers)
        return targets
