"""``SquallProgressListener``: Spark's progress of a topology's batch, paired with squall's figures of that batch.

Apart from :mod:`topologies.metrics` because it subclasses pyspark's
``StreamingQueryListener``, and ``import squall`` must not import pyspark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyspark.sql.streaming import StreamingQueryListener

from topologies.metrics import BatchMetrics, MetricsHistory, MetricsSource, ProgressCallback

if TYPE_CHECKING:
    from pyspark.sql.streaming.listener import QueryProgressEvent, QueryStartedEvent, QueryTerminatedEvent


class SquallProgressListener(StreamingQueryListener):
    """A ``StreamingQueryListener`` that hands Spark's progress of a topology's batch with squall's figures.

    ``metrics``: where squall's figures are: a :class:`MetricsHistory` (e.g.
    ``handle.loop.metrics``) or a function returning one, asked at every
    event (None while the topology has not started). ``callback(progress,
    batch_metrics)`` is called on Spark's listener thread for every progress of
    the query named ``query_name`` (of every query when None): ``progress`` is
    Spark's ``StreamingQueryProgress`` (``batchId``, ``numInputRows``,
    ``durationMs``, ...), ``batch_metrics`` the :class:`BatchMetrics` of the
    same batch id (None when squall does not hold it). Register it with
    ``spark.streams.addListener(listener)``, or let
    :meth:`SparkRunner.add_progress_listener` do it. An exception of the
    callback does not stop the query; it is kept in :attr:`errors`.
    """

    def __init__(self, metrics: MetricsSource, callback: ProgressCallback, query_name: str | None = None) -> None:
        if not callable(callback):
            msg = f"SquallProgressListener: `callback` must be callable(progress, metrics); got {callback!r} instead"
            raise TypeError(msg)
        if not isinstance(metrics, MetricsHistory) and not callable(metrics):
            msg = (
                "SquallProgressListener: `metrics` must be a MetricsHistory or a function returning one; "
                f"got {metrics!r} instead"
            )
            raise TypeError(msg)
        self.metrics = metrics
        self.callback = callback
        self.query_name = query_name
        self.errors: list[BaseException] = []

    def batch_metrics(self, batch_id: int) -> BatchMetrics | None:
        """The figures of ``batch_id`` held for the query, or None."""
        history = self.metrics if isinstance(self.metrics, MetricsHistory) else self.metrics()
        return None if history is None else history.get(batch_id)

    def onQueryStarted(self, event: QueryStartedEvent) -> None:
        """Nothing to do when a query starts."""

    def onQueryProgress(self, event: QueryProgressEvent) -> None:
        """Pair Spark's progress of a batch with squall's figures of that batch and call the callback."""
        progress = event.progress
        if self.query_name is not None and progress.name != self.query_name:
            return
        try:
            self.callback(progress, self.batch_metrics(progress.batchId))
        except Exception as err:  # Spark would only log it on its listener thread: keep it where a test can see it
            self.errors.append(err)

    def onQueryIdle(self, event: Any) -> None:
        """Nothing to do while a query is idle."""

    def onQueryTerminated(self, event: QueryTerminatedEvent) -> None:
        """Nothing to do when a query ends."""
