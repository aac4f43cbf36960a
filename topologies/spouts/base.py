"""The spout interface: a Spark streaming source and the fields of the tuples it emits."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bolts.tuples import DEFAULT_STREAM, Fields

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame, SparkSession


def as_fields(method: str, fields: Fields | Sequence[str]) -> Fields:
    """``fields`` as :class:`Fields`; ``TypeError``/``ValueError`` naming ``method`` when it is not a list of names."""
    if isinstance(fields, str) or not isinstance(fields, Fields | Sequence):
        msg = f"{method}: `fields` must be a list of field names such as ('key', 'ts'); got {fields!r} instead"
        raise TypeError(msg)
    result = fields if isinstance(fields, Fields) else Fields(list(fields))
    if not result:
        msg = f"{method}: `fields` must name at least one field"
        raise ValueError(msg)
    return result


class Spout(ABC):
    """A source of tuples: one Spark streaming DataFrame whose columns are the declared fields.

    Every spout emits on one stream (``stream``, ``"default"`` unless given) with
    the fields it declares; a row becomes one tuple with those fields, in order.
    A spout may declare more streams (a file spout's error stream): its
    DataFrame then carries :meth:`side_columns` after the fields, and
    :meth:`split` cuts each batch into the rows of each stream.
    """

    #: Whether the source supports Spark's ``availableNow`` trigger (a bounded run).
    supports_available_now: bool = True

    def __init__(self, fields: Fields | Sequence[str], stream: str = DEFAULT_STREAM) -> None:
        cls = type(self).__name__
        self.fields = as_fields(cls, fields)
        if not isinstance(stream, str) or not stream:
            msg = f"{cls}: `stream` must be a non-empty str; got {stream!r} instead"
            raise TypeError(msg)
        self.stream = stream

    def output_streams(self) -> dict[str, Fields]:
        """The streams this spout emits, with their fields: its one stream, unless a subclass adds more."""
        return {self.stream: self.fields}

    @abstractmethod
    def dataframe(self, spark: SparkSession) -> DataFrame:
        """The streaming DataFrame of this spout: the declared fields as columns, in order, then the side columns."""

    def side_columns(self) -> tuple[str, ...]:
        """The columns :meth:`dataframe` has after the declared fields, for :meth:`split` (none by default)."""
        return ()

    def split(self, table: pa.Table, component: str) -> dict[str, pa.Table]:
        """One batch of this spout (the fields, then the side columns) as ``{stream: rows}``.

        Runs where the batch is cut into the tasks' inputs: where
        ``foreachBatch`` runs, or in distributed mode in the Spark worker that
        read the rows (so a spout must pickle: keep plain settings on it). Each
        table has one column per field of its stream, rows in batch order. By
        default every row is a tuple on :attr:`stream`. ``component`` is the
        spout's id in the topology, for messages.
        """
        return {self.stream: table}

    def _select(self, df: DataFrame, *side: Column) -> DataFrame:
        """The declared fields, then ``side``; ``ValueError`` listing the source's columns when a field is missing."""
        missing = [f for f in self.fields if f not in df.columns]
        if missing:
            msg = (
                f"{type(self).__name__}: the source has no column {', '.join(map(repr, missing))} for the declared "
                f"fields {self.fields.to_list()}; its columns are: {', '.join(df.columns)}"
            )
            raise ValueError(msg)
        return df.select(*self.fields, *side)
