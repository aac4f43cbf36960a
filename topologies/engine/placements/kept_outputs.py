"""A distributed batch's outputs as its sinks read them: the kept streams stay on the executors.

The streams a DataFrame-reading sink takes (:attr:`SinkDelivery.kept`) are
not sent to the driver: each task leaves them in its stage's frame as
:data:`~topologies.engine.placements.chunks.KEPT` chunks, and
:meth:`KeptOutputs.dataframe` turns those chunks into typed rows where they
are (``mapInArrow`` on the executors), so a sink's write moves them from the
executors to the table. The other outputs came to the driver as usual.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bolts.codecs.value_codec import unpack_value
from topologies.engine.delivery.sink_delivery import HeldOutputs, SinkDelivery, arrow_frame, batch_column
from topologies.sinks.output_rows import OutputRows, Run, as_output_rows
from topologies.sinks.records import Output, OutputKey

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from topologies.engine.placements.frames import FrameEngine


class KeptOutputs:
    """An :class:`~topologies.sinks.base.OutputBatch` of a distributed batch (see the module docstring).

    ``outputs``: what came to the driver; ``frames``: each bolt's frame of the
    batch; ``seen``: the kept streams a task reported rows of. A stream that is
    not kept (a sink that reads records) is read from ``outputs``.
    """

    def __init__(self, key: OutputKey, outputs: Sequence[Output], frames: Mapping[str, Any], engine: FrameEngine,
                 delivery: SinkDelivery, seen: Collection[str] = ()) -> None:
        self.key = key
        self.seen = frozenset(seen)  # the kept streams some task emitted rows of
        self.batch_id = batch_column(key)
        self.outputs = as_output_rows(outputs)
        self.frames = frames
        self.engine = engine
        self.delivery = delivery

    @property
    def spark(self) -> SparkSession:  # type: ignore[override]
        """The session the sinks write with."""
        return self.delivery.session()

    def records(self, streams: Collection[str] | None = None) -> OutputRows:
        """The outputs of ``streams`` (all when None); a kept stream's are brought here from the executors."""
        held = self.outputs if streams is None else self.outputs.of_streams(streams)
        runs: list[Run] = []
        for stream in sorted(self.delivery.kept):
            if streams is not None and stream not in streams:
                continue
            component, name = stream.split(":")
            if component not in self.frames:
                continue
            rows = self.engine.kept_chunks(self.frames[component], component, name)
            for task, payload in zip(rows.column("task").to_pylist(), rows.column("payload").to_pylist(), strict=True):
                runs.append([Output(component, task, name, list(values)) for values in unpack_value(payload)])
        return held.plus(runs)

    def has_rows(self, stream: str) -> bool:
        """Whether ``stream`` has outputs in this batch: a task reported rows of it, or the driver holds some."""
        if stream in self.delivery.kept:
            return stream in self.seen
        return self._held().has_rows(stream)

    def dataframe(self, stream: str) -> DataFrame:
        """``stream``'s typed rows, made on the executors (types learned this batch committed first)."""
        if stream not in self.delivery.kept:
            return self._held().dataframe(stream)
        columns = self._columns(stream)
        component, name = stream.split(":")
        frame = self.engine.kept_rows(self.frames.get(component), component, name, columns, self.spark)
        return frame if not _is_arrow(frame) else arrow_frame(self.spark, frame)

    def table(self, stream: str) -> pa.Table:
        """``stream``'s typed rows, in this process."""
        if stream not in self.delivery.kept:
            return self._held().table(stream)
        columns = self._columns(stream)
        component, name = stream.split(":")
        frame = self.engine.kept_rows(self.frames.get(component), component, name, columns, self.spark)
        return frame if _is_arrow(frame) else frame.toArrow()

    def _held(self) -> HeldOutputs:
        return HeldOutputs(self.key, self.outputs, self.delivery)

    def _columns(self, stream: str) -> Any:
        types = self.delivery.types
        columns = types.of(stream)
        if stream in self.seen:  # a batch without rows of the stream pins nothing
            columns.settle()
            types.save([stream])
        return columns


def _is_arrow(frame: Any) -> bool:
    import pyarrow as pa

    return isinstance(frame, pa.Table)
