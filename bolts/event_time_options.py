"""The event-time settings shared by Storm-style windowed bolts and aggregate bolts, checked one way."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any, Self

from windowing import Count, Duration
from windowing.duration import as_duration

DEFAULT_WATERMARK_INTERVAL = Duration.seconds(1)
LATE_TUPLE_FIELD = "late_tuple"

TimestampExtractor = Callable[[Any], int]


def require_type(method: str, name: str, value: object, *types: type) -> None:
    """Raise ``TypeError`` naming the method, the parameter and the value unless it has one of ``types``."""
    if isinstance(value, bool) or not isinstance(value, types):
        expected = " or ".join(t.__name__ for t in types)
        msg = f"{method}: `{name}` must be a {expected}; got {value!r} ({type(value).__name__}) instead"
        raise TypeError(msg)


def require_positive(method: str, name: str, value: Count | Duration) -> None:
    """Raise ``ValueError`` unless a Count or Duration is above zero."""
    if value.value <= 0:
        msg = f"{method}: `{name}` must be positive; got {value!r} instead"
        raise ValueError(msg)


class EventTimeOptions:
    """The event-time ``with_*`` methods of every bolt that has event time.

    ``with_timestamp_field``, ``with_timestamp_extractor``, ``with_lag``,
    ``with_watermark_interval`` and ``with_late_tuple_stream``: each checks its
    argument at once (``TypeError`` for a wrong type, ``ValueError`` for a bad
    value, naming the method and the value) and returns the bolt. A
    subclass records a setting in its own configuration with :meth:`_set_option`
    and says where the timestamp comes from now with :meth:`_timestamp_source`.
    """

    def _set_option(self, setting: str, value: Any) -> Self:
        """Record ``setting`` (``timestamp_field``, ``timestamp_extractor``, ``lag``, ...) and return the bolt."""
        raise TypeError(f"{type(self).__name__} must define _set_option")  # noqa: EM102 - a programming error

    def _timestamp_source(self) -> object | None:
        """The timestamp field or extractor already set, if any."""
        raise TypeError(f"{type(self).__name__} must define _timestamp_source")  # noqa: EM102

    def _watermark_from_upstream(self) -> Self:
        """The bolt, its watermark taken from upstream alone (it takes the panes' time); a no-op by default.

        Storm-style windowed bolts keep Storm's rule, a watermark from their own
        tuples' timestamps; ``WindowedAggregateBolt`` follows Beam.
        """
        return self

    def _event_time_need(self) -> tuple[str, str] | None:
        """Why the bolt cannot run on ingress time: the method that makes it so and why; None when it can.

        For refusals (``bolts.pane_time.refuse_ingress_time``) that read
        ``"<method>: bolt 'x' <why>, but ..."``.
        """
        return None

    def with_timestamp_field(self, field_name: str) -> Self:
        """Use the tuple field ``field_name`` (milliseconds, an int) as the event time."""
        require_type("with_timestamp_field", "field_name", field_name, str)
        if not field_name:
            msg = "with_timestamp_field: `field_name` must not be empty"
            raise ValueError(msg)
        self._refuse_second_timestamp("with_timestamp_field", field_name)
        return self._set_option("timestamp_field", field_name)

    def with_timestamp_extractor(self, extractor: TimestampExtractor) -> Self:
        """Use ``extractor(tuple) -> int`` (milliseconds) as the event time."""
        if not callable(extractor):
            msg = f"with_timestamp_extractor: `extractor` must be callable; got {extractor!r} instead"
            raise TypeError(msg)
        self._refuse_second_timestamp("with_timestamp_extractor", extractor)
        return self._set_option("timestamp_extractor", extractor)

    def _refuse_second_timestamp(self, method: str, value: object) -> None:
        current = self._timestamp_source()
        if current is not None:
            msg = f"{method}: the bolt already takes its timestamp from {current!r}; got {value!r} too"
            raise ValueError(msg)

    def with_lag(self, duration: Duration | timedelta) -> Self:
        """How far out of order tuple timestamps may be; the watermark trails the latest by this much."""
        duration = as_duration("with_lag", "duration", duration)  # type: ignore[assignment]
        require_type("with_lag", "duration", duration, Duration)
        if duration.value < 0:
            msg = f"with_lag: `duration` must not be negative; got {duration!r} instead"
            raise ValueError(msg)
        return self._set_option("lag", duration)

    def with_watermark_interval(self, interval: Duration | timedelta) -> Self:
        """How often (processing time) the watermark is computed and emitted; 1 s by default."""
        interval = as_duration("with_watermark_interval", "interval", interval)  # type: ignore[assignment]
        require_type("with_watermark_interval", "interval", interval, Duration)
        require_positive("with_watermark_interval", "interval", interval)
        return self._set_option("watermark_interval", interval)

    def with_late_tuple_stream(self, stream_id: str) -> Self:
        """Emit late tuples on ``stream_id`` (one field, ``late_tuple``) instead of logging or dropping them."""
        require_type("with_late_tuple_stream", "stream_id", stream_id, str)
        if not stream_id:
            msg = "with_late_tuple_stream: `stream_id` must not be empty"
            raise ValueError(msg)
        return self._set_option("late_tuple_stream", stream_id)
