"""A Nexmark query in both engines, and the helpers the query modules share.

A :class:`Query` holds squall's topology (built per run), Spark's own query
(run to its end, returning a function that reads its answer) and how squall's
outputs become an answer of the same shape, which :mod:`benchmarks.nexmark.check`
compares with Spark's.
"""

from __future__ import annotations

import tempfile
import uuid
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchmarks.nexmark.views import Workload, events, view
from squall import Spout

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from topologies import Output, Topology

#: An answer: each key (a window and key, a row, a bidder) to its value (a count, a value, a number of copies).
Answer = Mapping[Hashable, Any]
ReadAnswer = Callable[[], Answer]


@dataclass(frozen=True)
class Query:
    """One Nexmark query: squall's topology, Spark's query, and how each gives its answer.

    ``topology(workload)`` builds squall's topology; ``spark(spark,
    workload)`` runs Spark's query to its end and returns a function reading
    its answer (called after the run is timed); ``answer(outputs)`` turns the
    outputs of squall's run into an answer of the same shape. ``spark_form``
    says how Spark runs it, ``compared`` what the check compares, ``gaps``
    the squall features the topology works around.
    """

    name: str
    title: str
    topology: Callable[[Workload], Topology]
    spark: Callable[[SparkSession, Workload], ReadAnswer]
    answer: Callable[[Sequence[Output]], Answer]
    spark_form: str = "streaming"
    compared: str = "every window and key"
    gaps: tuple[str, ...] = ()


class NexmarkView(Spout):
    """Nexmark's view ``kind`` of the event files as a spout: a custom spout, as docs/spouts.md writes one.

    Its DataFrame is :func:`views.view` of the workload's files, so Spark's scan
    filters the kind's rows and reads only ``view_fields`` for squall as for
    Spark's own query. ``where`` (a Spark SQL predicate over the view's
    fields) keeps only the rows for which it is true, in the same scan, so no
    Python process decodes the others. It keeps only plain settings, so it
    travels to where the bolts run, in every placement.
    """

    def __init__(
        self, workload: Workload, kind: str, view_fields: Sequence[str], stream: str = "default",
        where: str | None = None,
    ) -> None:
        super().__init__([f.partition(" AS ")[2] or f for f in view_fields], stream)
        self.workload, self.kind, self.view_fields, self.where = workload, kind, tuple(view_fields), where

    def dataframe(self, spark: SparkSession) -> DataFrame:
        """The view (and its ``where``), ``files_per_batch`` files per micro-batch."""
        rows = view(events(spark, self.workload), self.kind, self.view_fields)
        return rows if self.where is None else rows.where(self.where)


def run_to_end(df: DataFrame, output_mode: str = "append") -> str:
    """Run streaming ``df`` into a memory table until its input is drained (``availableNow``); the table's name."""
    name = f"nexmark_{uuid.uuid4().hex[:10]}"
    query = (df.writeStream.outputMode(output_mode).format("memory").queryName(name)
             .option("checkpointLocation", tempfile.mkdtemp(prefix="nexmark-spark-ck-"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    return name


def rows_of(spark: SparkSession, table: str, columns: Sequence[str], distinct: bool = False) -> list[tuple[Any, ...]]:
    """The rows of memory table ``table`` as tuples of ``columns`` (SQL expressions); each once if ``distinct``."""
    select = "SELECT DISTINCT" if distinct else "SELECT"
    return [tuple(row) for row in spark.sql(f"{select} {', '.join(columns)} FROM {table}").collect()]


def copies(rows: Iterable[tuple[Any, ...]]) -> Counter[tuple[Any, ...]]:
    """An answer that is a bag of rows: each row to how many times it came."""
    return Counter(rows)


def pane_rows(outputs: Sequence[Output], component: str) -> list[list[Any]]:
    """The values of ``component``'s outputs, in emission order."""
    return [list(out.values) for out in outputs if out.component == component]
