"""Tuples and emissions as bytes: how they travel to executors and into the store (see :mod:`bolts.value_codec`).

A task's input travels as its segments (:class:`bolts.task_input.TaskInput`):
an Arrow segment as an Arrow IPC stream, so a columnar task gets columns on the
executor too; a segment of rows as msgpack values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bolts import Fields
from bolts.task_input import TaskInput
from bolts.value_codec import pack_value, unpack_value

Emission = tuple[str, list[Any]]


def encode_values(values: Sequence[Any]) -> bytes:
    """The bytes of one emitted tuple's values."""
    return pack_value(list(values))


def decode_values(data: bytes) -> list[Any]:
    """The values :func:`encode_values` made ``data`` from."""
    return list(unpack_value(data))


def encode_emissions(emissions: Sequence[Emission]) -> bytes:
    """The bytes of a task's emissions in one batch: ``[(stream, values)]`` in emission order."""
    return pack_value([[stream, list(values)] for stream, values in emissions])


def decode_emissions(data: bytes) -> list[Emission]:
    """The emissions :func:`encode_emissions` made ``data`` from."""
    return [(stream, list(values)) for stream, values in unpack_value(data)]


def encode_input(batch: TaskInput) -> bytes:
    """The bytes of a task's input: ``[source, task, stream, fields, arrow IPC or None, rows or None]`` per segment."""
    import pyarrow as pa

    segments = []
    for seg in batch.segments:
        ipc = None
        if seg.table is not None:
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, seg.table.schema) as writer:
                writer.write_table(seg.table)
            ipc = sink.getvalue().to_pybytes()
        rows = None if seg.rows is None else [list(row) for row in seg.rows]
        segments.append([seg.source_component, seg.source_task, seg.stream, seg.fields.to_list(), ipc, rows])
    return pack_value(segments)


def decode_input(data: bytes) -> TaskInput:
    """The input :func:`encode_input` made ``data`` from."""
    import pyarrow as pa

    batch = TaskInput()
    for source, task, stream, fields, ipc, rows in unpack_value(data):
        if ipc is not None:
            batch.append_table(source, task, stream, Fields(fields), pa.ipc.open_stream(ipc).read_all())
        for values in rows or ():
            batch.append_row(source, task, stream, Fields(fields), values)
    return batch
