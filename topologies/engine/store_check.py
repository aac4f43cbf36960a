"""A store that lost data must not be used as if empty: the checkpoint's last batch against the store's commits.

Every batch commits every task's namespace and the shuffle counters'
(``<name>/__router``) with its batch id, in both modes. So once Spark's
checkpoint records batch ``n`` as committed, a durable store holds at least
``n`` in each of them. A store behind that lost what it held (a Redis restarted
without persistence, a dropped HBase table): resuming from it would start
windows and state afresh while the checkpoint goes on from ``n``, silently
dropping what the lost state held. :func:`check_store_not_behind` refuses it.

A ``memory://`` store is checked too: it lives as long as its ``SparkRunner``
(``memory://<name>``: as long as the process), so a new runner on a checkpoint
with committed batches meets it empty. Going on would start every window (the
tuples a count window still holds, those it will report expired), user state
and shuffle counter afresh mid-stream, and the outputs after the restart would
differ from those of a run that did not stop, or of the same run on
``redis://`` (distributed mode, which cannot use ``memory://``).
"""

from __future__ import annotations

from pathlib import Path

from state_backends import StateBackend, redact
from state_backends.urls import scheme_of
from topologies.engine.task_store import ROUTER, namespace_name, task_namespaces
from topologies.storage import StorageDir, as_dir
from topologies.topology import Topology


def last_committed_batch(spark_checkpoint: StorageDir | Path) -> int | None:
    """The highest batch id Spark's checkpoint records as committed (``commits/<id>``), None before any."""
    ids = [int(name) for name in as_dir(spark_checkpoint).child("commits").names() if name.isdigit()]
    return max(ids) if ids else None


def check_store_not_behind(backend: StateBackend, url: str, name: str, topology: Topology,
                           spark_checkpoint: StorageDir | Path) -> None:
    """``RuntimeError`` when the store is behind the checkpoint of query ``name``.

    The shuffle counters' namespace must hold the checkpoint's last batch (a
    store that lost everything lost it too); every task namespace that holds a
    commit must not be behind it (a store that lost part of its data). A task
    namespace with no commit at all is a bolt added since, which starts empty.
    """
    spark_checkpoint = as_dir(spark_checkpoint)
    last = last_committed_batch(spark_checkpoint)
    if last is None:
        return
    namespaces = [namespace_name(name, ROUTER), *task_namespaces(name, topology.bolts)]
    for ns in namespaces:
        committed = backend.namespace(ns).committed_batch_id()
        if committed is None and ns != namespaces[0]:
            continue
        if committed is None or committed < last:
            held = "nothing" if committed is None else f"batch {committed}"
            behind = last + 1 if committed is None else last - committed
            why = (
                "memory:// lives only as long as the SparkRunner that ran the query (memory://<name>: as long as "
                "its process), and resuming in a new one would start windows and state afresh mid-stream; resubmit "
                "on that runner, or use redis:// or hbase:// state to resume across processes"
                if scheme_of(url) == "memory"
                else "the store lost data (was it restarted without persistence?), and resuming would start windows "
                "and state afresh mid-stream"
            )
            msg = (
                f"submit: the state store {redact(url)} is behind the checkpoint of {name!r}: namespace {ns!r} "
                f"holds {held}, but Spark's checkpoint ({spark_checkpoint}) committed batch {last}, {behind} "
                f"batch(es) more; {why}. To start afresh on purpose, delete the checkpoint directory "
                f"{str(spark_checkpoint).removesuffix('/spark')} (or submit under a new name)"
            )
            raise RuntimeError(msg)
