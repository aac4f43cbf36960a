"""Where a bolt declares its output streams and emits tuples."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bolts.tuples import DEFAULT_STREAM, Fields


class OutputFieldsDeclarer:
    """Collects the streams a bolt declares in ``declare_output_fields``."""

    def __init__(self, component: str = "") -> None:
        self.component = component
        self.streams: dict[str, Fields] = {}

    def declare(self, fields: Fields | Sequence[str]) -> None:
        """Declare the fields of the default stream."""
        self.declare_stream(DEFAULT_STREAM, fields)

    def declare_stream(self, stream_id: str, fields: Fields | Sequence[str]) -> None:
        """Declare the fields of stream ``stream_id``."""
        if not isinstance(stream_id, str) or not stream_id:
            msg = f"declare_stream: `stream_id` must be a non-empty str; got {stream_id!r} instead"
            raise TypeError(msg)
        fields = fields if isinstance(fields, Fields) else Fields(list(fields))
        if stream_id in self.streams and self.streams[stream_id] != fields:
            who = f"{self.component!r} " if self.component else ""
            msg = (
                f"declare_stream: {who}declares stream {stream_id!r} twice, "
                f"as {self.streams[stream_id]!r} and as {fields!r}"
            )
            raise ValueError(msg)
        self.streams[stream_id] = fields


EmitSink = Callable[[str, list[Any]], None]


class OutputCollector:
    """Emits tuples on the bolt's declared streams.

    ``emit(values)`` emits on the default stream; ``emit(values, stream="s")`` or
    Storm's order ``emit("s", values)`` on another. The stream must be declared
    and the number of values must match its fields. Acking is implicit in squall
    (a batch commits as a whole), so there is no ``ack``/``fail``.
    """

    def __init__(self, streams: dict[str, Fields], sink: EmitSink, component: str = "") -> None:
        self.streams = streams
        self.sink = sink
        self.component = component

    def emit(self, values: Sequence[Any] | str, stream: Sequence[Any] | str = DEFAULT_STREAM) -> None:
        """Emit one tuple made of ``values`` on ``stream``."""
        if isinstance(values, str) and not isinstance(stream, str):  # Storm's emit(streamId, values)
            values, stream = stream, values
        if not isinstance(stream, str):
            msg = f"emit: `stream` must be a str; got {stream!r} instead"
            raise TypeError(msg)
        if isinstance(values, str | bytes) or not isinstance(values, Sequence):
            msg = f"emit: `values` must be a list or tuple of field values; got {values!r} instead"
            raise TypeError(msg)
        fields = self.streams.get(stream)
        if fields is None:
            declared = ", ".join(sorted(self.streams)) or "(none)"
            msg = (
                f"emit: stream {stream!r} is not declared by {self.component or 'this bolt'}; "
                f"declared streams are: {declared} (declare it in declare_output_fields)"
            )
            raise ValueError(msg)
        if len(values) != len(fields):
            msg = (
                f"emit: stream {stream!r} has fields {fields.to_list()} but {len(values)} values "
                f"were emitted: {list(values)!r}"
            )
            raise ValueError(msg)
        self.sink(stream, list(values))
