"""A topology's results as records: :class:`Output`, its JSON form, and the batch key outputs are filed under.

Every sink and every output file speaks this: an :class:`Output` is one tuple
a bolt (or a spout) emitted on a stream nobody subscribes to; its *record* is
the JSON object ``{"component", "task", "stream", "values", "fields"}``, where
``values`` is the list as emitted and ``fields`` the same values keyed by the
stream's declared field names, so a reader that infers types (``spark.read.json``)
sees each field as a column of its own type rather than one array of strings.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

OutputKey = int | str  # a batch id, or "final" for the shutdown flush
FINAL = "final"

__all__ = ["FINAL", "Output", "OutputKey", "record", "record_line", "to_json"]


@dataclass(frozen=True)
class Output:
    """A tuple a bolt emitted on a stream no bolt subscribes to: one of the topology's results."""

    component: str
    task: int
    stream: str
    values: list[Any]


def to_json(value: Any) -> Any:
    """A JSON-ready form of an emitted value.

    Tuples (a late-tuple stream's) become ``{"stream", "source_component",
    "values"}``; datetimes and dates ISO text; decimals their exact text;
    anything else without a JSON form its ``repr``.
    """
    from bolts import Tuple

    if isinstance(value, Tuple):
        return {"stream": value.stream, "source_component": value.source_component,
                "values": {k: to_json(v) for k, v in value.as_dict().items()}}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def record(output: Output, fields: Sequence[str] | None = None) -> dict[str, Any]:
    """``output`` as a JSON-ready record; ``fields`` (the stream's declared names) adds the ``fields`` object."""
    values = to_json(output.values)
    line: dict[str, Any] = {"component": output.component, "task": output.task, "stream": output.stream,
                            "values": values}
    if fields is not None and len(fields) == len(values):
        line["fields"] = dict(zip(fields, values, strict=True))
    return line


def record_line(output: Output, fields: Sequence[str] | None = None) -> str:
    """:func:`record` as one line of JSON."""
    return json.dumps(record(output, fields))
