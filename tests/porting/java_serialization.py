"""What the fall-back key's tests share: the ports' two ways to let their plain classes travel, and how to compare.

A port runs either ``registered`` (its classes registered with ``Config.register_serialization``, as the ports do by
default) or ``pickled`` (``topology.fall.back.on.java.serialization`` set instead: RollingTopWords and
SkewedRollingTopWords read it from a ``-conf`` YAML file, as Storm's ConfigurableTopology does;
PersistentWindowingTopology sets it in main). A ``pickled`` run in this process first takes the classes out of the
registry (:func:`unregistered`), since an earlier test may have registered them: otherwise they would travel by
their registration and the run would prove nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgpack

from bolts.codecs import value_codec

VARIANTS = ("registered", "pickled")
KEY = "topology.fall.back.on.java.serialization"


def java_serialization_args(work_dir: Path, variant: str) -> list[str]:
    """The ``-conf <file>`` arguments of a ConfigurableTopology port for ``variant`` (none for ``registered``)."""
    if variant == "registered":
        return []
    work_dir.mkdir(parents=True, exist_ok=True)
    path = work_dir / "java-serialization.yaml"
    path.write_text(f"{KEY}: true\n", encoding="utf-8")
    return ["-conf", str(path)]


@contextmanager
def unregistered(*classes: type) -> Iterator[None]:
    """``classes`` unknown to this process's value codec inside the block (registered again after it, if they were)."""
    kept = {cls: value_codec._BY_TYPE.pop(cls) for cls in classes if cls in value_codec._BY_TYPE}
    for registration in kept.values():
        value_codec._BY_NAME.pop(registration.name, None)
    try:
        yield
    finally:
        for cls, registration in kept.items():
            value_codec._BY_TYPE[cls] = value_codec._BY_NAME[registration.name] = registration


def ext_codes(data: bytes) -> list[int]:
    """The msgpack extension codes in ``data``, outermost first (their bodies not opened)."""
    found: list[int] = []

    def hook(code: int, body: bytes) -> None:
        found.append(code)

    msgpack.unpackb(data, ext_hook=hook, raw=False, strict_map_key=False)
    return found


def ranked(rankings: Any) -> list[list[Any]]:
    """A ``Rankings`` as ``[[word, count], ...]`` in its order (a rankable's other fields hold wall-clock seconds)."""
    return [[r.get_object(), r.get_count()] for r in rankings.get_rankings()]
