"""The Spark source behind a lambda spout: a Python streaming data source that calls the supplier and records it.

Where the supplier runs: in the Python process Spark starts beside the driver to
plan the query's batches (the data source's ``latestOffset``), once per call, in
order, one process for the whole query. Each batch's end offset records what the
supplier gave for it (``calls``: how many calls so far; ``rows``: the values of
this batch's calls, as JSON text), and Spark writes that offset to its offset
log before the batch runs. Reading a batch (``partitions`` then ``read`` on an
executor) only decodes the record, so a Spark task retried, or a batch Spark
runs again after a restart, gives the very tuples of the first attempt: the
supplier is never called again for them.

How many calls a batch gets: with a processing-time trigger, as many as
``rows_per_second`` allows since the query started, up to ``count`` calls over
the spout's life (counted in the offsets, so a restarted query goes on from
where it stopped); with ``availableNow`` (PySpark 4.2 and later), every call up
to ``count``, at most one second's worth (``rows_per_second``) per batch. A
call returning None gives no tuple, as in Storm.

This module imports only the standard library and pyspark: it is pickled by
value (:func:`source_class`), so neither the planning process nor the
executors need squall. The supplier travels as cloudpickle bytes that only the
planning process loads, so the executors need not import its module either.
"""

from __future__ import annotations

import base64
import json
import math
import time
from collections.abc import Callable, Iterator
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition

try:  # PySpark 4.2: read limits and availableNow for Python streaming sources
    from pyspark.sql.streaming.datasource import ReadMaxRows, SupportsTriggerAvailableNow
except ImportError:  # older PySpark calls latestOffset() without a start offset, and has no availableNow here
    ReadMaxRows = None  # type: ignore[assignment, misc]
    SupportsTriggerAvailableNow = object  # type: ignore[assignment, misc]

#: Whether this PySpark lets a Python streaming source run with the ``availableNow`` trigger.
AVAILABLE_NOW = ReadMaxRows is not None
FIELD = "lambda"  # the field Storm's LambdaSpout declares


def encode_values(values: list[Any]) -> str:
    """``values`` as JSON text, each value tagged so that it comes back as its own type.

    Supported: None, bool, int, float (NaN and infinities too), str, bytes,
    datetime, date, Decimal, and lists, tuples (as lists) and dicts of these.
    ``TypeError`` naming any other value.
    """
    return json.dumps([_tagged(v) for v in values], separators=(",", ":"), allow_nan=False)


def decode_values(text: str) -> list[Any]:
    """The values :func:`encode_values` made ``text`` from."""
    return [_untagged(v) for v in json.loads(text)]


