"""Directories squall writes beside Spark's checkpoint: on the local disk, or on any filesystem of ``pyarrow.fs``.

``checkpoint_location`` and ``output_dir`` may be local paths, ``file://`` URLs,
or URLs of a filesystem pyarrow knows: ``hdfs://`` (and ``viewfs://``),
``s3://``, ``gs://`` (or ``gcs://``), ``abfs://`` (or ``abfss://``). Hadoop's
S3 connectors' schemes ``s3a://`` and ``s3n://`` name the same bucket and key
and are read as ``s3://``. :func:`open_dir` picks the implementation by the
URL's scheme: a plain path or a ``file:`` URL is a :class:`LocalDir` (Python's
I/O, fast), anything else an :class:`ArrowDir`, opened with
``pyarrow.fs.FileSystem.from_uri`` and so configured as pyarrow configures it:
credentials and endpoints from the environment, the provider's own files, or
the URL. Nothing here goes through Spark or its JVM, so the same directories
work in a classic session, under Spark Connect, and in the process where
``foreachBatch`` runs.

Both implement :class:`StorageDir`: read, atomically replace, list and delete
the files of one directory. A file is replaced by writing a temporary file
beside it and moving it over the old one. On the local disk the move is an
atomic rename; HDFS's rename does not replace a file, so the old one is deleted
first; on object stores (S3, GCS) a move is a copy and a delete. A reader sees
the old file or the new one (or, on HDFS, none for a moment), never part of one.
"""

from __future__ import annotations

import os
import re
import shutil
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import unquote

import pyarrow as pa
from pyarrow import fs as pafs

from state_backends.urls import HIDDEN, redact, scrub

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

T = TypeVar("T")
LOCAL_SCHEMES = frozenset({"file"})  # URL schemes read and written with Python's I/O; the rest go through pyarrow
SCHEME_ALIASES = {"s3a": "s3", "s3n": "s3"}  # Hadoop's S3 connectors: the bucket and key of s3://
_FILESYSTEMS = (  # pyarrow's filesystem class and the URL schemes from_uri opens with it
    ("HadoopFileSystem", ("hdfs", "viewfs")),
    ("S3FileSystem", ("s3", "s3a", "s3n")),
    ("GcsFileSystem", ("gs", "gcs")),
    ("AzureFileSystem", ("abfs", "abfss")),
)
_SECRET_OPTION = re.compile(r"secret|token|passw|credential|key|sig", re.IGNORECASE)  # URL options never shown
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


def scheme_of(location: str | Path) -> str:
    """The URL scheme of ``location`` (lower case), ``""`` for a plain path."""
    if isinstance(location, Path):
        return ""
    match = _SCHEME.match(location)
    return "" if match is None or len(match.group(1)) == 1 else match.group(1).lower()  # 'C:' is a drive


def is_local(location: str | Path) -> bool:
    """Whether ``location`` is read and written with Python's I/O: a plain path, or a scheme in ``LOCAL_SCHEMES``."""
    scheme = scheme_of(location)
    return scheme == "" or scheme in LOCAL_SCHEMES


def local_path(location: str | Path) -> Path:
    """The local path of a plain path or ``file:`` URL (``file:///a``, ``file:/a``, ``file://localhost/a``)."""
    if isinstance(location, Path):
        return location
    if scheme_of(location) != "file":
        return Path(location)
    rest = location[len("file:"):]
    if rest.startswith("//"):
        host, _, path = rest[2:].partition("/")
        if host not in ("", "localhost"):
            msg = f"file URL {location!r} names host {host!r}; only local file: URLs are supported"
            raise ValueError(msg)
        rest = "/" + path
    return Path(rest)


def join(location: str | Path, *names: str) -> str | Path:
    """``location`` with ``names`` appended: a Path for a Path, a URL for a str (``/``-joined, before a ``?query``)."""
    if isinstance(location, Path):
        return location.joinpath(*names)
    if not names:
        return location
    base, mark, query = location.partition("?") if scheme_of(location) else (location, "", "")
    return "/".join([base.rstrip("/"), *names]) + mark + query


