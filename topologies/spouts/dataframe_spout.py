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
    field as a column; both are checked here, at construction.
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
        self.df = self._select(df)
        self.supports_available_now = available_now

    def dataframe(self, spark: SparkSession) -> DataFrame:
        """The wrapped DataFrame, reduced to the declared fields."""
        return self.df


def _describe(value: Any) -> str:
    return "a non-streaming DataFrame" if hasattr(value, "isStreaming") else f"{value!r} ({type(value).__name__})"
