"""Stream groupings: which task(s) of a subscribing bolt receive each tuple.

Every grouping is deterministic, so a replayed batch is routed exactly as the
first time: shuffle (and ``local_or_shuffle`` and ``none``, which are shuffle
here) is a round-robin per (source task, subscriber) whose position is kept
with the batch loop's counters; fields grouping uses Spark's own ``hash()`` of
the grouped values (:mod:`topologies.spark_hash`: the same in every process,
unlike Python's salted ``hash``, and computed by Spark in the plan for a
spout's rows); partial-key grouping picks the less loaded of two hashed tasks, with
the loads kept beside the shuffle positions; global sends everything to task
0, all to every task; direct sends each tuple where its ``emit_direct`` says;
a custom grouping asks the user's :class:`CustomStreamGrouping`.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bolts.codecs.value_codec import class_name, pack_value
from bolts.context import TopologyContext, TopologyLayout
from bolts.tuples import DEFAULT_STREAM, Fields
from topologies.spark_hash import spark_hash
from windowing.arrow_values import python_values

if TYPE_CHECKING:
    import pyarrow as pa


class Grouping(ABC):
    """How a subscription spreads tuples over the ``n`` tasks of the subscribing bolt."""

    name: str = ""

    @abstractmethod
    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """The task indexes (in ``range(n)``) that receive a tuple; ``counter`` counts earlier tuples."""

    def required_fields(self) -> tuple[str, ...]:
        """The fields the upstream stream must declare for this grouping."""
        return ()

    def route(
        self, values: Sequence[Any], fields: Fields, n: int, counters: MutableMapping[Any, int], key: tuple[Any, ...],
    ) -> list[int]:
        """The targets of one emitted tuple, moving this subscription's turn ``counters[key]`` on by one.

        ``key`` identifies the (source task, stream, subscriber); a grouping
        with more state than a turn keeps it in ``counters`` under keys it
        derives from ``key``, so it is committed and replayed with the turns.
        """
        counter = counters.get(key, 0)
        counters[key] = counter + 1
        return self.targets(values, fields, n, counter)

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """The rows of ``table`` each of the ``n`` tasks receives, in row order: :meth:`targets` on columns.

        ``counter`` counts the tuples before the table's first row; row ``i`` has
        counter ``counter + i``. The default asks :meth:`targets` row by row;
        the built-in groupings compute the same choice on whole columns.
        """
        import pyarrow as pa

        columns = [python_values(table.column(i)) for i in range(table.num_columns)]
        per_task: list[list[int]] = [[] for _ in range(n)]
        for i, values in enumerate(zip(*columns, strict=True)):
            for task in self.targets(values, fields, n, counter + i):
                per_task[task].append(i)
        return [table.take(pa.array(rows, pa.int64())) for rows in per_task]


class ShuffleGrouping(Grouping):
    """Storm's shuffle grouping, made deterministic: round-robin over the tasks."""

    name = "shuffle"

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """Task ``counter % n``."""
        return [counter % n]

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """Row ``i`` to task ``(counter + i) % n``: every n-th row from the task's first."""
        import pyarrow as pa

        rows = table.num_rows
        return [table.take(pa.array(range((task - counter) % n, rows, n), pa.int64())) for task in range(n)]


class LocalOrShuffleGrouping(ShuffleGrouping):
    """Storm's ``localOrShuffleGrouping``: a shuffle, since no task here is bound to a worker process."""

    name = "local_or_shuffle"


class NoneGrouping(ShuffleGrouping):
    """Storm's ``noneGrouping``: the subscriber does not care, and Storm runs it as a shuffle; so does squall."""

    name = "none"


class DirectGrouping(Grouping):
    """Storm's ``directGrouping``: each tuple goes to the task its ``emit_direct`` names, and nowhere else."""

    name = "direct"

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """None: a direct tuple's target is the one it was emitted to (the routing table applies it)."""
        return []