def supported_schemes() -> list[str]:
    """The URL schemes :func:`open_dir` opens with this pyarrow (a build may leave out S3, GCS or Azure)."""
    schemes = sorted(LOCAL_SCHEMES)
    for cls, names in _FILESYSTEMS:
        if hasattr(pafs, cls):
            schemes.extend(names)
    return schemes


def shown(url: str) -> str:
    """``url`` safe to show: its password (``user:password@``) and secret-looking query values as ``***``."""
    base, mark, query = redact(url).partition("?")
    if not mark:
        return base
    items = [item.partition("=") for item in query.split("&")]
    return base + mark + "&".join(
        f"{name}={HIDDEN}" if eq and value and _SECRET_OPTION.search(name) else name + eq + value
        for name, eq, value in items)


def _scrubbed(text: str, url: str) -> str:
    """The first line of ``text`` (pyarrow's message) with ``url``'s password and secret query values as ``***``."""
    text = scrub(text.strip().split("\n", 1)[0].replace(url, shown(url)), url)
    for item in url.partition("?")[2].split("&"):
        name, _, value = item.partition("=")
        if _SECRET_OPTION.search(name):
            for form in sorted({value, unquote(value)}, key=len, reverse=True):
                if len(form) >= 4:  # a shorter one would also hide ordinary words of the message
                    text = text.replace(form, HIDDEN)
    return text


class StorageDir(ABC):
    """One directory: files read whole, replaced atomically, listed and deleted by name."""

    location: str

    @abstractmethod
    def child(self, name: str) -> StorageDir:
        """The subdirectory ``name`` (not created)."""

    @abstractmethod
    def mkdirs(self) -> None:
        """Create this directory and its parents (no error if it exists)."""

    @abstractmethod
    def is_dir(self) -> bool:
        """Whether this directory exists."""

    @abstractmethod
    def exists(self, name: str) -> bool:
        """Whether file ``name`` exists here."""

    @abstractmethod
    def read_bytes(self, name: str) -> bytes:
        """File ``name``'s bytes; ``FileNotFoundError`` when it does not exist."""

    @abstractmethod
    def write_bytes(self, name: str, data: bytes) -> None:
        """Replace file ``name`` with ``data``: a temporary file, then a move over the old one."""

    def read_text(self, name: str) -> str:
        """File ``name``'s text (UTF-8); ``FileNotFoundError`` when it does not exist."""
        return self.read_bytes(name).decode("utf-8")

    def write_text(self, name: str, text: str) -> None:
        """Replace file ``name`` with ``text`` (UTF-8), as :meth:`write_bytes`."""
        self.write_bytes(name, text.encode("utf-8"))

    @abstractmethod
    def delete(self, name: str) -> None:
        """Delete file ``name`` (no error if it does not exist)."""

    @abstractmethod
    def names(self) -> list[str]:
        """The names of the entries of this directory (``[]`` when it does not exist)."""

    @abstractmethod
    def delete_tree(self) -> None:
        """Delete this directory and everything in it (no error if it does not exist)."""

    def __str__(self) -> str:
        return self.location

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.location!r})"


class LocalDir(StorageDir):
    """A directory on the local disk, through Python's I/O."""

    def __init__(self, path: str | Path) -> None:
        self.path = local_path(path)
        self.location = str(self.path)

    def child(self, name: str) -> LocalDir:
        """The subdirectory ``name``."""
        return LocalDir(self.path / name)

    def mkdirs(self) -> None:
        """Create the directory."""
        self.path.mkdir(parents=True, exist_ok=True)

    def is_dir(self) -> bool:
        """Whether it exists."""
        return self.path.is_dir()

    def exists(self, name: str) -> bool:
        """Whether file ``name`` exists."""
        return (self.path / name).exists()

    def read_bytes(self, name: str) -> bytes:
        """File ``name``'s bytes."""
        return (self.path / name).read_bytes()

    def write_bytes(self, name: str, data: bytes) -> None:
        """Replace file ``name`` atomically."""
        tmp = self.path / f".{name}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, self.path / name)

    def delete(self, name: str) -> None:
        """Delete file ``name``."""
        (self.path / name).unlink(missing_ok=True)

    def names(self) -> list[str]:
        """The entries' names."""
        return [p.name for p in self.path.iterdir()] if self.path.is_dir() else []

    def delete_tree(self) -> None:
        """Delete the directory and its contents."""
        if self.path.is_dir():
            shutil.rmtree(self.path)


