"""Triggers: *when* in processing time a window's result is emitted, composed like English.

``AfterWatermark(early=AfterProcessingTime(Duration.minutes(1)), late=AfterCount(1))``
reads as it fires. Triggers are immutable values checked when built; they keep
no state: a :class:`TriggerContext` does, and composites namespace their
children's state as ``"0/"``, ``"1/"``... The runtime consults a trigger once
per window per micro-batch, after the whole batch is added, and again when the
watermark passes the window's end or a processing-time timer falls due; it
calls :func:`evaluate` and emits a pane when the result fires. A trigger that
finishes closes its window: later tuples for that window are dropped.

Each trigger implements ``on_element`` (a tuple joined the window),
``should_fire``, ``on_fire`` (sets ``finished`` when done) and ``on_merge``
(session windows merged; ``sources`` are the merged windows' contexts).
"""

from windowing.triggers.base import OrFinally, Trigger, evaluate
from windowing.triggers.composites import AfterAll, AfterAny, AfterEach, Repeatedly
from windowing.triggers.context import TriggerContext, TriggerResult
from windowing.triggers.leaves import AfterCount, AfterProcessingTime, AfterWatermark, DefaultTrigger, Never

__all__ = [
    "AfterAll",
    "AfterAny",
    "AfterCount",
    "AfterEach",
    "AfterProcessingTime",
    "AfterWatermark",
    "DefaultTrigger",
    "Never",
    "OrFinally",
    "Repeatedly",
    "Trigger",
    "TriggerContext",
    "TriggerResult",
    "evaluate",
]