class PartialKeyGrouping(Grouping):
    """Storm's ``partialKeyGrouping``: a key goes to one of two tasks, whichever has had fewer tuples.

    The two candidates are two stable hashes of the grouped values (the two
    halves of a BLAKE2b digest of their ``repr``); the loads are counted per (source task, stream,
    subscriber) over the run, and stored with the shuffle turns, so a replayed
    batch chooses as the first run did. A spout's rows are balanced within
    each Spark partition of each batch (each partition is routed on its own).
    With one task, every tuple goes to it.
    """

    name = "partial_key"

    def __init__(self, fields: Fields) -> None:
        self.fields = fields

    def required_fields(self) -> tuple[str, ...]:
        """The grouped fields."""
        return tuple(self.fields)

    def candidates(self, key: Sequence[Any], n: int) -> tuple[int, int]:
        """The two tasks ``key`` may go to (equal when ``n`` is 1 or the hashes collide)."""
        digest = hashlib.blake2b(key_text(key).encode("utf-8"), digest_size=16).digest()
        return int.from_bytes(digest[:8], "big") % n, int.from_bytes(digest[8:], "big") % n

    def _choose(self, values: Sequence[Any], fields: Fields, loads: list[int]) -> int:
        first, second = self.candidates([values[fields.index(f)] for f in self.fields], len(loads))
        chosen = second if loads[second] < loads[first] else first
        loads[chosen] += 1
        return chosen

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """The first candidate: without loads (a lone tuple) both are equally loaded."""
        return [self.candidates([values[fields.index(f)] for f in self.fields], n)[0]]

    def route(
        self, values: Sequence[Any], fields: Fields, n: int, counters: MutableMapping[Any, int], key: tuple[Any, ...],
    ) -> list[int]:
        """The less loaded candidate, with the loads read from and written back to ``counters``."""
        load_keys = [(*key[:-1], f"{key[-1]}\x00load{i}") for i in range(n)]
        loads = [counters.get(k, 0) for k in load_keys]
        chosen = self._choose(values, fields, loads)
        counters[load_keys[chosen]] = loads[chosen]
        return [chosen]

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """Row by row, balancing from no load (each Spark partition of a batch is balanced on its own)."""
        import pyarrow as pa

        loads = [0] * n
        columns = [python_values(table.column(name)) for name in fields]
        per_task: list[list[int]] = [[] for _ in range(n)]
        for i, values in enumerate(zip(*columns, strict=True)):
            per_task[self._choose(values, fields, loads)].append(i)
        return [table.take(pa.array(rows, pa.int64())) for rows in per_task]

    def __repr__(self) -> str:
        return f"PartialKeyGrouping({self.fields!r})"


class CustomStreamGrouping:
    """Storm's ``CustomStreamGrouping``: subclass it and pass an instance to ``custom_grouping``.

    ``prepare(context, stream, target_tasks)`` is called once in each process
    that routes the stream, before the first tuple: ``stream`` is the
    ``(component, stream)`` pair, ``target_tasks`` the subscribing bolt's task
    ids. ``choose_tasks(task_id, values)`` gets the emitting task's id and the
    tuple's values and returns task ids from ``target_tasks``. It must be
    deterministic (a function of its arguments and of what ``prepare`` saw), so
    a replayed batch routes as the first run did; the instance travels to
    Spark's executors, so it must pickle.
    """

    def prepare(self, context: TopologyContext, stream: tuple[str, str], target_tasks: list[int]) -> None:
        """Called before the first tuple; the default does nothing."""

    def choose_tasks(self, task_id: int, values: list[Any]) -> list[int]:
        """The task ids (among ``target_tasks``) that receive the tuple. Subclasses must override this."""
        msg = f"{type(self).__name__}.choose_tasks: override choose_tasks(self, task_id, values)"
        raise TypeError(msg)


class CustomGrouping(Grouping):
    """Routes with a user's :class:`CustomStreamGrouping`, prepared lazily in each process."""

    name = "custom"

    def __init__(self, grouping: CustomStreamGrouping, bolt: str) -> None:
        self.grouping = grouping
        self.bolt = bolt
        self.layout: TopologyLayout | None = None
        self.source: tuple[str, str] = ("", "")
        self._prepared = False

    def bind(self, layout: TopologyLayout, component: str, stream: str) -> None:
        """Tell the grouping the topology and the stream it routes (done when the topology is created)."""
        self.layout, self.source = layout, (component, stream)

    def _targets_of(self, source_task: int, values: Sequence[Any], n: int) -> list[int]:
        layout = self.layout
        if layout is None:
            msg = f"custom_grouping: the grouping of bolt {self.bolt!r} was used before the topology was created"
            raise RuntimeError(msg)
        ids = layout.task_ids(self.bolt)
        if not self._prepared:
            context = TopologyContext(self.source[0], 0, layout.parallelism.get(self.source[0], 1), layout=layout)
            self.grouping.prepare(context, self.source, list(ids))
            self._prepared = True
        chosen = self.grouping.choose_tasks(layout.task_id(self.source[0], source_task), list(values))
        first = ids[0]
        if isinstance(chosen, str | bytes) or not isinstance(chosen, Sequence) or any(
            isinstance(t, bool) or not isinstance(t, int) or not first <= t < first + n for t in chosen
        ):
            msg = (
                f"custom_grouping: {type(self.grouping).__name__}.choose_tasks returned {chosen!r:.200} for "
                f"{list(values)!r:.200} on {self.source[0]}:{self.source[1]}; it must return a list of task ids "
                f"of bolt {self.bolt!r}: {ids}"
            )
            raise ValueError(msg)
        return [t - first for t in chosen]

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """Not used: :meth:`route` needs the emitting task."""
        return self._targets_of(0, values, n)

    def route(
        self, values: Sequence[Any], fields: Fields, n: int, counters: MutableMapping[Any, int], key: tuple[Any, ...],
    ) -> list[int]:
        """The user's choice for the tuple, from the emitting task ``key[1]``."""
        return self._targets_of(int(key[1]), values, n)

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """Row by row (a spout's rows come from its one task, index 0)."""
        import pyarrow as pa

        columns = [python_values(table.column(name)) for name in fields]
        per_task: list[list[int]] = [[] for _ in range(n)]
        for i, values in enumerate(zip(*columns, strict=True)):
            for task in self._targets_of(0, values, n):
                per_task[task].append(i)
        return [table.take(pa.array(rows, pa.int64())) for rows in per_task]

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_prepared": False}  # prepared again in each process it travels to


