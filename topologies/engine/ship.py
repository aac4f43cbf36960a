"""Shipping squall and the topology's own modules to Spark's Python processes (``addPyFile``, ``addArtifacts``).

In distributed mode the bolts run in Spark's Python workers, which unpickle
them and so must import squall's packages and the modules that define the
bolt classes. :func:`ship_code` builds one zip holding squall's packages
(``squall``, ``bolts``, ``windowing``, ``state_backends``, ``topologies``,
taken from where they are imported, pure Python, without ``__pycache__``) and
the user's modules the bolts come from, and adds it to the SparkContext with
``addPyFile``: Spark copies it to every executor and puts it on its Python
workers' ``sys.path``. Then ``spark-submit --master spark://... my_topology.py``
needs no ``--py-files``.

Which user modules: the module of every bolt's class (and its base classes),
and of the classes and functions its attributes hold (aggregators, extractors),
a few levels deep; of each, the whole top-level package, or for a top-level
module its file, under the name it is imported by. The other modules loaded
from the same directory go too (helpers the bolts' module imports). Skipped:
squall's own modules (already in), the standard library and installed
third-party packages (site-packages: redis, msgpack, pyarrow must be installed
on the executors, or shipped as a venv with ``--archives``), ``__main__`` and
modules not registered in ``sys.modules`` (cloudpickle pickles their classes by
value).

The zip is cached per content hash in the temporary directory and added once
per SparkContext. Nothing is shipped for a ``local[...]`` master.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import os
import site
import sys
import sysconfig
import tempfile
import threading
import types
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from topologies.topology import Topology

SQUALL_PACKAGES = ("squall", "bolts", "windowing", "state_backends", "topologies")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # a fixed timestamp: the same sources give the same zip and hash
_SEARCH_DEPTH = 3
_MAX_CHILDREN = 200  # of one container: a bolt holding a large list is not walked item by item
_shipped: dict[str, set[str]] = {}  # application or Connect session id -> names of the zips added to it
_lock = threading.Lock()


def needs_shipping(master: str) -> bool:
    """Whether executors of ``master`` need the code shipped: not for ``local``/``local[...]`` (one machine, one env).

    ``local-cluster[...]``, ``spark://``, ``yarn``, ``k8s://`` and the rest do.
    """
    return not (master == "local" or master.startswith("local["))


def _skipped_roots() -> list[str]:
    roots = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots.update(site.getsitepackages() if hasattr(site, "getsitepackages") else [])
    roots.add(site.getusersitepackages())
    return [os.path.realpath(r) + os.sep for r in roots if r]


def _module_file(module: types.ModuleType) -> str | None:
    file = getattr(module, "__file__", None)
    return os.path.realpath(file) if isinstance(file, str) else None


def _is_installed(module: types.ModuleType, roots: list[str]) -> bool:
    file = _module_file(module)
    return file is None or any(file.startswith(root) for root in roots)


def _objects(value: Any, depth: int, seen: set[int]) -> Iterator[Any]:
    """``value`` and what it holds (attributes, items), ``depth`` levels down."""
    if id(value) in seen:
        return
    seen.add(id(value))
    yield value
    if depth == 0 or isinstance(value, str | bytes | int | float | bool | type(None) | type | types.ModuleType):
        return
    if isinstance(value, dict):
        children: Iterable[Any] = [*value.keys(), *value.values()]
    elif isinstance(value, list | tuple | set | frozenset):
        children = value
    elif isinstance(value, types.FunctionType | types.MethodType | types.BuiltinFunctionType):
        children = [getattr(value, "__self__", None)]
    else:
        children = list(getattr(value, "__dict__", {}).values())
    for child in itertools.islice(children, _MAX_CHILDREN):
        yield from _objects(child, depth - 1, seen)


def _module_names_of(value: Any) -> set[str]:
    names: set[str] = set()
    if isinstance(value, type):
        names.update(getattr(c, "__module__", "") for c in value.__mro__)
    elif isinstance(value, types.FunctionType):
        names.add(value.__module__ or "")
    else:
        names.update(getattr(c, "__module__", "") for c in type(value).__mro__)
    return names - {""}


def user_modules(topology: Topology) -> list[str]:
    """The top-level names of the user's modules and packages the topology's bolts need on the executors."""
    roots = _skipped_roots()
    seen: set[int] = set()
    names: set[str] = set()
    for spec in topology.bolts.values():
        for value in _objects(spec.bolt, _SEARCH_DEPTH, seen):
            names |= _module_names_of(value)
    tops: set[str] = set()
    for name in names:
        top = name.partition(".")[0]
        module = sys.modules.get(name)
        if name == "__main__" or module is None or top in SQUALL_PACKAGES or top in sys.stdlib_module_names:
            continue  # __main__ and unregistered modules travel by value (cloudpickle)
        top_module = sys.modules.get(top)
        if top_module is None or _is_installed(top_module, roots) or _is_installed(module, roots):
            continue
        tops.add(top)
    return sorted(tops | _neighbours(tops, roots))


def _home(top: str) -> str | None:
    """The directory a top-level module or package was loaded from."""
    module = sys.modules[top]
    file = _module_file(module)
    if file is None:
        return None
    return os.path.dirname(os.path.dirname(file)) if hasattr(module, "__path__") else os.path.dirname(file)


def _neighbours(tops: set[str], roots: list[str]) -> set[str]:
    homes = {h for h in (_home(t) for t in tops) if h is not None}
    found = set()
    for name, module in list(sys.modules.items()):
        if "." in name or name in tops or name == "__main__" or name in SQUALL_PACKAGES or module is None:
            continue
        if not _is_installed(module, roots) and _home(name) in homes:
            found.add(name)
    return found


def _files_of(top: str) -> Iterator[tuple[str, Path]]:
    """(name in the zip, file) of module or package ``top``: a package's tree without caches, a module's file."""
    module = sys.modules.get(top) or importlib.import_module(top)
    paths = list(getattr(module, "__path__", []))
    if not paths:
        file = _module_file(module)
        if file is not None and file.endswith(".py"):
            yield f"{top}.py", Path(file)
        return
    for base in paths[:1]:
        root = Path(base)
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root)
            if path.is_dir() or "__pycache__" in rel.parts or path.suffix in (".pyc", ".pyo"):
                continue
            if any(part.startswith(".") for part in rel.parts):
                continue
            yield f"{top}/{rel.as_posix()}", path


def build_zip(modules: Iterable[str], directory: str | Path | None = None) -> Path:
    """A zip of ``modules`` (top-level names) in ``directory`` (default: a temp dir), named by its content hash.

    The same sources give the same zip, built once.
    """
    entries = sorted({arc: path for top in modules for arc, path in _files_of(top)}.items())
    digest = hashlib.sha256()
    contents = []
    for arc, path in entries:
        data = path.read_bytes()
        digest.update(arc.encode() + b"\0" + hashlib.sha256(data).digest())
        contents.append((arc, data))
    target_dir = Path(directory) if directory is not None else Path(tempfile.gettempdir()) / "squall-ship"
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / f"squall-code-{digest.hexdigest()[:20]}.zip"
    if not target.exists():
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            for arc, data in contents:
                archive.writestr(zipfile.ZipInfo(arc, _ZIP_TIME), data, zipfile.ZIP_DEFLATED)
        os.replace(tmp, target)
    return target


def ship_code(spark: SparkSession, topology: Topology) -> Path | None:
    """Add squall and ``topology``'s user modules to ``spark`` as one zip (once per session); the zip, or None.

    A classic session gets it with ``SparkContext.addPyFile``, and nothing when
    its master is ``local[...]`` (the Python workers share the driver's machine
    and environment). A Spark Connect session gets it with
    ``spark.addArtifacts(zip, pyfile=True)`` always: the client cannot see
    where the server runs, and the server puts it on the path of the session's
    Python processes (``foreachBatch`` and the stages' workers alike).
    """
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        zip_path = build_zip([*SQUALL_PACKAGES, *user_modules(topology)])
        _add_once(f"connect:{spark.session_id}", zip_path,  # type: ignore[attr-defined]
                  lambda: spark.addArtifacts(str(zip_path), pyfile=True))
        return zip_path
    sc = spark.sparkContext
    if not needs_shipping(sc.master):
        return None
    zip_path = build_zip([*SQUALL_PACKAGES, *user_modules(topology)])
    _add_once(str(sc.applicationId), zip_path, lambda: sc.addPyFile(str(zip_path)))
    return zip_path


def _add_once(session: str, zip_path: Path, add: Callable[[], None]) -> None:
    with _lock:
        added = _shipped.setdefault(session, set())
        if zip_path.name not in added:
            add()
            added.add(zip_path.name)


def check_spouts_travel(topology: Topology) -> None:
    """``TypeError`` naming the spout, and why, when a spout cannot be pickled to another process.

    Where the bolts run in other processes (distributed mode, Spark Connect),
    the spouts travel with the topology: each batch's rows are cut into the
    tasks' inputs where Spark read them. A spout keeps only what decodes its
    rows there (``DataFrameSpout`` leaves its DataFrame behind: the query was
    built from it at submit); one holding a lock, a client or an open file
    cannot travel.
    """
    from pyspark import cloudpickle

    for sid, spec in topology.spouts.items():
        try:
            cloudpickle.dumps(spec.spout)
        except Exception as exc:  # pickling fails in many ways: each is this spout's refusal
            msg = (
                f"submit: spout {sid!r} ({type(spec.spout).__name__}) cannot travel to the processes that run the "
                f"bolts (distributed mode, Spark Connect), so it cannot be pickled: {type(exc).__name__}: {exc}. "
                "Keep only plain settings on the spout; build clients and open files in dataframe(spark)"
            )
            raise TypeError(msg) from None
