"""Storm 2's lambda spouts: ``set_spout(id, supplier)``, each call of a no-argument function one tuple.

``builder.set_spout("spout1", lambda: str(uuid.uuid4()))`` is Storm's
``builder.setSpout("spout1", () -> UUID.randomUUID().toString())``: the spout
calls the supplier again and again, and emits what each call returns as one
tuple on its stream, in the field ``lambda`` (a call returning None emits
nothing). :class:`LambdaSpout` takes the controls a Spark source needs: a rate,
a count, the values' Spark type. Where the supplier runs and why a replayed
batch gives the same tuples: :mod:`topologies.spouts.lambda_source`.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bolts.tuples import DEFAULT_STREAM
from topologies.config import checked_count, checked_number
from topologies.spouts.base import Spout

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: Calls a second when no rate is given (Storm's spouts in storm-starter emit every 100 ms).
DEFAULT_ROWS_PER_SECOND = 10


class LambdaSpout(Spout):
    """Emits one tuple ``(lambda,)`` per call of ``supplier``, a function taking no arguments.

    Args:
        supplier: called with no arguments for each tuple; its value is the
            tuple's one field, ``lambda``; None emits no tuple (as in Storm).
            It must pickle (cloudpickle, as Spark pickles functions), and it
            runs in the Python process Spark starts beside the driver to plan
            the batches (a Spark Connect server's, under Connect), so its
            module must be importable there (a function of ``__main__`` travels
            by value).
        rows_per_second: how many calls a second, a positive number: a batch
            holds the calls due since the last one. Under ``available_now``, the
            size of each batch instead (rounded up).
        count: the calls over the spout's life, a positive int (None: no end). With a count the
            spout is bounded: ``submit(..., available_now=True)`` reads every
            call still due, then stops (PySpark 4.2 and later).
        value_type: the Spark type of the values, a DDL type such as
            ``"STRING"`` (the default), ``"BIGINT"``, ``"DOUBLE"`` or
            ``"ARRAY<STRING>"``; a value that does not fit fails its batch with
            a ``TypeError`` naming the spout.
        stream: the stream the tuples go to.
        method: the name error messages start with (``set_spout`` gives its own).

    Raises:
        TypeError: ``supplier`` is not a function taking no arguments, or
            cannot be pickled; a setting of the wrong type.
        ValueError: a rate or count that is not positive.
    """

    def __init__(
        self, supplier: Callable[[], Any], *, rows_per_second: float = DEFAULT_ROWS_PER_SECOND,
        count: int | None = None, value_type: str = "STRING", stream: str = DEFAULT_STREAM,
        method: str = "LambdaSpout",
    ) -> None:
        super().__init__(("lambda",), stream)
        self.supplier = check_supplier(method, supplier)
        self.rows_per_second = checked_number(method, "rows_per_second", rows_per_second)
        self.count = None if count is None else checked_count(method, "count", count, least=1)
        if not isinstance(value_type, str) or not value_type.strip():
            msg = f"{method}: `value_type` must be a Spark DDL type such as 'STRING'; got {value_type!r} instead"
            raise TypeError(msg)
        self.value_type = value_type
        self.source_name = f"squall_lambda_{uuid.uuid4().hex}"
        from topologies.spouts.lambda_source import AVAILABLE_NOW

        self.supports_available_now = count is not None and AVAILABLE_NOW

    def dataframe(self, spark: SparkSession) -> DataFrame:
        """The streaming DataFrame of the supplier's values: its source registered on ``spark`` under a name of its own.

        ``ValueError`` when ``value_type`` is not a Spark type.
        """
        from pyspark import cloudpickle
        from pyspark.sql.types import StructType

        from topologies.spouts.lambda_source import FIELD, source_class

        try:
            StructType.fromDDL(f"`{FIELD}` {self.value_type}")
        except Exception as err:  # ParseException and the like: not a DDL type
            msg = f"LambdaSpout: `value_type` must be a Spark DDL type such as 'BIGINT'; got {self.value_type!r}"
            raise ValueError(msg) from err
        settings = {"supplier": cloudpickle.dumps(self.supplier), "rows_per_second": self.rows_per_second,
                    "count": self.count, "value_type": self.value_type,
                    "supplier_name": getattr(self.supplier, "__qualname__", repr(self.supplier))}
        spark.dataSource.register(source_class(self.source_name, settings))
        return spark.readStream.format(self.source_name).load().select(FIELD)


def check_supplier(method: str, supplier: Any) -> Callable[[], Any]:
    """``supplier`` when it is a function Spark can call with no arguments; ``TypeError`` naming ``method`` otherwise.

    A builtin whose signature Python cannot read is taken as it is. A spout
    class given instead of an instance is refused with that hint.
    """
    if isinstance(supplier, type) and issubclass(supplier, Spout):
        msg = f"{method}: got the class {supplier.__name__}, not a spout; pass an instance, {supplier.__name__}(...)"
        raise TypeError(msg)
    if not callable(supplier):
        msg = (f"{method}: `supplier` must be a function taking no arguments; got {supplier!r:.120} "
               f"({type(supplier).__name__}) instead")
        raise TypeError(msg)
    try:
        parameters = inspect.signature(supplier).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature
        parameters = []  # type: ignore[assignment]
    required = [p for p in parameters if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if required:
        msg = f"{method}: `supplier` must take no arguments; got {supplier!r:.120} taking {len(required)}"
        raise TypeError(msg)
    from pyspark import cloudpickle

    try:
        cloudpickle.dumps(supplier)
    except Exception as err:  # PicklingError, TypeError: a lock, a client, an open file in its closure
        msg = (f"{method}: `supplier` must pickle, as Spark sends it to the process that calls it; "
               f"{supplier!r:.120} does not: {type(err).__name__}: {err}")
        raise TypeError(msg) from None
    return supplier