class GlobalGrouping(Grouping):
    """Every tuple goes to the task with the lowest index, as in Storm."""

    name = "global"

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """Task 0."""
        return [0]

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """Every row to task 0."""
        return [table, *(table.slice(0, 0) for _ in range(n - 1))]


class AllGrouping(Grouping):
    """Every task gets a copy of every tuple."""

    name = "all"

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """Every task."""
        return list(range(n))

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """Every row to every task."""
        return [table] * n


class FieldsGrouping(Grouping):
    """Tuples with equal values in ``fields`` go to the same task."""

    name = "fields"

    def __init__(self, fields: Fields) -> None:
        self.fields = fields

    def required_fields(self) -> tuple[str, ...]:
        """The grouped fields."""
        return tuple(self.fields)

    def targets(self, values: Sequence[Any], fields: Fields, n: int, counter: int) -> list[int]:
        """The task chosen by :func:`fields_task` for the grouped values."""
        return [fields_task([values[fields.index(f)] for f in self.fields], n)]

    def split(self, table: pa.Table, fields: Fields, n: int, counter: int) -> list[pa.Table]:
        """Each row's :func:`fields_task` (on the values a row would give), then a ``filter`` per task.

        Keys of integers, booleans and floating point are hashed with numpy
        (:func:`~topologies.spark_hash.column_hashes`); others once per
        distinct key in Python.
        """
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        from topologies.spark_hash import column_hashes

        if table.num_rows == 0:
            return [table] * n
        hashes = column_hashes([table.column(name) for name in self.fields])
        if hashes is not None:
            targets = pa.array(np.mod(hashes.astype(np.int64), n))  # pmod, as fields_task's % gives
            return [table.filter(pc.equal(targets, task)) for task in range(n)]
        if any(pa.types.is_nested(kind) or pa.types.is_dictionary(kind)
               for kind in (table.schema.field(name).type for name in self.fields)):
            # No dictionary kernel for lists, structs, maps; a dictionary column is kept as it is (nulls too).
            return super().split(table, fields, n, counter)
        # Each key column as dictionary codes; the codes combined into one code per distinct key.
        combined: Any = None
        dictionaries = []
        for name in self.fields:
            encoded = pc.dictionary_encode(table.column(name), null_encoding="encode")
            chunks = encoded.combine_chunks() if isinstance(encoded, pa.ChunkedArray) else encoded
            size = len(chunks.dictionary)
            codes = pc.cast(chunks.indices, pa.int64())
            dictionaries.append((python_values(chunks.dictionary), size))  # keys as a Tuple holds them
            combined = codes if combined is None else pc.add(pc.multiply(combined, size), codes)
        keys = pc.dictionary_encode(combined)
        task_of_key = []
        for code in keys.dictionary.to_pylist():
            values = []
            for values_of_column, size in reversed(dictionaries):
                code, index = divmod(code, size)
                values.append(values_of_column[index])
            task_of_key.append(fields_task(values[::-1], n))
        targets = pc.take(pa.array(task_of_key, pa.int64()), keys.indices)
        return [table.filter(pc.equal(targets, task)) for task in range(n)]

    def __repr__(self) -> str:
        return f"FieldsGrouping({self.fields!r})"


def fields_task(key: Sequence[Any], n: int) -> int:
    """The task of a fields grouping for the grouped values ``key``: ``pmod(hash(key...), n)``, Spark's own hash.

    The same number Spark computes in a plan for a spout's key columns
    (:func:`topologies.spark_hash.key_hash_column`), so a key goes to one task
    whether a spout or a bolt emitted it, in every placement.
    """
    return spark_hash(key, _value_text) % n


def _value_text(value: Any) -> str:
    """The stable text a value that is no plain scalar is hashed by (see :func:`key_text`)."""
    return key_text([value])


def key_text(key: Sequence[Any]) -> str:
    """What a grouping hashes for ``key``: its ``repr``, the same in every process.

    A value whose class keeps ``object``'s ``repr`` (an address, different in
    each process) is replaced by its class and its encoding as it travels
    (a registered class), so equal keys go to the same task everywhere.
    """
    if all(type(v).__repr__ is not object.__repr__ for v in key):
        return repr(tuple(key))
    return repr(tuple(v if type(v).__repr__ is not object.__repr__ else (class_name(type(v)), pack_value(v).hex())
                      for v in key))


@dataclass(frozen=True)
class Subscription:
    """A bolt subscribes to ``stream`` of ``component`` with ``grouping``."""

    component: str
    stream: str = DEFAULT_STREAM
    grouping: Grouping = ShuffleGrouping()  # noqa: RUF009 - groupings are immutable
