"""Bolts that tests in several folders share; a module of the repo, so executor processes import it by name too."""

from __future__ import annotations

from bolts import BaseBolt, BaseStatefulWindowedBolt, BaseWindowedBolt, Fields
from topologies.config import Config


class WindowIds(BaseWindowedBolt):
    """Emits the ids of each window's tuples as one list (``get()`` only, so bounded windows work too).

    ``WindowIds("name")`` emits another field instead: the list is declared as that field's plural (``names``).
    """

    def __init__(self, field: str = "id") -> None:
        self.field = field

    def execute(self, window):
        self.collector.emit([[t[self.field] for t in window.get()]])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields(f"{self.field}s"))


class StatefulWindowIds(WindowIds, BaseStatefulWindowedBolt):
    """:class:`WindowIds` as a stateful windowed bolt: persistence, paging and restarts from the store."""


class Noop(BaseWindowedBolt):
    """A windowed bolt that emits nothing: for tests that read the task's windows, not its outputs."""

    def execute(self, window):
        pass


class ConfEcho(BaseBolt):
    """Re-emits each ``value`` with the ``my.threshold``, ``my.label`` and workers settings its ``prepare`` saw."""

    def prepare(self, conf, context, collector):
        self.collector = collector
        self.seen = [conf.get("my.threshold"), conf.get("my.label"), conf.get(Config.TOPOLOGY_WORKERS)]

    def execute(self, input):
        self.collector.emit([input["value"], *self.seen])

    def declare_output_fields(self, declarer):
        declarer.declare(Fields("value", "threshold", "label", "workers"))