def _tagged(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$f": repr(value)}
    if isinstance(value, bytes | bytearray):
        return {"$b": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, datetime):
        return {"$t": value.isoformat()}
    if isinstance(value, date):
        return {"$d": value.isoformat()}
    if isinstance(value, Decimal):
        return {"$x": str(value)}
    if isinstance(value, list | tuple):
        return [_tagged(v) for v in value]
    if isinstance(value, dict):
        return {"$m": [[_tagged(k), _tagged(v)] for k, v in value.items()]}
    msg = (f"a lambda spout's values must be None, bool, int, float, str, bytes, datetime, date, Decimal, or lists "
           f"and dicts of these (what a Spark column holds); got {value!r:.120} ({type(value).__name__})")
    raise TypeError(msg)


_UNTAG: dict[str, Callable[[Any], Any]] = {
    "$f": float,
    "$b": lambda text: base64.b64decode(text),
    "$t": datetime.fromisoformat,
    "$d": date.fromisoformat,
    "$x": Decimal,
    "$m": lambda pairs: {_untagged(k): _untagged(v) for k, v in pairs},
}


def _untagged(value: Any) -> Any:
    if isinstance(value, list):
        return [_untagged(v) for v in value]
    if isinstance(value, dict):
        ((tag, body),) = value.items()
        return _UNTAG[tag](body)
    return value


class Rows(InputPartition):
    """One batch's recorded values: the only partition of a lambda spout's batch."""

    def __init__(self, rows: list[Any]) -> None:
        super().__init__(None)
        self.rows = rows


class LambdaReader(DataSourceStreamReader, SupportsTriggerAvailableNow):  # type: ignore[misc, valid-type]
    """Calls the supplier in ``latestOffset`` and records its values in the offset (see the module docstring).

    ``settings``: ``supplier`` (cloudpickle bytes), ``rows_per_second``,
    ``count`` (None: no end), ``supplier_name`` (for messages) and
    ``value_type`` (the Spark type the values must fit).
    """

    def __init__(self, settings: dict[str, Any], schema: Any) -> None:
        self.settings = settings
        self.schema = schema
        self._supplier: Callable[[], Any] | None = None
        self._available_now = False
        self._pace: tuple[float, int] | None = None  # (monotonic time, calls) when pacing began in this process
        self._last: dict[str, Any] | None = None  # the last offset given (PySpark before 4.2 gives no start)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_supplier": None}  # an executor reading a batch never calls the supplier

    def initialOffset(self) -> dict[str, Any]:
        """No call yet."""
        return {"calls": 0, "rows": "[]"}

    def prepareForTriggerAvailableNow(self) -> None:
        """``availableNow``: every call up to ``count`` is due at once (in batches of one second's worth)."""
        self._available_now = True

    def latestOffset(self, start: dict[str, Any] | None = None, limit: Any = None) -> dict[str, Any]:
        """The offset after this batch's calls, recording their values; ``start`` itself when none is due."""
        start = start if start is not None else (self._last or self.initialOffset())
        calls = int(start["calls"])
        todo = self._due(calls)
        if ReadMaxRows is not None and isinstance(limit, ReadMaxRows):
            todo = min(todo, limit.max_rows)
        if todo <= 0:
            self._last = start
            return start
        rows = [v for v in (self._call() for _ in range(todo)) if v is not None]
        self._last = {"calls": calls + todo, "rows": encode_values(rows)}
        return self._last

    def _due(self, calls: int) -> int:
        rate, count = self.settings["rows_per_second"], self.settings["count"]
        remaining = math.inf if count is None else count - calls
        if self._available_now:
            return int(min(max(1, math.ceil(rate)), remaining))
        now = time.monotonic()
        if self._pace is None:
            self._pace = (now, calls)
        began, first = self._pace
        return int(max(0, min(first + math.floor(rate * (now - began)) - calls, remaining)))

    def _call(self) -> Any:
        if self._supplier is None:
            from pyspark import cloudpickle

            self._supplier = cloudpickle.loads(self.settings["supplier"])  # the topology's own code, as it gave it
        value = self._supplier()
        if value is not None:
            self._check(value)
        return value

    def _check(self, value: Any) -> None:
        try:
            from pyspark.sql.types import _make_type_verifier
        except ImportError:  # a PySpark without it: Spark checks the value when it reads the batch
            return
        data_type = self.schema.fields[0].dataType
        try:
            if data_type.typeName() == "string" and not isinstance(value, str):  # Spark would store its str()
                msg = "a STRING column takes str values"
                raise TypeError(msg)
            _make_type_verifier(data_type, nullable=False, name=FIELD)(value)
        except (TypeError, ValueError) as err:
            msg = (f"lambda spout: the supplier {self.settings['supplier_name']} returned {value!r:.120} "
                   f"({type(value).__name__}), which is not a {self.settings['value_type']}: {err}; give the "
                   f"values' Spark type with LambdaSpout(supplier, value_type=...)")
            raise TypeError(msg) from None

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[InputPartition]:
        """The batch's recorded values, from its end offset (none for an empty range)."""
        if int(end["calls"]) == int(start["calls"]):
            return []
        return [Rows(decode_values(end["rows"]))]

    def read(self, partition: InputPartition) -> Iterator[tuple[Any]]:
        """One row per recorded value."""
        for value in partition.rows:  # type: ignore[attr-defined]
            yield (value,)


class LambdaSource(DataSource):
    """The data source of one lambda spout; :func:`source_class` gives each spout a subclass with its settings."""

    source_name = "squall_lambda"
    settings: dict[str, Any] = {}  # each subclass replaces it

    @classmethod
    def name(cls) -> str:
        """The name the spout registers the source under."""
        return cls.source_name

    def schema(self) -> str:
        """One column, ``lambda``, of the spout's value type."""
        return f"`{FIELD}` {self.settings['value_type']}"

    def streamReader(self, schema: Any) -> LambdaReader:
        """A reader calling this spout's supplier."""
        return LambdaReader(self.settings, schema)


def source_class(name: str, settings: dict[str, Any]) -> type[LambdaSource]:
    """A :class:`LambdaSource` subclass registered as ``name`` with ``settings`` (see :class:`LambdaReader`).

    This module is pickled by value with it (PySpark's cloudpickle), so the
    processes that plan and read the batches need nothing of squall.
    """
    import sys

    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    return type("LambdaSource", (LambdaSource,), {"source_name": name, "settings": dict(settings)})
