"""Storm's ``BaseStatefulBolt``: a plain bolt whose key-value state is committed with every batch."""

from __future__ import annotations

from typing import Any

from bolts.base_bolt import BaseBolt
from bolts.codecs.value_codec import pack_value, unpack_value
from bolts.codecs.window_state_codec import USER_PREFIX
from bolts.collector import EmitSink
from bolts.storm.base_stateful_windowed_bolt import StateHooks
from bolts.storm.stored_windowed_bolt_task import StateWrites
from bolts.task import TASK_KEY, PlainBoltTask, TaskOptions
from state_backends import KeyValueState


class BaseStatefulBolt(StateHooks, BaseBolt):
    """A plain bolt with user state: override ``init_state(state)``, ``execute(input)`` and the outputs.

    ``init_state(state)`` is called after ``prepare`` and before any tuple, with
    a ``KeyValueState`` holding what the last committed batch left (empty on the
    first run). Writes to it are committed with every micro-batch, atomically
    with the batch's outputs, in the topology's state backend: a batch that
    fails, or runs again after a crash, starts from the state of the batch
    before it. ``init_state`` runs again whenever a task is rebuilt from the
    store (a restart, a failed batch, or in distributed mode a task landing on
    another executor), so keep nothing in it but what ``state`` holds.

    ``pre_prepare(txid)`` then ``pre_commit(txid)`` are called before each commit
    (``txid`` is the batch id); ``pre_rollback()`` is never called: a batch that
    fails is not rolled back in place, its task is rebuilt from the store.
    """


class StatefulBoltTask(PlainBoltTask):
    """Runs a :class:`BaseStatefulBolt`: its ``KeyValueState`` lives in the task's namespace, under the user prefix."""

    def __init__(self, bolt: BaseStatefulBolt, options: TaskOptions) -> None:
        super().__init__(bolt, options)
        self.user_state = KeyValueState(self._store_or_fail(), USER_PREFIX, (pack_value, unpack_value))

    def prepare(self, conf: dict[str, Any], sink: EmitSink) -> None:
        """Prepare the bolt, then give it its state."""
        super().prepare(conf, sink)
        self.bolt.init_state(self.user_state)

    def before_commit(self, batch_id: int) -> None:
        """The bolt's ``pre_prepare`` then ``pre_commit``, before anything of the commit is gathered."""
        self.bolt.pre_prepare(batch_id)
        self.bolt.pre_commit(batch_id)

    def commit(self, batch_id: int) -> bool:
        """Commit the task's time and the user state's writes with ``batch_id`` (False if it was committed already)."""
        writes = StateWrites({TASK_KEY: pack_value(self.state())}, [])
        self.user_state.write_to(writes)  # type: ignore[arg-type]
        applied = bool(self._store_or_fail().commit(batch_id, writes.puts, writes.deletes))
        self.user_state.committed()
        return applied

