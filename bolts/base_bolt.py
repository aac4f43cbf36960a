"""The plain bolt: one ``execute`` per tuple."""

from __future__ import annotations

from typing import Any, ClassVar

from bolts.collector import OutputCollector, OutputFieldsDeclarer
from bolts.context import TopologyContext
from bolts.tuples import Fields, Tuple


class BaseBolt:
    """Storm's ``BaseRichBolt`` in Python spelling.

    Override ``execute(tuple)`` and ``declare_output_fields(declarer)``; keep the
    collector from ``prepare`` to emit. ``cleanup`` runs when the topology stops.
    """

    #: Whether the bolt's tasks keep their state in a state backend, committed with every batch, wherever
    #: they run (stateful windowed bolts, windowed aggregations and joins).
    stores_task_state: ClassVar[bool] = False

    def prepare(self, conf: dict[str, Any], context: TopologyContext, collector: OutputCollector) -> None:
        """Called once per task before any tuple; the default keeps the collector as ``self.collector``."""
        self.collector = collector

    def execute(self, input: Tuple) -> None:
        """Process one tuple. Bolts that take tuples one at a time must override this."""
        msg = f"{type(self).__name__}.execute: override execute(self, input) to process tuples"
        raise TypeError(msg)

    def cleanup(self) -> None:
        """Called once when the topology stops (or the harness is closed)."""

    def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
        """Declare output streams with ``declarer.declare(Fields(...))``; the default declares none."""

    def get_component_configuration(self) -> dict[str, Any]:
        """Per-component configuration merged into ``conf`` at ``prepare``."""
        return {}

    def output_streams(self, component: str = "") -> dict[str, Fields]:
        """The streams this bolt declares, with their fields."""
        declarer = OutputFieldsDeclarer(component)
        self.declare_output_fields(declarer)
        return declarer.streams
