"""Storm 2's lambda bolts: a function given to ``set_bolt`` instead of a bolt object."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from bolts.collector import OutputFieldsDeclarer
from bolts.storm.base_basic_bolt import BaseBasicBolt, BasicOutputCollector
from bolts.tuples import Fields, Tuple


class LambdaConsumerBolt(BaseBasicBolt):
    """Storm's ``LambdaConsumerBolt``: calls ``consumer(input)`` for every tuple and declares no output."""

    def __init__(self, consumer: Callable[[Tuple], Any]) -> None:
        self.consumer = consumer

    def execute(self, input: Tuple, collector: BasicOutputCollector) -> None:
        """Call the function with the tuple."""
        self.consumer(input)


class LambdaBiConsumerBolt(BaseBasicBolt):
    """Storm's ``LambdaBiConsumerBolt``: calls ``bi_consumer(input, collector)``, emitting on ``fields``."""

    def __init__(self, bi_consumer: Callable[[Tuple, BasicOutputCollector], Any], fields: Sequence[str]) -> None:
        self.bi_consumer = bi_consumer
        self.fields = tuple(fields)

    def execute(self, input: Tuple, collector: BasicOutputCollector) -> None:
        """Call the function with the tuple and the collector."""
        self.bi_consumer(input, collector)

    def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
        """The default stream with the fields given to ``set_bolt`` (none declared without fields)."""
        if self.fields:
            declarer.declare(Fields(list(self.fields)))


def lambda_bolt(method: str, bolt_id: str, function: Callable[..., Any], fields: Sequence[str]) -> BaseBasicBolt:
    """The bolt running ``function``, a function given to ``set_bolt``.

    A bi-consumer ``(tuple, collector)`` when it takes two arguments or
    ``fields`` are given, else a consumer of the tuple. ``TypeError`` naming
    the bolt for a function taking neither one nor two arguments.
    """
    for name in fields:
        if not isinstance(name, str) or not name:
            msg = f"{method}: bolt {bolt_id!r}: each output field must be a non-empty str; got {name!r}"
            raise TypeError(msg)
    try:
        takes = len([p for p in inspect.signature(function).parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty])
    except (TypeError, ValueError):  # a builtin without a signature: trust the fields
        takes = 2 if fields else 1
    if fields or takes == 2:
        if takes not in (1, 2) or (fields and takes != 2):
            msg = f"{method}: bolt {bolt_id!r}'s function must take (tuple, collector) to emit {list(fields)}"
            raise TypeError(msg)
        return LambdaBiConsumerBolt(function, fields)
    if takes != 1:
        msg = f"{method}: bolt {bolt_id!r}'s function must take (tuple) or (tuple, collector); it takes {takes}"
        raise TypeError(msg)
    return LambdaConsumerBolt(function)
