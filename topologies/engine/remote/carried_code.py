"""A ``foreachBatch`` function that carries squall's code to a Spark Connect server that lacks it.

Under Spark Connect the ``foreachBatch`` function is unpickled in a Python
process the server starts beside itself. Unlike the workers that run UDFs and
``mapInArrow``, that process does not put the session's
``addArtifacts(..., pyfile=True)`` files on its path (PySpark 4.0-4.2), so a
:class:`~topologies.engine.remote.batch_function.BatchFunction`, whose class
lives in squall, could not be unpickled on a server that never installed squall.

:func:`carrying` wraps it: this module is pickled by value (it imports nothing
of squall), holding the code zip :func:`~topologies.engine.ship.ship_code`
built and the batch function pickled apart. On the first batch the zip is
written once per content under the temporary directory and put first on
``sys.path``; then the batch function is unpickled and runs every batch.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable
from typing import Any


def carrying(code_zip: bytes, function: bytes) -> Callable[[Any, int], None]:
    """A ``foreachBatch`` function: puts ``code_zip`` on ``sys.path``, then runs the pickled ``function``."""
    loaded: list[Callable[[Any, int], None]] = []

    def foreach_batch(df: Any, batch_id: int) -> None:
        if not loaded:
            put_on_path(code_zip)
            loaded.append(pickle.loads(function))  # the client's own function, pickled by the client
        loaded[0](df, batch_id)

    return foreach_batch


def put_on_path(code_zip: bytes) -> str:
    """Write ``code_zip`` to a file named by its content (once) and put it first on ``sys.path``; its path."""
    directory = os.path.join(tempfile.gettempdir(), "squall-carried")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"code-{hashlib.sha256(code_zip).hexdigest()[:20]}.zip")
    if not os.path.exists(path):
        partial = f"{path}.{os.getpid()}.tmp"
        with open(partial, "wb") as out:
            out.write(code_zip)
        os.replace(partial, path)
    if path not in sys.path:
        sys.path.insert(0, path)
    return path


def carried(function: Any, code_zip_path: str | os.PathLike[str]) -> Callable[[Any, int], None]:
    """``function`` wrapped by :func:`carrying` with the zip at ``code_zip_path``, this module pickled by value."""
    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with open(code_zip_path, "rb") as source:
        code_zip = source.read()
    return carrying(code_zip, cloudpickle.dumps(function))
