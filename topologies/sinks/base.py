"""The sink protocol: what a sink is given each batch (:class:`OutputBatch`) and what it must do (:class:`Sink`).

A *sink* takes the outputs of some terminal streams, named ``"component:stream"``
(``"component"`` alone means its ``default`` stream). The executor calls
:meth:`Sink.write` once per batch id that ran, and once per shutdown flush,
where ``foreachBatch`` runs (the shutdown flush: where the runner flushes,
under Spark Connect the client), before the batch is handed back to Spark: a
failure fails the batch and Spark runs it again, so a sink must make a replay
of a batch id replace (or skip) what the first run wrote. A sink that reads
:meth:`OutputBatch.dataframe` (``keeps_on_executors``) has its streams kept on
the executors in distributed mode: their rows never reach the driver.

Adding a sink is a class with ``name``, ``streams``, ``schemas``,
``keeps_on_executors`` and ``write``; see docs/architecture.md, "Where to add".
A sink with ``keeps_on_executors`` names its streams (not None).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from topologies.sinks.records import Output, OutputKey

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

FLUSH_PARTITION = -1  # the batch_id value of the shutdown flush's rows


def stream_name(name: str, what: str) -> str:
    """``name`` as ``"component:stream"`` (``"component"`` alone is its ``default`` stream); ValueError if malformed."""
    if not isinstance(name, str) or name.count(":") > 1 or not all(name.split(":")) or not name:
        msg = f"{what}: a stream is named 'component' or 'component:stream'; got {name!r} instead"
        raise ValueError(msg)
    return name if ":" in name else f"{name}:default"


class OutputBatch(Protocol):
    """One batch's (or the shutdown flush's) terminal outputs, as a sink reads them.

    ``key``: the batch id, or ``"final"`` for the flush; ``batch_id``: the value
    of the ``batch_id`` column a table sink writes (the batch id, or
    :data:`FLUSH_PARTITION` for the flush); ``spark``: the session to write with.
    """

    key: OutputKey
    batch_id: int
    spark: SparkSession

    def records(self, streams: Collection[str] | None = None) -> Sequence[Output]:
        """The outputs of ``streams`` (all when None) in emission order, in this process."""
        ...

    def has_rows(self, stream: str) -> bool:
        """Whether ``stream`` has outputs in this batch (without moving them)."""
        ...

    def table(self, stream: str) -> pa.Table:
        """``stream``'s rows as an Arrow table with its typed columns, in this process."""
        ...

    def dataframe(self, stream: str) -> DataFrame:
        """``stream``'s rows as a DataFrame with its typed columns (in distributed mode, made on the executors)."""
        ...


@runtime_checkable
class Sink(Protocol):
    """Where a topology's terminal outputs go (see the module docstring).

    ``streams``: the ``"component:stream"`` names it takes (None: all);
    ``schemas``: the types it gives some of them (a DDL string, a
    ``StructType`` or a ``pyarrow.Schema`` per stream name).
    """

    name: str
    streams: frozenset[str] | None
    schemas: Mapping[str, Any]
    keeps_on_executors: bool

    def write(self, batch: OutputBatch) -> None:
        """Write ``batch``'s outputs of :attr:`streams`; a replayed batch id must not be written twice."""
        ...
