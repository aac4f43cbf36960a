"""The shutdown flush as a recorded step: begun after batch ``n``, then done, in ``<topology>/__flush``.

The flush closes every task and writes what they emit as the ``"final"``
outputs. It commits no task state (a later submit resumes from the last batch,
with the watermark where that batch left it), so it can be run again from the
store at any time and gives the same outputs. What must survive a crash is
that it was *asked for*: :meth:`FlushRecord.begin` commits "begun after batch
``n``" before the first task closes, :meth:`FlushRecord.done` commits "done"
after the outputs are written. A submit that finds a flush begun and not done
completes it first (:meth:`FlushRecord.pending`).

Both marks are commits with the namespace's batch-id rule: begun after ``n``
is commit ``2n + 1``, done is ``2n + 2``, so a second flush after the same
batch finds itself done, and a flush after a later batch always moves on.
"""

from __future__ import annotations

import logging
import threading
from abc import abstractmethod
from collections.abc import Callable

from state_backends import StateBackend
from topologies.executor.batch_log import OutputLog
from topologies.executor.runtime import Output
from topologies.executor.stored import namespace_name

log = logging.getLogger("squall.executor")

FLUSH = "__flush"
_AFTER = b"after"


def _begun(batch_id: int) -> int:
    return 2 * batch_id + 1


class FlushRecord:
    """Whether the flush after a batch was begun and whether it was done, in the state store."""

    def __init__(self, backend: StateBackend, topology: str) -> None:
        self.namespace = backend.namespace(namespace_name(topology, FLUSH))

    def begin(self, batch_id: int) -> bool:
        """Record that the flush after ``batch_id`` starts; False when that flush is done already."""
        committed = self.namespace.committed_batch_id()
        if committed == _begun(batch_id):
            return True  # begun before and not done: this run completes it
        if committed is not None and committed > _begun(batch_id):
            return False
        return self.namespace.commit(_begun(batch_id), {_AFTER: str(batch_id).encode()})

    def done(self, batch_id: int) -> None:
        """Record that the flush after ``batch_id`` wrote its outputs."""
        self.namespace.commit(_begun(batch_id) + 1, {_AFTER: str(batch_id).encode()})

    def done_after(self, batch_id: int) -> bool:
        """Whether the flush after ``batch_id`` is done (and no flush after a later batch has begun)."""
        return self.namespace.committed_batch_id() == _begun(batch_id) + 1

    def pending(self) -> int | None:
        """The batch id after which a flush was begun and not done, or None."""
        committed = self.namespace.committed_batch_id()
        if committed is None or committed % 2 == 0:
            return None
        return (committed - 1) // 2


def flush_after(record: FlushRecord, last: int | None, outputs: OutputLog,
                close: Callable[[int], list[Output]], ahead: Callable[[int], list[str]]) -> None:
    """Run the flush after batch ``last`` unless it is done: mark it begun, write ``close(last)`` as final, mark done.

    ``close`` closes every task as the store holds it after ``last`` and
    returns what they emitted; it must commit nothing. Nothing to flush when no
    batch was ever committed (``last`` None). ``ahead`` names the tasks that
    committed a batch after ``last``: with any, before the flush begins or
    once the tasks are closed (a task of a cancelled job can still commit
    while the stop returns), nothing is written (see :meth:`FlushingExecutor.flush`).
    """
    if last is None or _cut_off(last, ahead(last)) or not record.begin(last):
        return
    closed = close(last)
    if _cut_off(last, ahead(last)):
        return  # begun and not done: a later submit finds it pending, and a task ahead, and leaves it
    outputs.write(OutputLog.FINAL, closed)
    record.done(last)


def _cut_off(last: int, ahead: list[str]) -> bool:
    if ahead:
        log.warning("no shutdown flush: batch %d was cut off after %d task(s) committed it (%s%s); the next submit "
                    "runs it again and goes on from there", last + 1, len(ahead), ahead[0],
                    ", ..." if len(ahead) > 1 else "")
    return bool(ahead)


class FlushingExecutor:
    """The shutdown flush of an executor (driver or distributed), run once per executor and once per last batch.

    The executor gives :attr:`flush_record`, :attr:`outputs`, :attr:`flushed`,
    :attr:`_lock`, :meth:`_last_batch` (the last batch committed to the store)
    and :meth:`_close_after` (close every task as the store holds them after a
    batch, committing nothing).
    """

    flush_record: FlushRecord
    outputs: OutputLog
    flushed: bool
    _lock: threading.Lock

    @abstractmethod
    def _last_batch(self) -> int | None:
        """The last batch id committed to the store (None before any)."""

    @abstractmethod
    def _close_after(self, last: int) -> list[Output]:
        """Close every task as the store holds it after batch ``last``; what they emitted."""

    @abstractmethod
    def _tasks_ahead_of(self, last: int) -> list[str]:
        """The task namespaces that committed a batch after ``last`` (a batch cut off after they committed it)."""

    def flush(self) -> None:
        """End of input: close every task (Storm's shutdown flush) and record what they emit as ``"final"``.

        Runs once per executor, and once per last batch: the flush after a batch
        whose flush is done does nothing, and a topology that never committed a
        batch has nothing to flush. The flush commits no task state; the next
        batch resumes the tasks from the store, as the last batch left them.

        A batch cut off (by ``stop()``) after some of its tasks committed it
        leaves those tasks' state past the last batch: closing them would fire
        the cut-off batch's tuples in the flush, and again when Spark runs the
        batch again. Then nothing is flushed, as after a killed driver: the
        next submit runs the batch again and goes on, and the windows fire
        then (a warning on ``squall.executor`` says so).
        """
        with self._lock:
            if not self.flushed:
                flush_after(self.flush_record, self._last_batch(), self.outputs, self._close_after,
                            self._tasks_ahead_of)
            self.flushed = True

    def complete_pending_flush(self) -> None:
        """Complete a flush an earlier process began after its last batch and did not finish (``submit`` calls it)."""
        with self._lock:
            pending = self.flush_record.pending()
            if pending is not None:
                flush_after(self.flush_record, pending, self.outputs, self._close_after, self._tasks_ahead_of)
