"""The checked, immutable configuration of a windowed aggregation, built by :class:`WindowedAggregateBolt`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Protocol

from bolts.errors import TupleError
from windowing.accumulation import AccumulationMode
from windowing.aggregators import read_fields
from windowing.assigners import Sessions, TimeDifferenceWindows, WindowAssigner
from windowing.triggers.base import Trigger
from windowing.triggers.leaves import DefaultTrigger

OUTPUT_FIELDS = ("key", "window_start", "window_end", "value", "timestamp", "pane", "is_retraction")
TIMESTAMP_COMBINERS = ("end_of_window", "earliest", "latest")
CLOSING_BEHAVIORS = ("fire_if_non_empty", "fire_always")  # Beam's Window.ClosingBehavior; the first is the default
ON_TIME_BEHAVIORS = ("fire_always", "fire_if_non_empty")  # Beam's Window.OnTimeBehavior; the first is the default
WATERMARK_POLICIES = ("min", "max")  # Spark's spark.sql.streaming.multipleWatermarkPolicy; the first is its default
RETRACTION_FIELD = "is_retraction"


@dataclass(frozen=True)
class AggregateSpec:
    """What to aggregate, where (assigner; None keeps the windows of incoming panes), when (trigger) and how (mode).

    ``closing_behavior``/``on_time_behavior``: whether an empty last pane / an
    empty ON_TIME pane is emitted (``"fire_always"``) or not (``"fire_if_non_empty"``).
    ``allowed_lateness_ms`` is the lateness horizon: a tuple whose windows all
    end at or before ``watermark - allowed_lateness`` is dropped, and a window's
    state is deleted once the watermark reaches ``end + allowed_lateness``.
    ``pane_filter``: when set, a pane is emitted only when it is true of the
    window's accumulator; a pane it refuses is not emitted, the window keeps its
    data, and when the mode retracts the window's last emitted pane is retracted
    (nothing stands for the window any more).
    ``spark_watermark_policy``: None for squall's own watermark rules, or
    ``"min"``/``"max"`` for Spark's (``with_spark_semantics``), combining the
    inputs' watermarks as Spark's multiple-watermark policy does.
    ``watermark_from_upstream``: the watermark is upstream's alone, never
    estimated from the tuples' timestamps; set when the bolt takes the panes'
    time (:mod:`bolts.pane_time`).
    """

    aggregator: Any
    key_fields: tuple[str, ...] | None = None
    assigner: WindowAssigner | None = None
    trigger: Trigger = field(default_factory=DefaultTrigger)
    mode: AccumulationMode = AccumulationMode.DISCARDING
    allowed_lateness_ms: int = 0
    timestamp_combiner: str = "end_of_window"
    closing_behavior: str = CLOSING_BEHAVIORS[0]
    on_time_behavior: str = ON_TIME_BEHAVIORS[0]
    timestamp_field: str | None = None
    timestamp_extractor: Callable[[Any], int] | None = None
    lag_ms: int = 0
    watermark_interval_ms: int = 1000
    fire_only_updated: bool = False
    # A pane is emitted only when pane_filter(acc) is true (None: every pane); WindowedJoinBolt's matched_only.
    pane_filter: Callable[[Any], bool] | None = None
    late_tuple_stream: str | None = None
    spark_watermark_policy: str | None = None
    watermark_from_upstream: bool = False
    # The Fields of the last tuple whose fields passed the aggregator's check (tuples of one stream share theirs).
    _fields_checked: list[Any] = field(default_factory=lambda: [None], init=False, compare=False, repr=False)

    @property
    def merging(self) -> bool:
        """Whether windows merge (sessions): triggers then run as Beam's do with a merging ``WindowFn``."""
        return isinstance(self.assigner, Sessions)

    @property
    def spark_semantics(self) -> bool:
        """Whether the watermark, lateness and firing follow Spark's windowed aggregation (``with_spark_semantics``)."""
        return self.spark_watermark_policy is not None

    @property
    def time_difference(self) -> TimeDifferenceWindows | None:
        """The KIP-450 assigner, when that is the assigner."""
        return self.assigner if isinstance(self.assigner, TimeDifferenceWindows) else None

    def key_of(self, tup: Any) -> tuple[Any, ...]:
        """The tuple's key (``()`` when not keyed); ``TupleError`` when a key field is missing."""
        if self.key_fields is None:
            return ()
        for name in self.key_fields:
            if name not in tup.fields:
                msg = (
                    f"WindowedAggregateBolt: key field {name!r} is missing from {tup!r}; "
                    f"its fields are: {', '.join(tup.fields)}"
                )
                raise TupleError(msg)
        return tuple(tup[name] for name in self.key_fields)

    def key_out(self, key: tuple[Any, ...]) -> Any:
        """The ``key`` output field: None when not keyed, the value for one key field, a list for several."""
        if self.key_fields is None:
            return None
        return key[0] if len(key) == 1 else list(key)

    def check(self, tup: Any) -> None:
        """``TupleError`` when ``tup`` cannot go into any window: :meth:`add` would refuse it for what it lacks.

        Checked before the tuple is placed when the bolt has an error stream, so a
        rejected tuple leaves no window behind: the aggregator's input fields, the
        ability to retract, and (with no assigner) integer ``window_start`` and
        ``window_end`` fields.
        """
        self._check_fields(tup)
        if self.assigner is None:
            for name in ("window_start", "window_end"):
                value = tup.get(name, 0)  # a missing field is named when the tuple is placed
                if isinstance(value, bool) or not isinstance(value, Integral):
                    msg = (
                        f"with_windows: the window bounds of an incoming pane must be ints; got {name}={value!r} "
                        f"in {tup!r}"
                    )
                    raise TupleError(msg)

    def add(self, acc: Any, tup: Any) -> Any:
        """Add ``tup`` to ``acc``, or retract it when it is an upstream retraction; ``TupleError`` on bad input."""
        fields = tup.fields
        retracting = RETRACTION_FIELD in fields and bool(tup[RETRACTION_FIELD])
        if fields is not self._fields_checked[0] or retracting:
            self._check_fields(tup)
            self._fields_checked[0] = fields
        try:
            return self.aggregator.retract(acc, tup) if retracting else self.aggregator.add(acc, tup)
        except (TypeError, ValueError) as exc:
            msg = f"WindowedAggregateBolt: the aggregator {self.aggregator!r} cannot take {tup!r}: {exc}"
            raise TupleError(msg) from exc

    def _check_fields(self, tup: Any) -> None:
        for name in read_fields(self.aggregator) or ():
            if name not in tup.fields:
                msg = (
                    f"WindowedAggregateBolt: the aggregator {self.aggregator!r} reads field {name!r}, "
                    f"which {tup!r} does not have; its fields are: {', '.join(tup.fields)}"
                )
                raise TupleError(msg)
        retracting = RETRACTION_FIELD in tup.fields and bool(tup[RETRACTION_FIELD])
        if retracting and not callable(getattr(self.aggregator, "retract", None)):
            msg = (
                f"WindowedAggregateBolt: {tup!r} is a retraction but the aggregator {self.aggregator!r} "
                "has no retract(acc, tuple); use one that can retract (count, sum, mean, collect, distinct_count)"
            )
            raise TupleError(msg)


class SpecSource(Protocol):
    """A bolt that builds an aggregation's spec: ``WindowedAggregateBolt`` and the bolts built on it."""

    def build_spec(self, component: str = "") -> AggregateSpec:
        """The checked configuration of the aggregation, for bolt ``component``."""
        ...
