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

from state_backends import StateBackend
from topologies.engine.task_store import namespace_name

log = logging.getLogger("squall.engine")

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


def cut_off(last: int, ahead: list[str]) -> bool:
    """Whether batch ``last + 1`` was cut off after the tasks ``ahead`` committed it (then no flush: a warning says so).

    Closing those tasks would fire the cut-off batch's tuples in the flush, and
    again when Spark runs the batch again; the next submit runs it and goes on.
    """
    if ahead:
        log.warning("no shutdown flush: batch %d was cut off after %d task(s) committed it (%s%s); the next submit "
                    "runs it again and goes on from there", last + 1, len(ahead), ahead[0],
                    ", ..." if len(ahead) > 1 else "")
    return bool(ahead)
