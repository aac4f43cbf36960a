"""Storm's ``BaseWindowedBolt``: a bolt whose ``execute`` receives a window of tuples."""

from __future__ import annotations

from typing import Any, Self

from bolts.base_bolt import BaseBolt
from bolts.tuples import Fields
from bolts.window_config import (
    LATE_TUPLE_FIELD,
    TimestampExtractor,
    WindowConfig,
    require_positive,
    require_type,
)
from windowing import Count, Duration, TupleWindow


class BaseWindowedBolt(BaseBolt):
    """Subclass it, override ``execute(window)``, and configure the window with the ``with_*`` methods.

    Every ``with_*`` method checks its argument at once (``TypeError`` for a wrong
    type, ``ValueError`` for a bad value, naming the method and the value) and
    returns the bolt, so calls chain. Rules that involve several settings (a lag
    only with event time, ...) are checked when the bolt is built into a harness or
    a topology. The late-tuple stream is declared for you with the field
    ``late_tuple``.
    """

    _window_config: WindowConfig

    @property
    def window_config(self) -> WindowConfig:
        """The window settings made so far."""
        try:
            return self._window_config
        except AttributeError:
            self._window_config = WindowConfig()
            return self._window_config

    def _set(self, **changes: Any) -> Self:
        self._window_config = self.window_config.with_(**changes)
        return self

    def execute(self, window: TupleWindow[Any]) -> None:  # type: ignore[override]
        """Process one window activation."""
        msg = f"{type(self).__name__}.execute: override execute(self, window) to process windows"
        raise TypeError(msg)

    # Window length and sliding interval -------------------------------------------------
    def with_window(
        self, window_length: Count | Duration, sliding_interval: Count | Duration | None = None
    ) -> Self:
        """A sliding window; without a sliding interval it slides with every tuple (``Count(1)``)."""
        require_type("with_window", "window_length", window_length, Count, Duration)
        require_positive("with_window", "window_length", window_length)
        if sliding_interval is None:
            sliding_interval = Count(1)
        require_type("with_window", "sliding_interval", sliding_interval, Count, Duration)
        require_positive("with_window", "sliding_interval", sliding_interval)
        return self._set(length=window_length, slide=sliding_interval)

    def with_tumbling_window(self, length: Count | Duration) -> Self:
        """A window that slides by its own length, so no tuple is in two windows."""
        require_type("with_tumbling_window", "length", length, Count, Duration)
        require_positive("with_tumbling_window", "length", length)
        return self._set(length=length, slide=length)

    # Event time -----------------------------------------------------------------------------
    def with_timestamp_field(self, field_name: str) -> Self:
        """Use the tuple field ``field_name`` (milliseconds, an int) as the event time."""
        require_type("with_timestamp_field", "field_name", field_name, str)
        if not field_name:
            msg = "with_timestamp_field: `field_name` must not be empty"
            raise ValueError(msg)
        self._refuse_second_timestamp("with_timestamp_field", field_name)
        return self._set(timestamp_field=field_name)

    def with_timestamp_extractor(self, extractor: TimestampExtractor) -> Self:
        """Use ``extractor(tuple) -> int`` (milliseconds) as the event time."""
        if not callable(extractor):
            msg = f"with_timestamp_extractor: `extractor` must be callable; got {extractor!r} instead"
            raise TypeError(msg)
        self._refuse_second_timestamp("with_timestamp_extractor", extractor)
        return self._set(timestamp_extractor=extractor)

    def _refuse_second_timestamp(self, method: str, value: object) -> None:
        cfg = self.window_config
        current = cfg.timestamp_field or cfg.timestamp_extractor
        if current is not None:
            msg = f"{method}: the window already takes its timestamp from {current!r}; got {value!r} too"
            raise ValueError(msg)

    def with_lag(self, duration: Duration) -> Self:
        """How far out of order tuple timestamps may be; the watermark trails the latest by this much."""
        require_type("with_lag", "duration", duration, Duration)
        if duration.value < 0:
            msg = f"with_lag: `duration` must not be negative; got {duration!r} instead"
            raise ValueError(msg)
        return self._set(lag=duration)

    def with_late_tuple_stream(self, stream_id: str) -> Self:
        """Emit late tuples on ``stream_id`` (field ``late_tuple``) instead of logging them."""
        require_type("with_late_tuple_stream", "stream_id", stream_id, str)
        if not stream_id:
            msg = "with_late_tuple_stream: `stream_id` must not be empty"
            raise ValueError(msg)
        return self._set(late_tuple_stream=stream_id)

    def with_watermark_interval(self, interval: Duration) -> Self:
        """How often (processing time) the watermark is computed and emitted; 1 s by default."""
        require_type("with_watermark_interval", "interval", interval, Duration)
        require_positive("with_watermark_interval", "interval", interval)
        return self._set(watermark_interval=interval)

    # Output ---------------------------------------------------------------------------------
    def output_streams(self, component: str = "") -> dict[str, Fields]:
        """The declared streams plus the late-tuple stream, when one is configured."""
        streams = super().output_streams(component)
        late = self.window_config.late_tuple_stream
        if late is not None:
            if late in streams and streams[late] != Fields(LATE_TUPLE_FIELD):
                msg = (
                    f"with_late_tuple_stream: stream {late!r} is also declared by the bolt as "
                    f"{streams[late]!r}; squall declares it as Fields('{LATE_TUPLE_FIELD}') itself"
                )
                raise ValueError(msg)
            streams[late] = Fields(LATE_TUPLE_FIELD)
        return streams
