"""Storm's ``topology.fall.back.on.java.serialization`` on Python: objects of unregistered classes travel by pickle.

Without the key a value travels and is stored only as plain data, a dataclass or
a class registered with ``Config.register_serialization``
(:mod:`bolts.codecs.value_codec`), and nothing read back is ever unpickled. With
the key set to True, an object of any other class travels and is stored as its
pickle (an msgpack extension of code :data:`PICKLE_EXT`), as Storm falls back on
Java serialization for a class Kryo does not know.

The switch is per process: :func:`~bolts.codecs.value_codec.register_from_conf`
sets it from the topology's conf in every process that encodes or decodes
values (the driver, Spark Connect's ``foreachBatch`` process, Spark's Python
workers), so it holds wherever the conf goes, and a conf without the key turns
it off again. Reading a pickled value while it is off is refused
(:func:`unpickled` raises ``TypeError`` naming the key): a store that someone
else can write to must not make this process run code unless the topology
asked for it.
"""

from __future__ import annotations

import pickle
from typing import Any

import msgpack

#: Storm's key (``Config.TOPOLOGY_FALL_BACK_ON_JAVA_SERIALIZATION``).
FALL_BACK_KEY = "topology.fall.back.on.java.serialization"
#: The msgpack extension code of a pickled object.
PICKLE_EXT = 6
PROTOCOL = 5  # fixed, so one object pickles to the same bytes in every process

_enabled = False


def fall_back_enabled() -> bool:
    """Whether objects of unregistered classes travel by pickle in this process."""
    return _enabled


def set_fall_back(on: bool) -> None:
    """Turn the pickle fall-back on or off in this process (``register_from_conf`` does it from a conf)."""
    global _enabled
    _enabled = bool(on)


def wants_fall_back(conf: Any) -> bool:
    """Whether ``conf`` (a mapping or None) sets :data:`FALL_BACK_KEY` to True."""
    return bool(conf) and conf.get(FALL_BACK_KEY) is True


def pickled_extension(value: Any) -> msgpack.ExtType:
    """``value`` as its pickle in a :data:`PICKLE_EXT` extension.

    Pickled with PySpark's cloudpickle when PySpark is installed (as Spark
    pickles the topology's functions), so a class defined in ``__main__`` or
    shipped to the executors by value pickles too; else with ``pickle``.
    ``TypeError`` naming the value when the fall-back is off (so nothing is
    pickled unless the topology set the key) or when it cannot be pickled (a
    lock, an open file, a client...).
    """
    if not _enabled:
        msg = f"cannot pickle {value!r:.120} ({type(value).__name__}): {FALL_BACK_KEY} is not set"
        raise TypeError(msg)
    try:
        return msgpack.ExtType(PICKLE_EXT, _dumps(value))
    except Exception as exc:  # PicklingError, TypeError, AttributeError: whatever the object's __reduce__ raises
        msg = f"cannot pickle {value!r:.120} ({type(value).__name__}) either: {type(exc).__name__}: {exc}"
        raise TypeError(msg) from None


def _dumps(value: Any) -> bytes:
    try:
        from pyspark import cloudpickle
    except ImportError:  # no Spark here (a BoltHarness): classes by reference, as pickle does
        return pickle.dumps(value, protocol=PROTOCOL)
    return bytes(cloudpickle.dumps(value, protocol=PROTOCOL))


def unpickled(data: bytes) -> Any:
    """The object a :data:`PICKLE_EXT` extension holds; ``TypeError`` naming the key when the fall-back is off."""
    if not _enabled:
        msg = (
            f"refusing to unpickle a value ({len(data)} bytes): it was written by pickle under {FALL_BACK_KEY}, "
            "which this topology does not set. Set the key (Config.set_fall_back_on_java_serialization(True)) "
            "only if you trust every writer of the store and of the topology's data"
        )
        raise TypeError(msg)
    return pickle.loads(data)  # the topology asked for it: see the module docstring


__all__ = [
    "FALL_BACK_KEY",
    "PICKLE_EXT",
    "fall_back_enabled",
    "pickled_extension",
    "set_fall_back",
    "unpickled",
    "wants_fall_back",
]
