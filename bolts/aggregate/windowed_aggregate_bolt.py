"""A windowed aggregation with Beam's event-time model: assigners, triggers, accumulation modes, lateness.

Example::

    bolt = (WindowedAggregateBolt(aggregators.sum("score"), key_fields=("team",))
            .with_windows(FixedWindows(Duration.minutes(2)))
            .with_trigger(AfterWatermark(early=AfterProcessingTime(Duration.minutes(1)), late=AfterCount(1)))
            .with_accumulation_mode(AccumulationMode.ACCUMULATING)
            .with_allowed_lateness(Duration.minutes(1))
            .with_timestamp_field("ts"))

Each output tuple has the fields ``key``, ``window_start``, ``window_end`` (end
exclusive), ``value``, ``timestamp``, ``pane`` (:class:`windowing.panes.PaneInfo`)
and ``is_retraction``. Every ``with_*`` method checks its argument at once and
returns the bolt; rules between settings are checked when the task is built.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any, Self

from bolts.aggregate.spec import (
    CLOSING_BEHAVIORS,
    ON_TIME_BEHAVIORS,
    OUTPUT_FIELDS,
    TIMESTAMP_COMBINERS,
    WATERMARK_POLICIES,
    AggregateSpec,
)
from bolts.base_bolt import BaseBolt
from bolts.collector import OutputFieldsDeclarer
from bolts.event_time_options import LATE_TUPLE_FIELD, EventTimeOptions, require_type
from bolts.pane_time import refuse_ingress_time
from bolts.tuples import Fields
from windowing.accumulation import AccumulationMode
from windowing.assigners import TimeDifferenceWindows, WindowAssigner
from windowing.duration import Duration, as_duration
from windowing.triggers.base import Trigger, require_trigger

_AGGREGATOR_METHODS = ("create", "add", "merge", "extract")


class WindowedAggregateBolt(EventTimeOptions, BaseBolt):
    """Aggregates tuples per window (and per key when ``key_fields`` is given) and emits panes.

    Keyed: state, triggers and panes are per key and window. Not keyed: per
    window, and the ``key`` output field is None. Without ``with_windows`` the
    bolt keeps the windows of the panes it receives (their ``window_start`` and
    ``window_end`` fields), and subtracts incoming retractions with the
    aggregator's ``retract``. Event time comes from ``with_timestamp_field`` or
    ``with_timestamp_extractor``; without either, a bolt whose inputs are all
    panes (streams declaring ``window_start``, ``window_end`` and ``timestamp``)
    takes each pane's ``timestamp`` (:mod:`bolts.pane_time`), and any other
    takes a tuple's ingress (processing) time, except that a bolt that needs
    event time (no ``with_windows``, or ``with_spark_semantics()``) is then
    refused when the topology or harness is built.

    Its tasks keep their windows in the state backend (committed with every
    batch, resumed after a failure); in ``BoltHarness`` without ``state`` they
    keep them in memory.
    """


    def __init__(self, aggregator: Any, key_fields: Fields | tuple[str, ...] | list[str] | None = None) -> None:
        missing = [m for m in _AGGREGATOR_METHODS if not callable(getattr(aggregator, m, None))]
        if missing:
            msg = (
                f"WindowedAggregateBolt: `aggregator` must have create/add/merge/extract (the protocol "
                f"windowing.Aggregator); {aggregator!r} lacks {', '.join(missing)} (ready ones are in "
                "windowing.aggregators, e.g. aggregators.count())"
            )
            raise TypeError(msg)
        if key_fields is not None:
            if isinstance(key_fields, str):
                key_fields = (key_fields,)
            key_fields = tuple(Fields(list(key_fields)))
            if not key_fields:
                msg = "WindowedAggregateBolt: `key_fields` must name at least one field, or be None (not keyed)"
                raise ValueError(msg)
        self._spec = AggregateSpec(aggregator, key_fields)
        self._lateness_set = False
        self._interval_set = False

    @property
    def spec(self) -> AggregateSpec:
        """The configuration made so far."""
        return self._spec

    def _set(self, **changes: Any) -> Self:
        self._spec = replace(self._spec, **changes)
        return self

    # Where, when, how ---------------------------------------------------------------------------
    def with_windows(self, assigner: WindowAssigner) -> Self:
        """Where in event time: ``GlobalWindows()``, ``FixedWindows``, ``SlidingWindows``, ``Sessions``, ..."""
        require_type("with_windows", "assigner", assigner, WindowAssigner)
        return self._set(assigner=assigner)

    def with_trigger(self, trigger: Trigger) -> Self:
        """When in processing time panes are emitted; ``DefaultTrigger()`` unless set."""
        require_trigger("with_trigger", "trigger", trigger)
        return self._set(trigger=trigger)

    def with_accumulation_mode(self, mode: AccumulationMode) -> Self:
        """How panes of a window relate; ``AccumulationMode.DISCARDING`` unless set (as in Beam)."""
        if not isinstance(mode, AccumulationMode):
            choices = ", ".join(f"AccumulationMode.{m.name}" for m in AccumulationMode)
            msg = f"with_accumulation_mode: `mode` must be one of {choices}; got {mode!r} instead"
            raise TypeError(msg)
        return self._set(mode=mode)

    def with_allowed_lateness(self, duration: Duration | timedelta) -> Self:
        """How long after the watermark passes a window's end late tuples still update it (0 unless set)."""
        duration = as_duration("with_allowed_lateness", "duration", duration)  # type: ignore[assignment]
        require_type("with_allowed_lateness", "duration", duration, Duration)
        if duration.value < 0:
            msg = f"with_allowed_lateness: `duration` must not be negative; got {duration!r} instead"
            raise ValueError(msg)
        self._lateness_set = True
        return self._set(allowed_lateness_ms=duration.value)

    def with_timestamp_combiner(self, combiner: str) -> Self:
        """The output timestamp: ``"end_of_window"`` (end - 1), ``"earliest"`` or ``"latest"``.

        ``earliest``/``latest`` combine the tuples added since the previous pane that were not
        behind the watermark when they arrived (Beam's watermark holds); without any, ``end - 1``.
        """
        if combiner not in TIMESTAMP_COMBINERS:
            msg = (
                f"with_timestamp_combiner: `combiner` must be one of {', '.join(map(repr, TIMESTAMP_COMBINERS))}; "
                f"got {combiner!r} instead"
            )
            raise ValueError(msg)
        return self._set(timestamp_combiner=combiner)

    def with_closing_behavior(self, behavior: str) -> Self:
        """Whether the last pane (trigger finished, or garbage collection) is emitted when empty.

        ``"fire_if_non_empty"`` (the default, as Beam's ``ClosingBehavior``) or
        ``"fire_always"``, which emits it even with no tuple since the previous pane.
        """
        return self._set(closing_behavior=_choice("with_closing_behavior", "behavior", behavior, CLOSING_BEHAVIORS))

    def with_on_time_behavior(self, behavior: str) -> Self:
        """Whether the ON_TIME pane is emitted when empty.

        ``"fire_always"`` (the default, as Beam's ``OnTimeBehavior``) or
        ``"fire_if_non_empty"``, which skips it when no tuple came since the previous pane.
        """
        return self._set(on_time_behavior=_choice("with_on_time_behavior", "behavior", behavior, ON_TIME_BEHAVIORS))

    def with_spark_semantics(self, multiple_watermark_policy: str = "min") -> Self:
        """Spark's watermark, lateness and firing rules, so the bolt gives what ``groupBy(window(...))`` gives.

        What changes, each as Spark's streaming aggregation does it (append mode):

        - the watermark moves once per micro-batch, at its end, to the largest
          event time seen *before* that batch minus the lag
          (``withWatermark(col, lag)``), over every task of the bolt, never back;
        - a tuple is late when its window ends at or before the watermark of the
          batch before (Spark's late-row rule since 3.4), so a batch may still add
          rows to a window that its own watermark then closes;
        - at the end of a batch, every window whose end the watermark reached
          fires (with the default trigger, once, with all its rows: append mode),
          and its state is dropped;
        - at the end of input (``close()``, the shutdown flush) the bolt does what
          Spark does when its input is drained: one batch with no data, which
          fires the windows the last batch's event times close; the others stay
          in the store, as in Spark's state store. The flush commits nothing, so
          the next run first does that batch again without emitting;
        - sessions that only touch merge, as ``session_window``'s do.

        ``multiple_watermark_policy``: how the watermarks of several input streams
        combine, as ``spark.sql.streaming.multipleWatermarkPolicy``: ``"min"``
        (Spark's default; an input that has seen nothing holds it at 0) or ``"max"``.
        Needs ``with_timestamp_field`` or ``with_timestamp_extractor``, or only panes
        as inputs, whose ``timestamp`` is then the event time (Spark's watermark
        needs an event-time column); ``with_watermark_interval`` does not
        apply. Triggers, accumulation modes and allowed lateness still work: the
        default trigger gives append mode; ``Repeatedly(AfterCount(1))`` with
        ``ACCUMULATING`` and ``with_on_time_behavior("fire_if_non_empty")`` gives
        update mode.
        """
        return self._set(spark_watermark_policy=_choice(
            "with_spark_semantics", "multiple_watermark_policy", multiple_watermark_policy, WATERMARK_POLICIES))

    def fire_only_updated_panes(self) -> Self:
        """Skip a pane whose value equals the window's last emitted value (the window keeps its data)."""
        return self._set(fire_only_updated=True)

    # Event time: with_timestamp_field, with_timestamp_extractor, with_lag, with_watermark_interval and
    # with_late_tuple_stream come from EventTimeOptions.
    def _set_option(self, setting: str, value: Any) -> Self:
        if setting == "watermark_interval":
            self._interval_set = True
        if setting in ("lag", "watermark_interval"):  # the spec keeps milliseconds
            return self._set(**{f"{setting}_ms": value.value})
        return self._set(**{setting: value})

    def _timestamp_source(self) -> object | None:
        return self._spec.timestamp_field or self._spec.timestamp_extractor

    def _watermark_from_upstream(self) -> Self:
        return self._set(watermark_from_upstream=True)

    def _event_time_need(self) -> tuple[str, str] | None:
        if self._spec.spark_semantics:
            return "with_spark_semantics", "follows Spark's watermark, which needs an event-time column"
        if self._spec.assigner is None:
            return "with_windows", "has no assigner, so it keeps the windows of the panes it receives, in their time"
        return None

    # Build --------------------------------------------------------------------------------------
    def build_spec(self, component: str = "") -> AggregateSpec:
        """The checked configuration; ``ValueError`` for settings that contradict each other."""
        spec = self._spec
        who = f" (bolt {component!r})" if component else ""
        if isinstance(spec.assigner, TimeDifferenceWindows):
            grace = spec.assigner.grace_ms
            if self._lateness_set and spec.allowed_lateness_ms != grace:
                msg = (
                    f"with_allowed_lateness: Duration({spec.allowed_lateness_ms}) contradicts the grace "
                    f"{spec.assigner.grace!r} of {spec.assigner!r}{who}; drop one of them"
                )
                raise ValueError(msg)
            spec = replace(spec, allowed_lateness_ms=grace)
        if self._timestamp_source() is None:
            # A topology or harness whose inputs are all panes has set the panes' time already (bolts.pane_time).
            refuse_ingress_time(self, component)
        if spec.spark_semantics:
            if self._interval_set:
                msg = (
                    f"with_watermark_interval: Duration({spec.watermark_interval_ms}) contradicts "
                    f"with_spark_semantics(){who}, whose watermark moves once per micro-batch; drop one of them"
                )
                raise ValueError(msg)
        if spec.late_tuple_stream == "default":
            msg = f"with_late_tuple_stream: 'default' is the pane stream{who}; choose another name"
            raise ValueError(msg)
        return spec

    def declare_output_fields(self, declarer: OutputFieldsDeclarer) -> None:
        """The pane stream, plus the late-tuple stream when one is set."""
        declarer.declare(Fields(list(OUTPUT_FIELDS)))
        if self._spec.late_tuple_stream is not None:
            declarer.declare_stream(self._spec.late_tuple_stream, Fields(LATE_TUPLE_FIELD))


def _choice(method: str, name: str, value: object, choices: tuple[str, ...]) -> str:
    """``value`` when it is one of ``choices``; ``TypeError``/``ValueError`` naming the method and the choices."""
    listed = ", ".join(map(repr, choices))
    if not isinstance(value, str):
        msg = f"{method}: `{name}` must be one of {listed}; got {value!r} ({type(value).__name__}) instead"
        raise TypeError(msg)
    if value not in choices:
        msg = f"{method}: `{name}` must be one of {listed}; got {value!r} instead"
        raise ValueError(msg)
    return value
