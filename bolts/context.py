"""What a bolt learns about its place in the topology when it is prepared."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bolts.tuples import Fields


@dataclass(frozen=True)
class TopologyContext:
    """Storm's ``TopologyContext``, reduced to what a bolt uses.

    ``input_streams`` are the ``(component, stream)`` pairs the bolt subscribes to;
    ``output_streams`` are the streams it declared, with their fields.
    """

    component_id: str
    task_index: int = 0
    parallelism: int = 1
    input_streams: frozenset[tuple[str, str]] = frozenset()
    output_streams: Mapping[str, Fields] = field(default_factory=dict)

    def get_this_component_id(self) -> str:
        """Storm's ``getThisComponentId``."""
        return self.component_id

    def get_this_task_index(self) -> int:
        """Storm's ``getThisTaskIndex``."""
        return self.task_index

    def get_this_streams(self) -> set[str]:
        """Storm's ``getThisStreams``: the declared output stream ids."""
        return set(self.output_streams)
