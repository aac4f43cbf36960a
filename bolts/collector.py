"""Where a bolt declares its output streams and emits tuples, in Storm's forms."""

from __future__ import annotations

import logging
import reprlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from bolts.codecs.value_codec import untravelled_arrow_type
from bolts.errors import ERROR_FIELDS
from bolts.tuples import DEFAULT_STREAM, Fields, Tuple
from windowing.arrow_values import out_of_range

if TYPE_CHECKING:
    import pyarrow as pa

LOG = logging.getLogger("squall.bolts")
DEBUG_LOG = logging.getLogger("squall.debug")  # topology.debug: every emitted tuple
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 120


class OutputFieldsDeclarer:
    """Collects the streams a bolt declares in ``declare_output_fields``.

    Storm's forms: ``declare(fields)``, ``declare(direct, fields)``,
    ``declare_stream(stream_id, fields)`` and ``declare_stream(stream_id,
    direct, fields)``; ``direct=`` works as a keyword too. A direct stream's
    tuples go only where the bolt sends them with ``emit_direct``, to a bolt
    subscribed with ``direct_grouping``.
    """

    def __init__(self, component: str = "") -> None:
        self.component = component
        self.streams: dict[str, Fields] = {}
        self.direct_streams: set[str] = set()

    def declare(self, *args: Any, direct: bool = False) -> None:
        """Declare the fields of the default stream: ``declare(fields)`` or Storm's ``declare(direct, fields)``."""
        self.declare_stream(DEFAULT_STREAM, *args, direct=direct)

    def declare_stream(self, stream_id: str, *args: Any, direct: bool = False) -> None:
        """Declare stream ``stream_id``: ``declare_stream(id, fields)`` or ``declare_stream(id, direct, fields)``."""
        if not isinstance(stream_id, str) or not stream_id:
            msg = f"declare_stream: `stream_id` must be a non-empty str; got {stream_id!r} instead"
            raise TypeError(msg)
        if len(args) == 2 and isinstance(args[0], bool):
            direct, fields = args
        elif len(args) == 1:
            (fields,) = args
        else:
            msg = f"declare_stream: give the fields, or `direct` then the fields; got {args!r}"
            raise TypeError(msg)
        if not isinstance(direct, bool):
            msg = f"declare_stream: `direct` must be a bool; got {direct!r} instead"
            raise TypeError(msg)
        if isinstance(fields, str) or not isinstance(fields, Fields | Sequence):
            msg = f"declare_stream: `fields` must be Fields(...) or a list of names; got {fields!r} instead"
            raise TypeError(msg)
        fields = fields if isinstance(fields, Fields) else Fields(list(fields))
        if stream_id in self.streams and (
            self.streams[stream_id] != fields or (stream_id in self.direct_streams) != direct
        ):
            who = f"{self.component!r} " if self.component else ""
            msg = (
                f"declare_stream: {who}declares stream {stream_id!r} twice, "
                f"as {self.streams[stream_id]!r} and as {fields!r}{' (direct)' if direct else ''}"
            )
            raise ValueError(msg)
        self.streams[stream_id] = fields
        if direct:
            self.direct_streams.add(stream_id)


EmitSink = Callable[..., None]
"""Takes ``(stream, values)``, or ``(stream, values, task_id)`` for a direct emission."""


class EmitRoutes(Protocol):
    """Where a task's emissions go, as the topology routes them (given to the collector by the placement)."""

    def targets(self, stream: str, values: Sequence[Any]) -> list[int]:
        """The task ids a tuple emitted now on ``stream`` goes to, moving shuffle turns as routing will."""
        ...

    def check_direct(self, stream: str, task_id: int) -> None:
        """``ValueError`` unless ``task_id`` is a task of a bolt subscribed to ``stream`` with a direct grouping."""
        ...

    def note_table(self, stream: str, table: Any) -> None:
        """A table of tuples emitted now on ``stream``: its rows take their turns as routing will move them."""
        ...