class ArrowDir(StorageDir):
    """The directory ``path`` of a ``pyarrow.fs`` filesystem (HDFS, S3, GCS, Azure, pyarrow's local one...).

    ``location`` is the URL it is shown and joined as (``path`` when not
    given; ``str()`` gives it as it is, ``repr()`` with its secrets hidden);
    :meth:`from_url` opens one from a URL. Errors from pyarrow are raised as
    ``OSError`` (``FileNotFoundError`` for a missing file) naming the operation
    and the URL, with the URL's password and secret options hidden.
    It pickles with its filesystem (pyarrow's filesystems pickle their options),
    so a ``foreachBatch`` function holding one can be shipped.
    """

    def __init__(self, filesystem: pafs.FileSystem, path: str, location: str | None = None) -> None:
        self.filesystem = filesystem
        self.path = path.rstrip("/") or path
        self.location = self.path if location is None else location

    @classmethod
    def from_url(cls, url: str) -> ArrowDir:
        """The directory at ``url``, through ``pyarrow.fs.FileSystem.from_uri`` (``s3a:``, ``s3n:`` read as ``s3:``).

        ``ValueError`` for a scheme pyarrow has no filesystem for, or a URL it
        refuses (an unknown option); ``OSError`` when the filesystem cannot be
        opened (HDFS without libhdfs, an S3 bucket whose region cannot be found).
        """
        scheme = scheme_of(url)
        uri = SCHEME_ALIASES[scheme] + url[len(scheme):] if scheme in SCHEME_ALIASES else url
        try:
            filesystem, path = pafs.FileSystem.from_uri(uri)
        except pa.ArrowInvalid as err:
            reason = _scrubbed(str(err).replace(uri, url), url)
            if reason.startswith("Unrecognized filesystem type"):
                msg = (f"open_dir: no filesystem for the scheme {scheme!r} of {shown(url)!r}; supported schemes "
                       f"are: {', '.join(supported_schemes())}, or a plain path")
            else:
                msg = f"open_dir: pyarrow refuses the URL {shown(url)!r}: {reason}"
            raise ValueError(msg) from None
        except (OSError, pa.ArrowException) as err:
            reason = _scrubbed(str(err).replace(uri, url), url)
            msg = f"open the filesystem of {shown(url)}: {reason}"
            if "libjvm" in reason or "libhdfs" in reason:
                msg += (f"; pyarrow reads {scheme}:// through libhdfs, which needs JAVA_HOME, HADOOP_HOME (holding "
                        "lib/native/libhdfs.so, or ARROW_LIBHDFS_DIR naming its directory) and the Hadoop jars on "
                        "CLASSPATH (`hdfs classpath --glob`) in this process's environment")
            raise OSError(msg) from None
        return cls(filesystem, path, url.rstrip("/") or url)

    def __repr__(self) -> str:
        return f"ArrowDir({shown(self.location)!r})"

    def _file(self, name: str) -> str:
        return f"{self.path}/{name}"

    def _call(self, what: str, action: Callable[[], T], name: str | None = None) -> T:
        try:
            return action()
        except FileNotFoundError as err:
            msg = f"{what} {self._shown(name)}: {_scrubbed(str(err), self.location)}"
            raise FileNotFoundError(msg) from None
        except (OSError, pa.ArrowException) as err:
            msg = f"{what} {self._shown(name)} failed: {_scrubbed(str(err), self.location)}"
            raise OSError(msg) from None

    def _shown(self, name: str | None) -> str:
        return shown(self.location if name is None else str(join(self.location, name)))

    def child(self, name: str) -> ArrowDir:
        """The subdirectory ``name``, on the same filesystem."""
        return ArrowDir(self.filesystem, self._file(name), str(join(self.location, name)))

    def mkdirs(self) -> None:
        """Create the directory and its parents (``create_dir``)."""
        self._call("create the directory", lambda: self.filesystem.create_dir(self.path, recursive=True))

    def is_dir(self) -> bool:
        """Whether it exists as a directory."""
        return self._call("look up the directory", lambda: self._type(self.path) == pafs.FileType.Directory)

    def exists(self, name: str) -> bool:
        """Whether file ``name`` exists."""
        return self._call("look up", lambda: self._type(self._file(name)) != pafs.FileType.NotFound, name)

    def _type(self, path: str) -> pafs.FileType:
        return self.filesystem.get_file_info(path).type

    def read_bytes(self, name: str) -> bytes:
        """File ``name``'s bytes (``open_input_stream``)."""
        def read() -> bytes:
            with self.filesystem.open_input_stream(self._file(name)) as stream:
                return bytes(stream.read())
        return self._call("read", read, name)

    def write_bytes(self, name: str, data: bytes) -> None:
        """Replace file ``name``: write a temporary file beside it, then move it over the old one."""
        def write() -> None:
            tmp, target = self._file(f".{name}.tmp"), self._file(name)
            with self.filesystem.open_output_stream(tmp) as out:
                out.write(data)
            _replace(self.filesystem, tmp, target)
        self._call("write", write, name)

    def delete(self, name: str) -> None:
        """Delete file ``name`` (``delete_file``; a missing file is fine)."""
        def remove() -> None:
            try:
                self.filesystem.delete_file(self._file(name))
            except FileNotFoundError:
                pass
        self._call("delete", remove, name)

    def names(self) -> list[str]:
        """The entries' names (``get_file_info`` of a ``FileSelector``)."""
        def listing() -> list[str]:
            selector = pafs.FileSelector(self.path, allow_not_found=True)
            return [info.base_name for info in self.filesystem.get_file_info(selector)]
        return self._call("list", listing)

    def delete_tree(self) -> None:
        """Delete the directory and its contents (``delete_dir``; a missing one is fine)."""
        def remove() -> None:
            if self._type(self.path) != pafs.FileType.NotFound:
                self.filesystem.delete_dir(self.path)
        self._call("delete the directory", remove)


