"""The window configuration a bolt carries: built by the ``with_*`` methods, checked as it is built."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, cast

from bolts.event_time_options import (
    DEFAULT_WATERMARK_INTERVAL,
    TimestampExtractor,
)
from windowing import Count, Duration, WindowSpec


@dataclass(frozen=True)
class WindowConfig:
    """Immutable window settings. Cross-setting rules are checked by :meth:`validate`.

    ``slide`` defaults to ``Count(1)`` as in Storm (the window slides with every tuple).
    """

    length: Count | Duration | None = None
    slide: Count | Duration | None = None
    timestamp_field: str | None = None
    timestamp_extractor: TimestampExtractor | None = None
    lag: Duration | None = None
    late_tuple_stream: str | None = None
    watermark_interval: Duration | None = None
    message_id_field: str | None = None
    persistence: bool = False
    max_events_in_memory: int | None = None
    storm_semantics: bool = False

    def with_(self, **changes: Any) -> WindowConfig:
        """A copy with ``changes`` applied."""
        return replace(self, **changes)

    @property
    def event_time(self) -> bool:
        """Whether windows follow tuple timestamps (a timestamp field or extractor is set)."""
        return self.timestamp_field is not None or self.timestamp_extractor is not None

    @property
    def lag_ms(self) -> int:
        """The lag in milliseconds (0 when unset, as in Storm)."""
        return self.lag.value if self.lag is not None else 0

    @property
    def watermark_interval_ms(self) -> int:
        """How often watermarks are emitted, in milliseconds (1 s by default)."""
        return (self.watermark_interval or DEFAULT_WATERMARK_INTERVAL).value

    def validate(self, component: str = "") -> None:
        """Check the rules that involve more than one setting; ``ValueError`` naming the method."""
        who = f" (bolt {component!r})" if component else ""
        if self.length is None:
            msg = f"with_window: the window length is not set{who}; call with_window(...) or with_tumbling_window(...)"
            raise ValueError(msg)
        if not self.event_time:
            for method, value in (
                ("with_lag", self.lag),
                ("with_late_tuple_stream", self.late_tuple_stream),
                ("with_watermark_interval", self.watermark_interval),
            ):
                if value is not None:
                    msg = (
                        f"{method}: {value!r} only applies to event time{who}; "
                        "call with_timestamp_field(...) or with_timestamp_extractor(...) too"
                    )
                    raise ValueError(msg)
        if self.storm_semantics and self.event_time and self.max_events_in_memory is not None:
            msg = (
                f"with_storm_semantics: cannot be combined with with_max_events_in_memory({self.max_events_in_memory})"
                f"{who}; Storm's event-time windows scan their whole queue in arrival order at every "
                "evaluation, which defeats paging: drop one of the two"
            )
            raise ValueError(msg)

    def spec(self) -> WindowSpec:
        """The window spec for the window manager (call :meth:`validate` first)."""
        self.validate()
        return WindowSpec(
            cast(Count | Duration, self.length),
            self.slide or Count(1),
            self.event_time,
            storm_semantics=self.storm_semantics,
            lag_ms=self.lag_ms,
        )
