"""Tuples from any streaming DataFrame the caller builds (Delta, a socket, a custom source, ...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bolts.tuples import DEFAULT_STREAM, Fields
from topologies.spouts.base import Spout

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


class DataFrameSpout(Spout):
    """Wraps a streaming DataFrame; ``fields`` (all its columns by default) become the tuple fields.

    The DataFrame must be streaming (``df.isStreaming``) and have every declared
    field as a column; both are checked here, at construction. The spout works
    in every placement and under Spark Connect: the query is built from the
    DataFrame at submit, where it was made, and a copy of the spout sent to
    another process (Spark's workers, a Connect server's ``foreachBatch``
    process) leaves the DataFrame behind.
    """

    def __init__(
        self, df: DataFrame, fields: Fields | Sequence[str] | None = None, *, stream: str = DEFAULT_STREAM,
        available_now: bool = True,
    ) -> None:
        if not getattr(df, "isStreaming", False):
            msg = (
                f"DataFrameSpout: `df` must be a streaming DataFrame (spark.readStream...); got {_describe(df)}; "
                "for a static table use FileSpout or spark.readStream.table(...)"
            )
            raise TypeError(msg)
        super().__init__(df.columns if fields is None else fields, stream)
        self.df: DataFrame | None = self._select(df)
        self.supports_available_now = available_now

    def dataframe(self, spark: SparkSession) -> DataFrame:
        """The wrapped DataFrame, reduced to the declared fields (``RuntimeError`` in a copy sent elsewhere)."""
        if self.df is None:
            msg = (
                f"DataFrameSpout (fields {self.fields.to_list()}): this copy was sent to another process and left "
                "its DataFrame behind; build the query where the spout was made (SparkRunner.submit does)"
            )
            raise RuntimeError(msg)
        return self.df

    def __getstate__(self) -> dict[str, Any]:
        # The DataFrame belongs to the session that made it (a classic one's cannot leave the driver at all).
        return {**self.__dict__, "df": None}


def _describe(value: Any) -> str:
    return "a non-streaming DataFrame" if hasattr(value, "isStreaming") else f"{value!r} ({type(value).__name__})"