def _replace(filesystem: pafs.FileSystem, source: str, target: str) -> None:
    """Move ``source`` over ``target``, deleting ``target`` first where the move does not replace a file.

    HDFS's rename refuses an existing target: then the old file is deleted and
    the move tried again (a crash in between leaves no file until the batch
    runs again). A store with no move at all (Azure Blob without a hierarchical
    namespace) gets a copy and a delete.
    """
    try:
        filesystem.move(source, target)
    except NotImplementedError:
        filesystem.copy_file(source, target)
        filesystem.delete_file(source)
    except OSError:
        if filesystem.get_file_info(target).type == pafs.FileType.NotFound:
            raise
        filesystem.delete_file(target)
        filesystem.move(source, target)


def open_dir(location: str | Path, spark: SparkSession | None = None) -> StorageDir:
    """The :class:`StorageDir` of ``location``: :class:`LocalDir` for a path or ``file:`` URL, else :class:`ArrowDir`.

    ``spark`` is accepted and not used: no directory goes through Spark any more.
    """
    del spark
    if is_local(location):
        return LocalDir(location)
    return ArrowDir.from_url(str(location))


def as_dir(directory: StorageDir | str | Path) -> StorageDir:
    """``directory`` as a :class:`StorageDir` (a path or URL opened with :func:`open_dir`)."""
    return directory if isinstance(directory, StorageDir) else open_dir(directory)
