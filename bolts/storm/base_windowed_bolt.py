"""Storm's ``BaseWindowedBolt``: a bolt whose ``execute`` receives a window of tuples."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Self

from bolts.base_bolt import BaseBolt
from bolts.event_time_options import LATE_TUPLE_FIELD, EventTimeOptions, require_positive, require_type
from bolts.storm.window_config import WindowConfig
from bolts.tuples import Fields
from windowing import Count, Duration, TupleWindow
from windowing.duration import as_duration


class BaseWindowedBolt(EventTimeOptions, BaseBolt):
    """Subclass it, override ``execute(window)``, and configure the window with the ``with_*`` methods.

    Every ``with_*`` method checks its argument at once (``TypeError`` for a wrong
    type, ``ValueError`` for a bad value, naming the method and the value) and
    returns the bolt, so calls chain. Rules that involve several settings (a lag
    only with event time, ...) are checked when the bolt is built into a harness or
    a topology. The late-tuple stream is declared for you with the field
    ``late_tuple``, and the error stream (``with_error_stream``) with the fields
    ``tuple``, ``component`` and ``reason``.
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
        self, window_length: Count | Duration | timedelta, sliding_interval: Count | Duration | timedelta | None = None
    ) -> Self:
        """A sliding window; without a sliding interval it slides with every tuple (``Count(1)``)."""
        window_length = as_duration("with_window", "window_length", window_length)  # type: ignore[assignment]
        sliding_interval = as_duration("with_window", "sliding_interval", sliding_interval)  # type: ignore[assignment]
        require_type("with_window", "window_length", window_length, Count, Duration)
        require_positive("with_window", "window_length", window_length)
        if sliding_interval is None:
            sliding_interval = Count(1)
        require_type("with_window", "sliding_interval", sliding_interval, Count, Duration)
        require_positive("with_window", "sliding_interval", sliding_interval)
        return self._set(length=window_length, slide=sliding_interval)

    def with_tumbling_window(self, length: Count | Duration | timedelta) -> Self:
        """A window that slides by its own length, so no tuple is in two windows."""
        length = as_duration("with_tumbling_window", "length", length)  # type: ignore[assignment]
        require_type("with_tumbling_window", "length", length, Count, Duration)
        require_positive("with_tumbling_window", "length", length)
        return self._set(length=length, slide=length)

    def with_storm_semantics(self) -> Self:
        """Behave exactly as Storm 2.x's ``WindowManager`` in event time, tuple for tuple.

        Switches off squall's three documented deviations (docs/storm-differences.md):
        the event-time scan walks the queue in arrival order and stops at the first
        tuple beyond the window end plus the lag; event-time count windows count in
        arrival order; a window fires when the watermark reaches its end. Storm's
        queue compaction every 100 tuples is kept too. Processing-time windows
        already behave as Storm's and do not change. Refused with
        ``with_max_events_in_memory`` in event time (checked when the bolt is built).
        """
        return self._set(storm_semantics=True)

    # Event time: with_timestamp_field, with_timestamp_extractor, with_lag, with_watermark_interval and
    # with_late_tuple_stream come from EventTimeOptions.
    def _set_option(self, setting: str, value: Any) -> Self:
        return self._set(**{setting: value})

    def _timestamp_source(self) -> object | None:
        cfg = self.window_config
        return cfg.timestamp_field or cfg.timestamp_extractor

    # Output ---------------------------------------------------------------------------------
    def _declared_streams(self, component: str) -> dict[str, Fields]:
        """The declared streams plus the late-tuple stream, when one is configured."""
        streams = super()._declared_streams(component)
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