class TupleFailedError(RuntimeError):
    """A bolt failed a tuple (``collector.fail``, or ``FailedException`` in a basic bolt): its batch fails.

    Spark then runs the batch again when the query restarts from its
    checkpoint, which is what a failed tuple means in Storm: its spout tuple is
    replayed.
    """


class OutputCollector:
    """Emits tuples on the bolt's declared streams; Storm's ``OutputCollector`` in Python spelling.

    ``emit`` takes Storm's argument orders: ``emit(values)``, ``emit(anchor,
    values)``, ``emit(anchors, values)``, ``emit(stream, values)``,
    ``emit(stream, anchor(s), values)``, and also ``emit(values, stream="s")``.
    It returns the ids of the tasks the tuple went to (empty when nobody
    subscribes: the tuple is one of the topology's outputs). The stream must be
    declared, and not direct; the number of values must match its fields.

    Anchors are checked to be tuples and otherwise only accepted: a micro-batch
    is the unit of replay, so every tuple of a batch is, in effect, anchored to
    the batch. ``ack`` is accepted (the batch commits as a whole), ``fail``
    fails the batch after the current ``execute`` (:class:`TupleFailedError`,
    so Spark replays it), ``reset_timeout`` does nothing (no tuple times out),
    and ``report_error`` emits on the bolt's error stream when it has one,
    else logs at ERROR naming the bolt.
    """

    def __init__(
        self, streams: dict[str, Fields], sink: EmitSink, component: str = "", *,
        direct_streams: frozenset[str] | set[str] = frozenset(), routes: EmitRoutes | None = None,
        error_stream: str | None = None, task_index: int = 0,
    ) -> None:
        self.streams = streams
        self.sink = sink
        self.component = component
        self.direct_streams = frozenset(direct_streams)
        self.routes = routes
        self.error_stream = error_stream
        self.task_index = task_index
        self.failed: list[Any] = []
        self.debug = False

    def emit(self, *args: Any, stream: str | None = None) -> list[int]:
        """Emit one tuple; the ids of the tasks it went to (see the class docstring for the argument orders)."""
        if len(args) == 1 and stream is None and not self.debug:  # emit(values): the common case, kept short
            values = args[0]
            fields = self.streams.get(DEFAULT_STREAM)
            kind = type(values)
            if ((kind is list or kind is tuple) and fields is not None and len(values) == len(fields)
                    and not self.direct_streams):
                values = list(values)  # as emitted: the bolt may change its list afterwards
                self.sink(DEFAULT_STREAM, values)
                return [] if self.routes is None else self.routes.targets(DEFAULT_STREAM, values)
        stream, values = self._parse("emit", args, stream)
        if stream in self.direct_streams:
            msg = (
                f"emit: stream {stream!r} of {self._who()} is declared direct; send its tuples with "
                f"emit_direct(task_id, {stream!r}, values)"
            )
            raise ValueError(msg)
        values = self._checked("emit", stream, values)
        targets = [] if self.routes is None else self.routes.targets(stream, values)
        self._send(stream, values)
        return targets

    def emit_table(self, table: pa.Table, stream: str = DEFAULT_STREAM) -> None:
        """Emit every row of ``table`` (a ``pyarrow.Table``) on ``stream``, in order, as one tuple each.

        The table's column names must be the stream's declared fields, in
        order; the rows reach subscribers and outputs as ``emit`` of each row
        would (the same tasks, the same turns), without a Python object per
        row where the next bolt reads columns. An empty table emits nothing.
        Not for a direct stream (``emit_direct`` a row at a time). Returns
        nothing: read a row's task ids with ``emit``.
        """
        import pyarrow as pa  # imported here: only columnar bolts pay for it

        if not isinstance(table, pa.Table):
            msg = f"emit_table: `table` must be a pyarrow.Table; {self._who()} passed {_SHORT.repr(table)}"
            raise TypeError(msg)
        if not isinstance(stream, str) or stream not in self.streams:
            msg = (f"emit_table: {self._who()} has no stream {stream!r}; it declares "
                   f"{sorted(self.streams) or 'none'}")
            raise ValueError(msg)
        if stream in self.direct_streams:
            msg = (f"emit_table: stream {stream!r} of {self._who()} is declared direct; send its tuples with "
                   f"emit_direct(task_id, {stream!r}, values)")
            raise ValueError(msg)
        fields = self.streams[stream]
        if table.column_names != list(fields):
            msg = (f"emit_table: stream {stream!r} of {self._who()} has the fields {fields.to_list()}; the table's "
                   f"columns are {table.column_names} (select or rename them to match, in order)")
            raise ValueError(msg)
        for column in table.schema:
            bad = untravelled_arrow_type(column.type)
            if bad is not None:
                msg = (f"emit_table: column {column.name!r} of stream {stream!r} of {self._who()} is of type "
                       f"{column.type}, whose {bad} values cannot travel between tasks or be stored (cast the "
                       "column, or register its Python class with Config.register_serialization)")
                raise TypeError(msg)
            unreadable = out_of_range(table.column(column.name))
            if unreadable is not None:
                msg = (f"emit_table: column {column.name!r} of stream {stream!r} of {self._who()} holds "
                       f"{unreadable}, outside the years 1-9999 a Python date or datetime holds")
                raise ValueError(msg)
        if not table.num_rows:
            return
        if self.debug:
            DEBUG_LOG.info("bolt %r task %d emitting %d rows on %r: %s", self.component, self.task_index,
                           table.num_rows, stream, _SHORT.repr(table.slice(0, 3).to_pylist()))
        if self.routes is not None:
            self.routes.note_table(stream, table)
        self.sink.table(stream, table)  # type: ignore[attr-defined]  # every task's sink keeps tables (EmitBuffer)

    def emit_direct(self, task_id: int, *args: Any, stream: str | None = None) -> None:
        """Emit one tuple to task ``task_id`` only, on a stream declared direct.

        Storm's orders after the task id: ``(values)``, ``(stream, values)``,
        ``(anchor(s), values)``, ``(stream, anchor(s), values)``. The task must
        belong to a bolt subscribed to the stream with ``direct_grouping``
        (``context.get_component_tasks(bolt)`` gives a bolt's task ids).
        """
        if isinstance(task_id, bool) or not isinstance(task_id, int):
            msg = f"emit_direct: `task_id` must be an int task id; got {task_id!r} from {self._who()}"
            raise TypeError(msg)
        stream, values = self._parse("emit_direct", args, stream)
        if stream not in self.direct_streams and stream in self.streams:
            msg = (
                f"emit_direct: stream {stream!r} of {self._who()} is not declared direct; declare it with "
                f"declarer.declare_stream({stream!r}, True, fields)"
            )
            raise ValueError(msg)
        values = self._checked("emit_direct", stream, values)
        if self.routes is not None:
            self.routes.check_direct(stream, task_id)
        self._send(stream, values, task_id)

    def ack(self, input: Tuple) -> None:
        """Storm's ``ack``: accepted; the tuple's batch commits as a whole once every task has run it."""
        self._check_tuple("ack", input)

    def fail(self, input: Tuple) -> None:
        """Storm's ``fail``: the batch fails when the current ``execute`` returns, so Spark replays it."""
        self._check_tuple("fail", input)
        self.failed.append(input)

    def reset_timeout(self, input: Tuple) -> None:
        """Storm's ``resetTimeout``: nothing to do, a tuple never times out within its batch."""
        self._check_tuple("reset_timeout", input)

    def report_error(self, error: BaseException | str) -> None:
        """Report an error without failing anything: onto the error stream if the bolt has one, else to the log.

        On the error stream it is a tuple ``[None, component, "<type>: <message>"]``
        (there is no input tuple); in the log, an ERROR record on ``squall.bolts``
        naming the bolt and the task.
        """
        if not isinstance(error, BaseException | str):
            msg = f"report_error: `error` must be an exception or a str; got {error!r} from {self._who()}"
            raise TypeError(msg)
        reason = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
        if self.error_stream is not None and self.streams.get(self.error_stream) == Fields(ERROR_FIELDS):
            values = [None, self.component, reason]
            if self.routes is not None:  # it takes a turn on the error stream as an emit does
                self.routes.targets(self.error_stream, values)
            self._send(self.error_stream, values)
            return
        LOG.error("bolt %r task %d reported an error: %s", self.component, self.task_index, reason)

    def raise_if_failed(self) -> None:
        """Raise :class:`TupleFailedError` naming the bolt and the first tuple failed since the last call."""
        if not self.failed:
            return
        failed, self.failed = self.failed, []
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        msg = (
            f"bolt {self.component!r} task {self.task_index} failed tuple {_SHORT.repr(failed[0])}{more}; "
            "the batch fails, and Spark runs it again when the query restarts from its checkpoint"
        )
        raise TupleFailedError(msg)

    # Internals ---------------------------------------------------------------------------------
    def _who(self) -> str:
        return f"bolt {self.component!r}" if self.component else "this bolt"

    def _send(self, stream: str, values: list[Any], task_id: int | None = None) -> None:
        if self.debug:
            DEBUG_LOG.info("bolt %r task %d emitting on %r: %s", self.component, self.task_index,
                                        stream, _SHORT.repr(values))
        if task_id is None:
            self.sink(stream, values)
        else:
            self.sink(stream, values, task_id)

    def _check_tuple(self, method: str, value: Any) -> None:
        if not isinstance(value, Tuple):
            msg = f"{method}: expects an input Tuple; {self._who()} passed {_SHORT.repr(value)}"
            raise TypeError(msg)

    def _parse(self, method: str, args: tuple[Any, ...], stream: str | None) -> tuple[str, Any]:
        """``(stream, values)`` from Storm's argument orders; anchors are checked and dropped."""
        named = stream
        if len(args) == 2 and isinstance(args[1], str) and not isinstance(args[0], str):
            args = (args[1], args[0])  # squall's older emit(values, "stream")
        if len(args) == 3:
            stream, anchors, values = args
            self._check_anchors(method, anchors)
        elif len(args) == 2:
            first, values = args
            if isinstance(first, str):
                stream = first
            else:
                self._check_anchors(method, first)
                stream = named
        elif len(args) == 1:
            (values,) = args
            stream = named
        else:
            msg = (f"{method}: {self._who()} gave {len(args)} arguments; expects (values), (stream, values), "
                   "(anchor(s), values) or (stream, anchor(s), values)")
            raise TypeError(msg)
        if named is not None and stream != named:
            msg = f"{method}: {self._who()} gave the stream twice, as {stream!r} and stream={named!r}"
            raise TypeError(msg)
        stream = DEFAULT_STREAM if stream is None else stream
        if not isinstance(stream, str):
            msg = f"{method}: `stream` must be a str; {self._who()} gave {stream!r}"
            raise TypeError(msg)
        return stream, values

    def _check_anchors(self, method: str, anchors: Any) -> None:
        if isinstance(anchors, Tuple):
            return
        if isinstance(anchors, str | bytes) or not isinstance(anchors, Sequence | set | frozenset) or not all(
            isinstance(a, Tuple) for a in anchors
        ):
            msg = (
                f"{method}: anchors must be an input Tuple or a list of them; {self._who()} passed "
                f"{_SHORT.repr(anchors)}"
            )
            raise TypeError(msg)

    def _checked(self, method: str, stream: str, values: Any) -> list[Any]:
        if isinstance(values, str | bytes) or not isinstance(values, Sequence):
            msg = (f"{method}: `values` must be a list or tuple of field values; {self._who()} gave "
                   f"{_SHORT.repr(values)}")
            raise TypeError(msg)
        fields = self.streams.get(stream)
        if fields is None:
            declared = ", ".join(sorted(self.streams)) or "(none)"
            msg = (
                f"{method}: stream {stream!r} is not declared by {self.component or 'this bolt'}; "
                f"declared streams are: {declared} (declare it in declare_output_fields)"
            )
            raise ValueError(msg)
        if len(values) != len(fields):
            msg = (
                f"{method}: stream {stream!r} has fields {fields.to_list()} but {self._who()} emitted "
                f"{len(values)} values: {_SHORT.repr(list(values))}"
            )
            raise ValueError(msg)
        return list(values)
